# SPDX-License-Identifier: LGPL-2.1-or-later
# bash completion for ringfence (every subcommand) and for ringfence installed as bwrap
# (bwrap's command line).

_ringfence_bwrap_options="--help --version --args --argv0 --level-prefix --unshare-all --share-net
--unshare-user --unshare-user-try --unshare-ipc --unshare-pid --unshare-net --unshare-uts
--unshare-cgroup --unshare-cgroup-try --userns --userns2 --disable-userns --assert-userns-disabled
--pidns --uid --gid --hostname --chdir --clearenv --setenv --unsetenv --lock-file --sync-fd --bind
--bind-try --dev-bind --dev-bind-try --ro-bind --ro-bind-try --bind-fd --ro-bind-fd --remount-ro
--overlay-src --overlay --tmp-overlay --ro-overlay --exec-label --file-label --proc --dev --tmpfs
--mqueue --dir --file --bind-data --ro-bind-data --symlink --seccomp --add-seccomp-fd --block-fd
--userns-block-fd --info-fd --json-status-fd --new-session --die-with-parent --as-pid-1 --cap-add
--cap-drop --perms --size --chmod"

_ringfence_subcommands="run bwrap policy preset doctor verify agent-state violations why changes apply
discard"
_ringfence_help="-h --help --help-all"

# `ringfence run`: the options that take a value, then the flags.
_ringfence_run_valued="--preset --agent --project --network --edits --shell --web-search --fs-jail
--bind --ro-bind --unmask --mask --mask-scan-limit --env --timeout --limit --agent-state --cache --profile
--seccomp --require --level --allow-net --deny-net --allow-host --allow-hosts --toolchains"
_ringfence_run_flags="--workspace --review --quiet --limit-best-effort --keep-home --allow-broad-project
--no-profile --dry-run --verbose --allow-unsandboxed --new-session --allow-listen
--allow-unfiltered-network"

_ringfence_presets="trusted balanced hardened read-only ci"
_ringfence_levels="kernel landlock soft"
_ringfence_agents="claude codex gemini cursor cline"

# How many values each bwrap option takes (options not listed take none).
_ringfence_bwrap_arity() {
  case "$1" in
    --bind|--bind-try|--dev-bind|--dev-bind-try|--ro-bind|--ro-bind-try|--bind-fd|--ro-bind-fd|\
    --file|--bind-data|--ro-bind-data|--symlink|--setenv|--chmod) echo 2 ;;
    --overlay) echo 3 ;;
    --args|--argv0|--userns|--userns2|--pidns|--uid|--gid|--hostname|--chdir|--unsetenv|\
    --lock-file|--sync-fd|--remount-ro|--overlay-src|--tmp-overlay|--ro-overlay|--exec-label|\
    --file-label|--proc|--dev|--tmpfs|--mqueue|--dir|--seccomp|--add-seccomp-fd|--block-fd|\
    --userns-block-fd|--info-fd|--json-status-fd|--cap-add|--cap-drop|--perms|--size) echo 1 ;;
    *) echo 0 ;;
  esac
}

_ringfence_bwrap() {
  local cur=${COMP_WORDS[COMP_CWORD]} i=$1 word n
  # Walk the words before the cursor: skip option values, stop at the command.
  while [ "$i" -lt "$COMP_CWORD" ]; do
    word=${COMP_WORDS[i]}
    case "$word" in
      --) _command_offset $((i + 1)); return ;;
      -*) n=$(_ringfence_bwrap_arity "$word")
          if [ $((i + n)) -ge "$COMP_CWORD" ]; then
            case "$word" in
              --cap-add|--cap-drop)
                local caps
                caps=$(capsh --print 2>/dev/null | sed -n 's/^Bounding set =//p' | tr ',a-z' ' A-Z')
                COMPREPLY=($(compgen -W "ALL $caps" -- "$cur")) ;;
              --*fd|--userns|--userns2|--pidns|--args|--seccomp) COMPREPLY=() ;;
              *) COMPREPLY=($(compgen -f -- "$cur")) ;;
            esac
            return
          fi
          i=$((i + n + 1)) ;;
      *) _command_offset "$i"; return ;;
    esac
  done
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$_ringfence_bwrap_options --" -- "$cur"))
  else
    COMPREPLY=($(compgen -c -- "$cur"))
  fi
}

# The values of one option of `ringfence run`.
_ringfence_run_value() {
  local opt=$1 cur=$2
  case "$opt" in
    --preset) COMPREPLY=($(compgen -W "$_ringfence_presets" -- "$cur")) ;;
    --agent) COMPREPLY=($(compgen -W "$_ringfence_agents generic auto" -- "$cur")) ;;
    --network|--shell|--web-search|--fs-jail) COMPREPLY=($(compgen -W "on off" -- "$cur")) ;;
    --edits) COMPREPLY=($(compgen -W "on off review" -- "$cur")) ;;
    --require|--level) COMPREPLY=($(compgen -W "$_ringfence_levels" -- "$cur")) ;;
    --toolchains) COMPREPLY=($(compgen -W "auto off" -- "$cur")) ;;
    --allow-hosts) COMPREPLY=($(compgen -W "npm pypi github crates go debian" -- "${cur##*,}"))
                   [[ $cur == *,* ]] && COMPREPLY=("${COMPREPLY[@]/#/${cur%,*},}") ;;
    --agent-state) COMPREPLY=($(compgen -W "default project throwaway host" -- "$cur")
                              $(compgen -d -- "$cur")) ;;
    --seccomp) COMPREPLY=($(compgen -W "default strict" -- "$cur") $(compgen -f -- "$cur")) ;;
    --project|--cache) COMPREPLY=($(compgen -d -- "$cur")) ;;
    --bind|--ro-bind|--profile) COMPREPLY=($(compgen -f -- "$cur")) ;;
    --env) COMPREPLY=($(compgen -e -- "$cur")) ;;
    --limit) COMPREPLY=($(compgen -W "memory= pids= cpu= nofile= core= fsize= tmpfs=" -- "${cur##*,}"))
             [[ $cur == *,* ]] && COMPREPLY=("${COMPREPLY[@]/#/${cur%,*},}")
             compopt -o nospace 2>/dev/null ;;
    *) COMPREPLY=() ;;
  esac
}

_ringfence_run() {
  local cur=${COMP_WORDS[COMP_CWORD]} i=$1 word
  while [ "$i" -lt "$COMP_CWORD" ]; do
    word=${COMP_WORDS[i]}
    case " $_ringfence_run_valued " in
      *" $word "*)
        if [ $((i + 1)) -eq "$COMP_CWORD" ]; then
          _ringfence_run_value "$word" "$cur"
          return
        fi
        i=$((i + 2)); continue ;;
    esac
    case "$word" in
      --) _command_offset $((i + 1)); return ;;
      -*) i=$((i + 1)) ;;
      *) _command_offset "$i"; return ;;
    esac
  done
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$_ringfence_run_valued $_ringfence_run_flags $_ringfence_help --" -- "$cur"))
  else
    COMPREPLY=($(compgen -c -- "$cur"))
  fi
}

# Subcommands with subcommands of their own: the word after SUB, then per-word options.
_ringfence_nested() {
  local sub=$1 i=$2 cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]} op=""
  local ops
  case "$sub" in
    policy) ops="list check show compile" ;;
    preset) ops="list show" ;;
    agent-state) ops="list show reset" ;;
  esac
  local j
  for ((j = i; j < COMP_CWORD; j++)); do
    case " $ops " in *" ${COMP_WORDS[j]} "*) op=${COMP_WORDS[j]}; break ;; esac
  done
  if [[ -z $op ]]; then
    COMPREPLY=($(compgen -W "$ops $_ringfence_help" -- "$cur"))
    return
  fi
  local opts="$_ringfence_help" values=""
  case "$sub/$op" in
    policy/show) opts+=" --pfc"; values=policy ;;
    policy/check) values=policy ;;
    policy/compile) opts+=" -o --output"; values=policy
      if [[ $prev == -o || $prev == --output ]]; then COMPREPLY=($(compgen -f -- "$cur")); return; fi ;;
    preset/show) values=preset ;;
    agent-state/show) values=agent ;;
    agent-state/reset) opts+=" --yes"; values=agent ;;
  esac
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$opts" -- "$cur"))
    return
  fi
  case "$values" in
    policy) COMPREPLY=($(compgen -W "$(ringfence policy list 2>/dev/null || echo default strict)" -- "$cur")
            $(compgen -f -- "$cur")) ;;
    preset) COMPREPLY=($(compgen -W "$_ringfence_presets" -- "$cur")) ;;
    agent) COMPREPLY=($(compgen -W "$_ringfence_agents" -- "$cur")) ;;
    *) COMPREPLY=() ;;
  esac
}

_ringfence_simple() {
  local sub=$1 cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]} opts
  case "$sub" in
    doctor) opts="--json --no-cache" ;;
    verify) opts="--preset --level --json --attack-program"
      case "$prev" in
        --preset) COMPREPLY=($(compgen -W "$_ringfence_presets" -- "$cur")); return ;;
        --level) COMPREPLY=($(compgen -W "$_ringfence_levels" -- "$cur")); return ;;
        --attack-program) COMPREPLY=($(compgen -f -- "$cur")); return ;;
      esac ;;
    violations|why) opts="--last --since --all --log"
      [[ $sub == violations ]] && opts+=" --json --format"
      case "$prev" in
        --since) COMPREPLY=(); return ;;
        --log) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --format) COMPREPLY=($(compgen -W "text github" -- "$cur")); return ;;
      esac ;;
    changes) opts="--json --diff --stat --list --project"
      [[ $prev == --project ]] && { COMPREPLY=($(compgen -d -- "$cur")); return; } ;;
    apply) opts="--project --include-risky --git-branch"
      [[ $prev == --git-branch ]] && { COMPREPLY=(); return; }
      [[ $prev == --project ]] && { COMPREPLY=($(compgen -d -- "$cur")); return; }
      [[ $cur != -* ]] && { COMPREPLY=($(compgen -f -- "$cur")); return; } ;;
    discard) opts="--project --keep --older-than"
      [[ $prev == --keep || $prev == --older-than ]] && { COMPREPLY=(); return; }
      [[ $prev == --project ]] && { COMPREPLY=($(compgen -d -- "$cur")); return; } ;;
  esac
  COMPREPLY=($(compgen -W "$opts $_ringfence_help" -- "$cur"))
}

_ringfence() {
  local cur=${COMP_WORDS[COMP_CWORD]}
  case "${COMP_WORDS[0]##*/}" in
    bwrap) _ringfence_bwrap 1; return ;;
  esac
  if [ "$COMP_CWORD" -eq 1 ]; then
    if [[ $cur == -* ]]; then
      COMPREPLY=($(compgen -W "$_ringfence_help --version $_ringfence_bwrap_options" -- "$cur"))
    else
      COMPREPLY=($(compgen -W "$_ringfence_subcommands" -- "$cur"))
    fi
    return
  fi
  case "${COMP_WORDS[1]}" in
    bwrap) _ringfence_bwrap 2 ;;
    run) _ringfence_run 2 ;;
    policy|preset|agent-state) _ringfence_nested "${COMP_WORDS[1]}" 2 ;;
    doctor|verify|violations|why|changes|apply|discard) _ringfence_simple "${COMP_WORDS[1]}" ;;
    -*) _ringfence_bwrap 1 ;;
    *) COMPREPLY=() ;;
  esac
}

complete -F _ringfence ringfence bwrap

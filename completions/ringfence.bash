# SPDX-License-Identifier: LGPL-2.1-or-later
# bash completion for ringfence and for ringfence installed as bwrap (bwrap's command line).

_ringfence_bwrap_options="--help --version --args --argv0 --level-prefix --unshare-all --share-net
--unshare-user --unshare-user-try --unshare-ipc --unshare-pid --unshare-net --unshare-uts
--unshare-cgroup --unshare-cgroup-try --userns --userns2 --disable-userns --assert-userns-disabled
--pidns --uid --gid --hostname --chdir --clearenv --setenv --unsetenv --lock-file --sync-fd --bind
--bind-try --dev-bind --dev-bind-try --ro-bind --ro-bind-try --bind-fd --ro-bind-fd --remount-ro
--overlay-src --overlay --tmp-overlay --ro-overlay --exec-label --file-label --proc --dev --tmpfs
--mqueue --dir --file --bind-data --ro-bind-data --symlink --seccomp --add-seccomp-fd --block-fd
--userns-block-fd --info-fd --json-status-fd --new-session --die-with-parent --as-pid-1 --cap-add
--cap-drop --perms --size --chmod"

# How many values each option takes (options not listed take none).
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

_ringfence() {
  local cur=${COMP_WORDS[COMP_CWORD]}
  case "${COMP_WORDS[0]##*/}" in
    bwrap) _ringfence_bwrap 1; return ;;
  esac
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=($(compgen -W "bwrap --help --version $_ringfence_bwrap_options" -- "$cur"))
  elif [ "${COMP_WORDS[1]}" = bwrap ]; then
    _ringfence_bwrap 2
  else
    _ringfence_bwrap 1
  fi
}

complete -F _ringfence ringfence bwrap

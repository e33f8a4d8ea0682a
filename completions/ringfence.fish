# SPDX-License-Identifier: LGPL-2.1-or-later
# fish completion for ringfence: every subcommand, and bwrap's command line (ringfence bwrap,
# and bwrap.fish for ringfence installed as bwrap).

# bwrap's options: name, number of values, description.
set -g __ringfence_bwrap_table \
  'help	0	Show this help text and exit' \
  'version	0	Show the version and exit' \
  'args	1	Read more options, NUL-separated, from FD' \
  'argv0	1	Pass VALUE as argv[0] to COMMAND' \
  'level-prefix	0	Start each diagnostic with its syslog level, e.g. <3>' \
  'unshare-all	0	Unshare every supported namespace (user, cgroup only where possible)' \
  'share-net	0	Keep the host network (meant to follow --unshare-all)' \
  'unshare-user	0	Use a new user namespace (implied when not run as root)' \
  'unshare-user-try	0	Use a new user namespace where the host allows it' \
  'unshare-ipc	0	Use a new IPC namespace' \
  'unshare-pid	0	Use a new PID namespace' \
  'unshare-net	0	Use a new network namespace (loopback only)' \
  'unshare-uts	0	Use a new UTS (host name) namespace' \
  'unshare-cgroup	0	Use a new cgroup namespace' \
  'unshare-cgroup-try	0	Use a new cgroup namespace where the kernel has them' \
  'userns	1	Enter the user namespace FD instead of creating one' \
  'userns2	1	Switch to the user namespace FD once setup is done' \
  'disable-userns	0	Stop the sandbox from creating more user namespaces' \
  'assert-userns-disabled	0	Fail unless new user namespaces are already impossible' \
  'pidns	1	Enter the PID namespace FD (parent of a new one with --unshare-pid)' \
  'uid	1	User id inside the sandbox (needs --unshare-user or --userns)' \
  'gid	1	Group id inside the sandbox (needs --unshare-user or --userns)' \
  'hostname	1	Host name inside the sandbox (needs --unshare-uts)' \
  'chdir	1	Working directory for COMMAND' \
  'clearenv	0	Start from an empty environment' \
  'setenv	2	Set VAR to VALUE in the environment' \
  'unsetenv	1	Remove VAR from the environment' \
  'lock-file	1	Hold a read lock on DEST while the sandbox runs' \
  'sync-fd	1	Keep FD open for as long as the sandbox runs' \
  'bind	2	Mount host path SRC at DEST, writable' \
  'bind-try	2	Like --bind, skipped when SRC does not exist' \
  'dev-bind	2	Like --bind, with device nodes usable' \
  'dev-bind-try	2	Like --dev-bind, skipped when SRC does not exist' \
  'ro-bind	2	Mount host path SRC at DEST, read-only' \
  'ro-bind-try	2	Like --ro-bind, skipped when SRC does not exist' \
  'bind-fd	2	Mount the directory (or O_PATH) fd FD at DEST' \
  'ro-bind-fd	2	Like --bind-fd, read-only' \
  'remount-ro	1	Make the mount at DEST read-only (not its submounts)' \
  'overlay-src	1	Add SRC as a lower layer of the next overlay' \
  'overlay	3	Overlay on DEST, writes go to RWSRC (WORKDIR: empty, same fs)' \
  'tmp-overlay	1	Overlay on DEST, writes go to a hidden tmpfs and are lost' \
  'ro-overlay	1	Read-only overlay of the --overlay-src layers on DEST' \
  'exec-label	1	SELinux label to run COMMAND with' \
  'file-label	1	SELinux label for files created during setup' \
  'proc	1	Mount a procfs at DEST' \
  'dev	1	Mount a minimal /dev at DEST' \
  'tmpfs	1	Mount an empty tmpfs at DEST' \
  'mqueue	1	Mount a POSIX message queue file system at DEST' \
  'dir	1	Create the directory DEST' \
  'file	2	Create the file DEST holding what FD contains' \
  'bind-data	2	Mount a file holding what FD contains at DEST' \
  'ro-bind-data	2	Like --bind-data, read-only' \
  'symlink	2	Create DEST as a symlink pointing to SRC' \
  'seccomp	1	Install the seccomp BPF program read from FD (only one)' \
  'add-seccomp-fd	1	Also install the seccomp BPF program read from FD' \
  'block-fd	1	Before running COMMAND, wait until FD is readable' \
  'userns-block-fd	1	Wait on FD while the user namespace is set up from outside' \
  'info-fd	1	Write JSON about the started sandbox to FD' \
  'json-status-fd	1	Write JSON status lines (start, exit code) to FD' \
  'new-session	0	Run COMMAND in a new session, away from the terminal' \
  'die-with-parent	0	SIGKILL the sandbox when the caller of this program dies' \
  'as-pid-1	0	Run COMMAND as PID 1, without a reaper process' \
  'cap-add	1	Give COMMAND capability CAP (or ALL)' \
  'cap-drop	1	Take capability CAP (or ALL) away from COMMAND' \
  'perms	1	Mode for the next --dir, --tmpfs, --file or --bind-data' \
  'size	1	Size limit for the next --tmpfs' \
  'chmod	2	Change the mode of PATH, which must exist' \

# `ringfence run`'s options that take a value.
set -g __ringfence_run_valued preset agent project network edits shell web-search fs-jail bind \
  ro-bind unmask mask mask-scan-limit env timeout limit agent-state cache profile seccomp require level \
  allow-net deny-net allow-host allow-hosts toolchains

function __ringfence_bwrap_arity --argument-names word
  for row in $__ringfence_bwrap_table
    set -l f (string split \t -- $row)
    if test "--$f[1]" = "$word"
      echo $f[2]
      return 0
    end
  end
  echo 0
end

# The index (in `commandline -opc`) where COMMAND starts, after the options of bwrap mode
# (from token FIRST on) or of run; nothing when the cursor is still among the options.
function __ringfence_command_index --argument-names mode first
  set -l toks (commandline -opc)
  set -l i $first
  while test $i -le (count $toks)
    set -l w $toks[$i]
    if test "$w" = --
      echo (math $i + 1)
      return 0
    end
    if string match -q -- '-*' $w
      set -l n 0
      if test $mode = bwrap
        set n (__ringfence_bwrap_arity $w)
      else if contains -- (string replace -r '^--' '' -- $w) $__ringfence_run_valued
        set n 1
      end
      set i (math $i + 1 + $n)
      continue
    end
    echo $i
    return 0
  end
  return 1
end

# True while the cursor is among bwrap's options: `bwrap ...` or `ringfence bwrap ...`.
function __ringfence_bwrap_options_allowed --argument-names how
  set -l toks (commandline -opc)
  set -l first 2
  if test "$how" = ringfence
    test "$toks[2]" = bwrap; or return 1
    set first 3
  end
  not __ringfence_command_index bwrap $first >/dev/null
end

function __ringfence_run_options_allowed
  set -l toks (commandline -opc)
  test "$toks[2]" = run; or return 1
  not __ringfence_command_index run 3 >/dev/null
end

# Completes COMMAND and its arguments once the options of run or bwrap mode are over.
function __ringfence_complete_command --argument-names mode first
  set -l idx (__ringfence_command_index $mode $first); or return
  set -l toks (commandline -opc)
  set -l rest $toks[$idx..-1]
  if test (count $rest) -eq 0
    __fish_complete_command
  else
    complete -C (string join ' ' -- (string escape -- $rest) (commandline -ct))
  end
end

function __ringfence_in_command --argument-names mode
  set -l toks (commandline -opc)
  switch $mode
    case run
      test "$toks[2]" = run; and __ringfence_command_index run 3 >/dev/null
    case ringfence-bwrap
      test "$toks[2]" = bwrap; and __ringfence_command_index bwrap 3 >/dev/null
    case bwrap
      __ringfence_command_index bwrap 2 >/dev/null
  end
end

# bwrap's options for the command CMD while CONDITION holds.
function __ringfence_bwrap_complete --argument-names cmd condition
  for row in $__ringfence_bwrap_table
    set -l f (string split \t -- $row)
    if test $f[2] -eq 0
      complete -c $cmd -n $condition -l $f[1] -d $f[3]
    else
      switch $f[1]
        case cap-add cap-drop
          complete -c $cmd -n $condition -l $f[1] -x -a 'ALL' -d $f[3]
        case bind bind-try dev-bind dev-bind-try ro-bind ro-bind-try chdir lock-file overlay-src overlay
          complete -c $cmd -n $condition -l $f[1] -r -F -d $f[3]
        case '*'
          complete -c $cmd -n $condition -l $f[1] -x -d $f[3]
      end
    end
  end
  if test $cmd = bwrap
    complete -c bwrap -f
    complete -c bwrap -n '__ringfence_bwrap_options_allowed bwrap; and not string match -q -- "-*" (commandline -ct)' -a '(__fish_complete_command)'
    complete -c bwrap -n '__ringfence_in_command bwrap' -x -a '(__ringfence_complete_command bwrap 2)'
  end
end

set -l subs run bwrap policy preset doctor verify agent-state violations why changes apply discard
set -l nosub "not __fish_seen_subcommand_from $subs"
complete -c ringfence -f

complete -c ringfence -n $nosub -a run -d 'Run COMMAND confined to a project folder'
complete -c ringfence -n $nosub -a bwrap -d 'Run COMMAND from a bubblewrap command line'
complete -c ringfence -n $nosub -a policy -d 'Inspect and compile seccomp policies'
complete -c ringfence -n $nosub -a preset -d 'List the presets or show one'
complete -c ringfence -n $nosub -a doctor -d 'What this host can enforce, and how to fix it'
complete -c ringfence -n $nosub -a verify -d 'Attack a real sandbox on this host'
complete -c ringfence -n $nosub -a agent-state -d "List, show or reset the agents' kept state"
complete -c ringfence -n $nosub -a violations -d 'Print the violation log of the last run'
complete -c ringfence -n $nosub -a why -d 'Explain the refusals of the last run and what allows them'
complete -c ringfence -n $nosub -a changes -d 'Show the change set of a review run'
complete -c ringfence -n $nosub -a apply -d 'Write a change set into the project'
complete -c ringfence -n $nosub -a discard -d 'Drop change sets'
complete -c ringfence -n $nosub -l version -d 'Print the version and exit'

# -h, --help and --help-all: everywhere but in bwrap mode and after run's COMMAND.
set -l helpcond "not __fish_seen_subcommand_from bwrap; and not __ringfence_in_command run"
complete -c ringfence -n $helpcond -s h -l help -d 'Print the options and exit'
complete -c ringfence -n $helpcond -l help-all -d 'Print the help of every subcommand and exit'

# ringfence bwrap ...
__ringfence_bwrap_complete ringfence '__ringfence_bwrap_options_allowed ringfence'
complete -c ringfence -n '__ringfence_bwrap_options_allowed ringfence; and not string match -q -- "-*" (commandline -ct)' -a '(__fish_complete_command)'
complete -c ringfence -n '__ringfence_in_command ringfence-bwrap' -x -a '(__ringfence_complete_command bwrap 3)'

# ringfence run ...
set -l r __ringfence_run_options_allowed
complete -c ringfence -n $r -l preset -x -a 'trusted balanced hardened read-only ci' -d 'The preset'
complete -c ringfence -n $r -l agent -x -a 'claude codex gemini cursor cline generic auto' -d 'Agent profile'
complete -c ringfence -n $r -l project -x -a '(__fish_complete_directories)' -d 'The writable project folder'
complete -c ringfence -n $r -l workspace -d 'Also show the project at /workspace'
complete -c ringfence -n $r -l network -x -a 'on off' -d 'off: loopback only; on: the connect policy'
complete -c ringfence -n $r -l edits -x -a 'on off review' -d 'off: the project is read-only; review: a change set'
complete -c ringfence -n $r -l review -d 'Keep the edits in a change set (--edits review)'
complete -c ringfence -n $r -l quiet -d 'No information lines and no hints on denials'
complete -c ringfence -n $r -l shell -x -a 'on off' -d 'off: only COMMAND and its interpreters run'
complete -c ringfence -n $r -l web-search -x -a 'on off' -d 'Recorded for the host'
complete -c ringfence -n $r -l fs-jail -x -a 'on off' -d 'off: the soft jail'
complete -c ringfence -n $r -l bind -r -F -d 'Bind SRC[:DST] read-write'
complete -c ringfence -n $r -l ro-bind -r -F -d 'Bind SRC[:DST] read-only'
complete -c ringfence -n $r -l unmask -x -d 'Leave project names matching GLOB readable'
complete -c ringfence -n $r -l mask -x -d 'Hide PATH or GLOB in the project'
complete -c ringfence -n $r -l mask-scan-limit -x -d 'Refuse a project with more entries to scan'
complete -c ringfence -n $r -l env -x -a '(set -xn)' -d 'Pass K from the host, or set K=V'
complete -c ringfence -n $r -l timeout -x -d 'Kill the sandbox after DURATION'
complete -c ringfence -n $r -l limit -x -a 'memory= pids= cpu= nofile= core= fsize= tmpfs=' -d 'Resource limits'
complete -c ringfence -n $r -l limit-best-effort -d 'Run although a limit cannot be enforced'
complete -c ringfence -n $r -l keep-home -d 'Keep the throwaway HOME'
complete -c ringfence -n $r -l agent-state -x -a 'default project throwaway host (__fish_complete_directories)' -d 'Where the agent state is kept'
complete -c ringfence -n $r -l cache -x -a '(__fish_complete_directories)' -d 'Keep package caches in DIR across runs'
complete -c ringfence -n $r -l allow-broad-project -d 'Allow the home or a system directory as the project'
complete -c ringfence -n $r -l profile -r -F -d 'The profile file (TOML)'
complete -c ringfence -n $r -l no-profile -d 'Ignore the per-user profile file'
complete -c ringfence -n $r -l dry-run -d 'Print the resolved sandbox and exit'
complete -c ringfence -n $r -l verbose -d 'With --dry-run: list everything'
complete -c ringfence -n $r -l seccomp -r -F -a 'default strict' -d 'Seccomp profile or policy file'
complete -c ringfence -n $r -l require -x -a 'kernel landlock soft' -d 'Refuse to run below this level'
complete -c ringfence -n $r -l level -x -a 'kernel landlock soft' -d 'Run at this level or lower'
complete -c ringfence -n $r -l allow-unsandboxed -d 'Run even when no protection is possible'
complete -c ringfence -n $r -l new-session -d 'Start COMMAND in a new session'
complete -c ringfence -n $r -l allow-net -x -d 'Network on: allow connections to RULE'
complete -c ringfence -n $r -l deny-net -x -d 'Network on: deny connections to RULE'
complete -c ringfence -n $r -l allow-host -x -d 'Egress allowlist: HOST[:PORT]'
complete -c ringfence -n $r -l allow-hosts -x -a 'npm pypi github crates go debian' -d 'Egress allowlist: named sets'
complete -c ringfence -n $r -l allow-listen -d 'Allow bind and listen on any address'
complete -c ringfence -n $r -l toolchains -x -a 'auto off' -d 'Bind the toolchains read-only, or none'
complete -c ringfence -n $r -l allow-unfiltered-network -d 'Network on without the connect policy'
complete -c ringfence -n "$r; and not string match -q -- '-*' (commandline -ct)" -a '(__fish_complete_command)'
complete -c ringfence -n '__ringfence_in_command run' -x -a '(__ringfence_complete_command run 3)'

# ringfence policy ...
set -l pol '__fish_seen_subcommand_from policy'
set -l polops list check show compile
complete -c ringfence -n "$pol; and not __fish_seen_subcommand_from $polops" -a list -d 'List the built-in profiles'
complete -c ringfence -n "$pol; and not __fish_seen_subcommand_from $polops" -a check -d 'Parse and compile a profile or policy file'
complete -c ringfence -n "$pol; and not __fish_seen_subcommand_from $polops" -a show -d 'Print the resolved rule of every syscall'
complete -c ringfence -n "$pol; and not __fish_seen_subcommand_from $polops" -a compile -d 'Write the raw BPF program of a profile'
complete -c ringfence -n "$pol; and __fish_seen_subcommand_from check show compile" -F -a '(command -q ringfence; and ringfence policy list 2>/dev/null; or echo default\nstrict)'
complete -c ringfence -n "$pol; and __fish_seen_subcommand_from show" -l pfc -d "Print libseccomp's pseudo filter code"
complete -c ringfence -n "$pol; and __fish_seen_subcommand_from compile" -s o -l output -r -F -d "Output file ('-' for stdout)"

# ringfence preset ...
set -l pre '__fish_seen_subcommand_from preset'
complete -c ringfence -n "$pre; and not __fish_seen_subcommand_from list show" -a list -d 'List the presets'
complete -c ringfence -n "$pre; and not __fish_seen_subcommand_from list show" -a show -d 'Show what a preset sets'
complete -c ringfence -n "$pre; and __fish_seen_subcommand_from show" -a 'trusted balanced hardened read-only'

# ringfence doctor, verify
complete -c ringfence -n '__fish_seen_subcommand_from doctor' -l json -d 'The same report as JSON'
complete -c ringfence -n '__fish_seen_subcommand_from doctor' -l no-cache -d 'Probe again; do not use the per-boot cache'
complete -c ringfence -n '__fish_seen_subcommand_from verify' -l preset -x -a 'trusted balanced hardened read-only' -d 'The preset to attack'
complete -c ringfence -n '__fish_seen_subcommand_from verify' -l level -x -a 'kernel landlock soft' -d 'Attack at this level or lower'
complete -c ringfence -n '__fish_seen_subcommand_from verify' -l json -d 'The same report as one JSON document'
complete -c ringfence -n '__fish_seen_subcommand_from verify' -l attack-program -r -F -d 'The rf-attack program'

# ringfence agent-state ...
set -l st '__fish_seen_subcommand_from agent-state'
complete -c ringfence -n "$st; and not __fish_seen_subcommand_from list show reset" -a list -d 'The agents with a state directory'
complete -c ringfence -n "$st; and not __fish_seen_subcommand_from list show reset" -a show -d "An agent's state: path, entries, size"
complete -c ringfence -n "$st; and not __fish_seen_subcommand_from list show reset" -a reset -d "Remove an agent's state"
complete -c ringfence -n "$st; and __fish_seen_subcommand_from show reset" -a 'claude codex gemini cursor cline'
complete -c ringfence -n "$st; and __fish_seen_subcommand_from reset" -l yes -d 'Do not ask'

# ringfence violations, why
set -l vw '__fish_seen_subcommand_from violations why'
complete -c ringfence -n $vw -l last -d "The last run's lines (the default)"
complete -c ringfence -n $vw -l since -x -d 'From then on: a duration back (10m, 2h, 1d) or a UTC time'
complete -c ringfence -n $vw -l all -d 'Every line of the log'
complete -c ringfence -n $vw -l log -r -F -d "Another log file than the user's"
complete -c ringfence -n '__fish_seen_subcommand_from violations' -l json -d 'The lines as they are (JSON lines)'
complete -c ringfence -n '__fish_seen_subcommand_from violations' -l format -x -a 'text github' -d 'Text, or GitHub Actions annotations'

# ringfence changes, apply, discard
complete -c ringfence -n '__fish_seen_subcommand_from changes' -l json -d 'The change set as JSON'
complete -c ringfence -n '__fish_seen_subcommand_from changes' -l diff -d 'A unified diff git can apply'
complete -c ringfence -n '__fish_seen_subcommand_from changes' -l stat -d 'Changed lines per file'
complete -c ringfence -n '__fish_seen_subcommand_from changes' -l list -d 'List the change sets'
complete -c ringfence -n '__fish_seen_subcommand_from changes' -l project -x -a '(__fish_complete_directories)' -d 'The project'
complete -c ringfence -n '__fish_seen_subcommand_from apply' -l project -x -a '(__fish_complete_directories)' -d 'The project whose latest change set is applied'
complete -c ringfence -n '__fish_seen_subcommand_from apply' -l include-risky -d 'Apply the risky changes too'
complete -c ringfence -n '__fish_seen_subcommand_from apply' -l git-branch -x -d 'Commit on a new branch instead'
complete -c ringfence -n '__fish_seen_subcommand_from apply' -F
complete -c ringfence -n '__fish_seen_subcommand_from discard' -l keep -x -d 'Keep the N newest'
complete -c ringfence -n '__fish_seen_subcommand_from discard' -l older-than -x -d 'Drop those older than DAYS'
complete -c ringfence -n '__fish_seen_subcommand_from discard' -l project -x -a '(__fish_complete_directories)' -d 'The project whose latest change set is removed'

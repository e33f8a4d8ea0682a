// SPDX-License-Identifier: LGPL-2.1-or-later
// Spec: the plain-data description of one sandbox. Front ends (bwrap argv, native CLI) produce
// it; only the engine reads it. No behaviour lives here beyond small queries.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace rf::spec {

// A descriptor the caller gave for the sandbox (`--sync-fd 5`), by number: plain data that names
// an fd of the launcher and owns nothing. The descriptors themselves belong to an OwnedFds
// (owned_fds.hpp) that the front end fills and hands to the engine with the Spec. num < 0: none.
struct Fd {
  int num = -1;
  [[nodiscard]] bool valid() const { return num >= 0; }
  friend bool operator==(Fd, Fd) = default;
};

// Filesystem operations, applied inside the new root in the order given (bwrap semantics).
enum class OpKind {
  Bind,        // recursive bind, nosuid,nodev
  RoBind,      // recursive bind, ro,nosuid,nodev on every submount
  DevBind,     // recursive bind, nosuid only
  RemountRo,   // add ro,nosuid,nodev to the mount at dest (not recursive)
  Tmpfs,       // tmpfs (mode perms or 0755, optional size)
  Proc,        // new procfs (or host /proc bind without a PID namespace)
  Dev,         // minimal /dev
  Mqueue,      // mqueue file system
  Dir,         // directory (and parents)
  Symlink,     // symlink dest -> source (source literal)
  Chmod,       // chmod an existing path
  File,        // regular file with the content of fd (mode perms or 0666)
  BindData,    // file with the content of fd (mode perms or 0600) bound read-write at dest
  RoBindData,  // same, bound read-only
  Overlay,     // overlayfs: lower `layers`, upper dir `source`, work dir `work` (host paths)
  TmpOverlay,  // overlayfs: lower `layers`, upper/work on the hidden scratch tmpfs
  RoOverlay,   // overlayfs, read-only: lower `layers` only (at least two)
};

struct FsOp {
  OpKind kind = OpKind::Dir;
  std::string source;                 // host path for binds, link target for Symlink
  std::string dest;                   // path inside the sandbox (absolute or relative to its root)
  bool allow_missing = false;         // the -try variants: a missing source skips the op
  std::optional<mode_t> perms;        // --perms / --chmod mode
  std::optional<std::uint64_t> size;  // --size for Tmpfs
  // Native mode: nr_inodes= for Tmpfs and Dev (inodes cost kernel memory that size= does not
  // count); unset, the kernel's default, as bwrap does.
  std::optional<std::uint64_t> inodes;
  // File/BindData/RoBindData: content source; Bind/RoBind: the source object itself
  // (--bind-fd), which replaces the source path. The engine closes it through the OwnedFds: a
  // content fd once read, a --bind-fd source after clone (and the child's copy once bound).
  Fd fd;
  // Native mode's masks: a RoBindData with no content and no fd. Every such op binds one shared
  // empty file (0444), so thousands of masks cost no descriptor each and one inode.
  bool empty = false;
  // Native mode's covers of host paths (Tmpfs, RoBindData, RemountRo over a secret in /etc or
  // the home): the host may remove the entry between the plan and the mount, and then nothing is
  // left to hide, so a missing destination skips the op instead of failing the run.
  bool dest_optional = false;
  // Paths in a tree the sandbox can write (the project), where a link may have been planted:
  // the part of `source` below `source_beneath` (a host directory) and of `dest` below
  // `dest_beneath` (a directory in the sandbox) is resolved without following any symbolic
  // link, and nothing is created there. A bind binds the very object found, checked by device
  // and inode against what the launcher found; a link, a missing destination or a destination
  // of the other kind (file, directory) is refused.
  std::string source_beneath;
  std::string dest_beneath;
  // With dest_beneath: the device and inode the front end found at dest (a cover of what a scan
  // found); a different object there (moved or swapped since) fails the setup.
  std::optional<std::pair<dev_t, ino_t>> dest_identity;
  // dest_identity's device is not compared: the destination is on an overlay whose lower layer
  // holds the object the front end found, which the overlay shows with that inode number on a
  // device of its own (a review run's project).
  bool identity_ino_only = false;
  // Bind/RoBind: `source` is a path in the sandbox, bound with everything the earlier ops
  // mounted below it (a second place showing the same view, e.g. /workspace).
  bool source_in_sandbox = false;
  // Overlay kinds: host paths of the lower layers, bottom to top (command-line order; the
  // kernel's lowerdir= lists them the other way round), and the work dir of Overlay.
  std::vector<std::string> layers;
  std::string work;
};

struct Namespaces {
  bool user = false;
  bool user_try = false;  // unshare the user namespace only where the host allows it
  bool ipc = false;
  bool pid = false;
  bool net = false;
  bool uts = false;
  bool cgroup = false;
  bool cgroup_try = false;
};

// An environment operation, applied in order to the launcher's environment.
struct EnvOp {
  enum class Kind { Set, Unset, Clear } kind = Kind::Set;
  std::string name;
  std::string value;
};

struct CapOp {
  bool add = true;
  int cap = -1;  // CAP_* number; -1 means ALL
};

// A resource limit set in the sandbox before exec (setrlimit; soft = hard = value).
struct RLimit {
  int resource = 0;  // RLIMIT_*
  std::uint64_t value = 0;
};

// The network connect policy (network on): the launcher's seccomp user-notification supervisor
// decides every connect, sendto/sendmsg/sendmmsg with a destination, for every program of the
// sandbox. Rules use the net layer's target syntax ("10.0.0.0/8", "10.1.2.3:443",
// "unix-abstract:@NAME"); the engine parses them at launch. The metadata floor always applies.
enum class ListenPolicy : std::uint8_t { Unrestricted, LoopbackOnly, None };

struct ConnectPolicy {
  bool enabled = false;
  std::vector<std::string> allow, deny;
  // DNS resolvers of the host (resolv.conf): port 53 of exactly these stays reachable even inside
  // the metadata floor (GCE's and AWS's resolvers are link-local addresses).
  std::vector<std::string> resolvers;
  std::string violation_log;  // a JSON line is appended for every denial; empty: no log file
  // Without a mount namespace (soft and landlock levels) a unix socket path is the host's: only
  // sockets under these directories may be reached (restrict_unix_paths), the others get EACCES
  // (tmux, the session bus, ssh-agent, docker.sock would be ways out).
  bool restrict_unix_paths = false;
  std::vector<std::string> unix_path_allow;
  // Servers (bind, listen, accept): Unrestricted leaves them to the kernel; LoopbackOnly (the
  // host's network shared) refuses binding and listening on any address but loopback and
  // binding abstract unix names; None (network off without a network namespace) also refuses
  // every inet listen and accept, loopback included. Refusals are EACCES and logged.
  ListenPolicy listen = ListenPolicy::Unrestricted;
  // The egress allowlist by host name (net::parse_host_rule: "api.anthropic.com",
  // "*.npmjs.org:443"). Non-empty: the network is allowlisted. Kernel jail with a network
  // namespace of the sandbox's own (ns.net) only. The sandbox's resolver, kSandboxResolver port
  // 53 (UDP and TCP) on its lo, is served by the launcher: names the rules allow are forwarded
  // to `resolvers` (the host's nameservers), every other name is answered by the launcher
  // itself (NXDOMAIN, REFUSED), and each forwarded answer pins its addresses to the name. A
  // connect to an address off the sandbox's lo is allowed by an `allow` rule, or when the
  // address is pinned to a name a rule allows at that port; the launcher then makes the
  // connection from its own network namespace and installs it in the sandbox under the
  // socket's fd number. On ports 443 and 80 the connection goes through the launcher's relay,
  // which checks the TLS server name / HTTP Host against the pins before a byte goes out.
  std::vector<std::string> allow_hosts;
  // The allowlist where the sandbox shares the launcher's network namespace (the landlock and
  // soft levels, no ns.net): the launcher's resolver listens on its own loopback, and DNS to
  // port 53 at any address goes there (connect and addressed sends, rewritten by the
  // supervisor); the host's loopback is refused like any other address no rule names.
  bool shared_network = false;
  // At the first denial of each kind in the run, one line on stderr saying what was refused and
  // which flag would allow it (net/explain.hpp), at most 8 in a run.
  bool hints = false;
};

// The sandbox's resolver under the egress allowlist (its /etc/resolv.conf names it).
inline constexpr const char* kSandboxResolver = "127.0.0.53";

// Limits enforced through a cgroup made for the sandbox (native mode): cgroup v2 where this
// process's group is delegated, else the v1 controller where its directory is writable (root on a
// v1 host). The engine moves the command in before exec and removes the group afterwards.
struct CgroupLimits {
  std::optional<std::uint64_t> memory_bytes;  // memory.max (v1: memory.limit_in_bytes), swap too
  std::optional<std::uint64_t> pids;          // pids.max: tasks of the sandbox, not of the user
  std::optional<std::uint64_t> cpu_milli;     // CPUs x 1000: cpu.max (v1: cfs quota/period)
  [[nodiscard]] bool any() const { return memory_bytes || pids || cpu_milli; }
};

// Names a mask covers in host_dir, kept covered against renames and new names (kernel jail): the
// launcher walks and watches host_dir (inotify, bounded) and covers every match inside the
// sandbox at every sandbox_dirs entry (the places host_dir is mounted), those its walk finds
// before the command starts and those that appear later. Patterns use the mask syntax
// (base::pattern_applies).
struct LateMasks {
  std::vector<std::string> patterns;
  std::string host_dir;
  std::vector<std::string> sandbox_dirs;
  // Names no pattern covers although one matches: those an `except` pattern applies to
  // (--unmask), and the exact objects (by device and inode, beneath host_dir) found not to hold
  // a secret at the start (a `.npmrc` without a token); a new object at such a name is covered.
  std::vector<std::string> except;
  struct Exempt {
    std::string rel;
    dev_t dev = 0;
    ino_t ino = 0;
  };
  std::vector<Exempt> exempt;
};

// How the launcher watches the sandbox in native mode. bwrap mode leaves all of it off (bwrap
// forwards no signal and knows no timeout).
struct Supervision {
  // SIGINT/SIGTERM/SIGHUP/SIGQUIT sent to the launcher by a process are passed to the command
  // (a terminal's signals already reach the whole foreground group and are not sent twice).
  bool forward_signals = false;
  // Kill the whole sandbox after this long: SIGTERM to the command, then SIGKILL to all after
  // kill_grace_ms.
  std::optional<std::uint64_t> timeout_ms;
  std::uint64_t kill_grace_ms = 2000;
  // End the sandbox when the launcher's parent *process* exits (a death signal would fire when
  // the parent's thread exits).
  bool watch_parent_process = false;
  std::vector<RLimit> rlimits;
  CgroupLimits cgroup;
  // kernel.pid_max of the sandbox's new PID namespace (Linux 6.14 made it per namespace), set by
  // its pid 1 before it starts anything: no pid number at or above it is given out in the
  // namespace or any namespace below it, so at most pidns_pid_max - 1 tasks live there at once.
  // A bound without a cgroup, whose moves wait for an RCU grace period. Kernel jail with its own
  // user and PID namespaces only (not --pidns); 301 to 4194304.
  std::optional<std::uint64_t> pidns_pid_max;
  LateMasks late_masks;
  ConnectPolicy connect;
};

// One classic-BPF seccomp program (an array of struct sock_filter, 8 bytes each).
struct BpfBytes {
  std::string bytes;
};

// Which jail confines the command. Kernel: namespaces, the filesystem ops, capabilities, id maps
// (bwrap mode is always this). Landlock and Soft (native mode, where namespaces are not available
// or not wanted): no namespace and no filesystem op; the environment, chdir, the supervision
// (rlimits, cgroup limits, connect policy, timeout), no_new_privs, seccomp and the exec allowlist
// apply, and the launcher (a subreaper) kills whatever the command leaves behind. Landlock adds
// `landlock_rules`, a ruleset over the host's tree. validate_jail() refuses the fields a jail
// would ignore.
enum class Jail : std::uint8_t { Kernel, Landlock, Soft };

struct Spec {
  std::vector<std::string> argv;  // command and its arguments (argv[0] = file to exec)
  std::vector<FsOp> fs_ops;       // in command-line order
  Namespaces ns;
  std::optional<uid_t> uid;  // id inside the sandbox (default: the caller's)
  std::optional<gid_t> gid;
  std::optional<std::string> hostname;  // needs ns.uts
  std::vector<EnvOp> env_ops;           // applied to the launcher's environment before clone
  std::optional<std::string> chdir;     // --chdir; else the bwrap fallback rules apply
  std::vector<CapOp> cap_ops;           // in command-line order
  std::vector<BpfBytes> seccomp;        // installed last, in this order
  // --seccomp: one program still in its fd, read (and closed) by the engine after validation and
  // after the bind sources are resolved, where bwrap reads it; installed after `seccomp`.
  std::optional<Fd> seccomp_fd;
  bool inherit_fds = true;              // pass inherited fds (bwrap); false: close all but pass_fds
  std::vector<Fd> pass_fds;             // fds kept when inherit_fds is false (besides 0,1,2)
  std::optional<std::string> argv0;     // --argv0: argv[0] the command sees
  std::vector<std::string> lock_files;  // --lock-file: paths inside the sandbox, read-locked by pid 1
  // bwrap's descriptors. The engine closes each through the OwnedFds where bwrap closes it (see
  // engine/launch.hpp); the namespace fds and the JSON status fd stay open.
  std::optional<Fd> sync_fd;            // --sync-fd: held open by pid 1 for the sandbox's life
  std::optional<Fd> block_fd;           // --block-fd: wait for a byte (or EOF) before exec
  std::optional<Fd> userns_block_fd;    // --userns-block-fd: wait before the child continues
  std::optional<Fd> userns_fd;          // --userns: join this user namespace instead of a new one
  std::optional<Fd> userns2_fd;         // --userns2: switch to this user namespace after setup
  std::optional<Fd> pidns_fd;           // --pidns: run in (or, with ns.pid, under) this pid namespace
  std::optional<Fd> info_fd;            // --info-fd: one JSON object after clone
  std::optional<Fd> json_status_fd;     // --json-status-fd: JSON lines (start, exit-code)
  bool disable_userns = false;          // --disable-userns
  bool assert_userns_disabled = false;  // --assert-userns-disabled
  bool new_session = false;
  // Native mode, with new_session: when the launcher's stdin is a terminal, the sandbox gets a
  // pseudo terminal of its own as its controlling terminal (job control, Ctrl-C), relayed by the
  // launcher; the host's terminal is never the sandbox's (TIOCSTI).
  bool own_terminal = false;
  bool die_with_parent = false;
  bool as_pid_1 = false;
  // Set by the native front end only (bwrap's leaves them at their defaults).
  Jail jail = Jail::Kernel;
  Supervision supervision;
  // "Shell off", in every jail: only these files (paths inside the sandbox: the command and its
  // interpreters) may be executed, enforced with Landlock's execute right.
  bool restrict_exec = false;
  std::vector<std::string> exec_allow;
  // Kernel jail, shell off: files that begin with one of these byte strings (the first bytes of
  // the command's ELF loaders, 1 to 128 bytes each) cannot be executed as programs: a
  // binfmt_misc handler of the sandbox's own user namespace fails their exec with EACCES, while
  // the kernel still maps them as the interpreter of the command (Linux 6.7: binfmt_misc in a
  // user namespace). The handler replaces the host's binfmt_misc entries in the sandbox.
  std::vector<std::string> refuse_exec_headers;
  // The kernel jail's /proc: /proc/sys, sysrq-trigger, irq and bus read-only whatever access(2)
  // says, and entries about the host's keys, timers and kernel memory hidden (bwrap mode keeps
  // bwrap's rule: cover only what the caller could write).
  bool proc_masks = false;
  // The kernel jail: size= (bytes) of the tmpfs that becomes "/" (it holds mount points only); unset,
  // the kernel's default (half the memory), as bwrap does.
  std::optional<std::uint64_t> root_size;
  std::optional<std::uint64_t> root_inodes;  // and its nr_inodes=
  // The landlock jail's rules: a Landlock filesystem ruleset applied to the command
  // before exec, after no_new_privs. Each rule gives rights on a host path and everything
  // beneath it; every path not covered is refused. The engine maps the rights onto the kernel's
  // Landlock ABI (refer, truncate and device ioctls where it has them) and, at ABI 6 and
  // later, also scopes abstract unix sockets and signals to the sandbox.
  struct FsRule {
    enum Right : unsigned {
      Read = 1,     // read files, list directories
      Write = 2,    // write, truncate, create, remove, rename (no device nodes)
      Execute = 4,  // execute files
      Ioctl = 8,    // ioctl on device nodes (the terminal)
    };
    std::string path;  // host path; a symlink is followed
    unsigned rights = 0;
    bool allow_missing = true;  // a missing path is skipped; else the run fails
  };
  std::vector<FsRule> landlock_rules;
  // Blank pid 1's copy of the launcher's argv (it shows in the sandbox's /proc/1/cmdline and
  // could hold what the command is not meant to see). bwrap leaves it, so bwrap mode does.
  bool hide_launcher_argv = false;
  // How errors are worded, and nothing else: bwrap mode prints "bwrap: <message>" exactly as
  // bwrap does; native mode prefixes a failure in the child with its setup step.
  bool bwrap_messages = true;
};

}  // namespace rf::spec

// SPDX-License-Identifier: LGPL-2.1-or-later
// bwrap's option table: one row per option (name, value names, help, handler) and the handlers
// that turn each option into Spec fields with bwrap's own checks and message texts.
#include <sys/capability.h>

#include <strings.h>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdlib>

#include "bwrap_parser.hpp"
#include "ringfence/base/sys.hpp"

namespace rf::cli::detail {
namespace {

using base::Status;
using spec::FsOp;
using spec::OpKind;

// bwrap's tmpfs size cap: half the address space (larger sizes upset the kernel).
constexpr std::uint64_t kMaxTmpfsBytes = SIZE_MAX >> 1;

// A parse error with bwrap's text (no errno: the message is complete as it is).
base::Unexpected<base::Error> fail(std::string message) {
  return base::unexpected(base::Error(0, std::move(message)));
}

void warn_only_last(ParseState& st, const OptionDef& opt) {
  st.out.warnings.push_back("Only the last " + std::string(opt.name) + " option will take effect");
}

Status parse_fd_value(const std::string& s, int& fd) {
  if (!base::parse_fd(s, fd)) return fail("Invalid fd: " + s);
  return {};
}

// bwrap reads modes with strtoul(…, 8) and accepts whatever it fully consumes (so " 7", "+7"
// and even "-0" pass); any wider rule would reject command lines bwrap runs.
bool parse_mode(const std::string& s, mode_t& mode) {
  if (s.empty()) return false;
  char* end = nullptr;
  unsigned long v = std::strtoul(s.c_str(), &end, 8);
  if (end == nullptr || *end != '\0' || v > 07777) return false;
  mode = static_cast<mode_t>(v);
  return true;
}

// bwrap parses ids with strtol: leading blanks and '+' pass; negative values and junk do not.
// Values above INT_MAX are refused here, where bwrap silently truncates them to an int.
bool parse_id(const std::string& s, unsigned& id) {
  if (s.empty()) return false;
  errno = 0;
  char* end = nullptr;
  long v = std::strtol(s.c_str(), &end, 10);
  if (errno != 0 || *end != '\0' || v < 0 || v > INT_MAX) return false;
  id = static_cast<unsigned>(v);
  return true;
}

FsOp& add_op(ParseState& st, OpKind kind, std::string dest, std::string source = {}) {
  FsOp op;
  op.kind = kind;
  op.dest = std::move(dest);
  op.source = std::move(source);
  return st.out.spec.fs_ops.emplace_back(std::move(op));
}

Status on_help(ParseState& st, const OptionDef&, Values) {
  st.stop = BwrapParse::Action::Help;
  return {};
}

Status on_version(ParseState& st, const OptionDef&, Values) {
  st.stop = BwrapParse::Action::Version;
  return {};
}

Status on_level_prefix(ParseState& st, const OptionDef&, Values) {
  st.out.level_prefix = true;
  return {};
}

template <bool spec::Namespaces::*Field>
Status set_ns(ParseState& st, const OptionDef&, Values) {
  st.out.spec.ns.*Field = true;
  return {};
}

template <bool spec::Spec::*Field>
Status set_flag(ParseState& st, const OptionDef&, Values) {
  st.out.spec.*Field = true;
  return {};
}

Status on_unshare_all(ParseState& st, const OptionDef&, Values) {
  // The -try variants for user and cgroup: hosts without them still run the sandbox.
  auto& ns = st.out.spec.ns;
  ns.user_try = ns.ipc = ns.pid = ns.net = ns.uts = ns.cgroup_try = true;
  return {};
}

Status on_share_net(ParseState& st, const OptionDef&, Values) {
  st.out.spec.ns.net = false;  // only undoes what came before it: order matters
  return {};
}

Status on_id(ParseState& st, const OptionDef& opt, Values v) {
  const bool is_uid = opt.name == "--uid";
  auto& slot_uid = st.out.spec.uid;
  auto& slot_gid = st.out.spec.gid;
  if (is_uid ? slot_uid.has_value() : slot_gid.has_value()) warn_only_last(st, opt);
  unsigned id = 0;
  if (!parse_id(v[0], id)) return fail(std::string(is_uid ? "Invalid uid: " : "Invalid gid: ") + v[0]);
  if (is_uid)
    slot_uid = static_cast<uid_t>(id);
  else
    slot_gid = static_cast<gid_t>(id);
  return {};
}

Status on_hostname(ParseState& st, const OptionDef& opt, Values v) {
  if (st.out.spec.hostname) warn_only_last(st, opt);
  st.out.spec.hostname = v[0];
  return {};
}

Status on_chdir(ParseState& st, const OptionDef& opt, Values v) {
  if (st.out.spec.chdir) warn_only_last(st, opt);
  st.out.spec.chdir = v[0];
  return {};
}

// bwrap applies env options to itself at parse time, so setenv(3)'s refusals (empty name or a
// name with '=') are parse errors there; they are kept as such here.
bool valid_env_name(const std::string& name) { return !name.empty() && name.find('=') == std::string::npos; }

Status on_clearenv(ParseState& st, const OptionDef&, Values) {
  st.out.spec.env_ops.push_back({spec::EnvOp::Kind::Clear, {}, {}});
  return {};
}

Status on_setenv(ParseState& st, const OptionDef&, Values v) {
  if (!valid_env_name(v[0])) return fail("setenv failed");
  st.out.spec.env_ops.push_back({spec::EnvOp::Kind::Set, v[0], v[1]});
  return {};
}

Status on_unsetenv(ParseState& st, const OptionDef&, Values v) {
  if (!valid_env_name(v[0])) return fail("unsetenv failed");
  st.out.spec.env_ops.push_back({spec::EnvOp::Kind::Unset, v[0], {}});
  return {};
}

// --bind, --ro-bind, --dev-bind and their -try forms share one handler keyed on the name.
Status on_bind(ParseState& st, const OptionDef& opt, Values v) {
  std::string_view n = opt.name;
  OpKind kind = n.starts_with("--ro-")    ? OpKind::RoBind
                : n.starts_with("--dev-") ? OpKind::DevBind
                                          : OpKind::Bind;
  add_op(st, kind, v[1], v[0]).allow_missing = n.ends_with("-try");
  return {};
}

// Options whose only value is a destination and that take no modifier.
Status on_dest_op(ParseState& st, const OptionDef& opt, Values v) {
  std::string_view n = opt.name;
  OpKind kind = n == "--remount-ro" ? OpKind::RemountRo
                : n == "--proc"     ? OpKind::Proc
                : n == "--dev"      ? OpKind::Dev
                                    : OpKind::Mqueue;
  add_op(st, kind, v[0]);
  return {};
}

Status on_tmpfs(ParseState& st, const OptionDef&, Values v) {
  FsOp& op = add_op(st, OpKind::Tmpfs, v[0]);
  op.perms = std::exchange(st.next_perms, std::nullopt);
  op.size = std::exchange(st.next_size, std::nullopt);
  return {};
}

Status on_dir(ParseState& st, const OptionDef&, Values v) {
  add_op(st, OpKind::Dir, v[0]).perms = std::exchange(st.next_perms, std::nullopt);
  return {};
}

// --file, --bind-data, --ro-bind-data: the parser only checks the fd number; the engine reads
// the content and closes the fd during setup, at this op's place in the list (as bwrap does).
Status on_data_op(ParseState& st, const OptionDef& opt, Values v) {
  std::string_view n = opt.name;
  OpKind kind = n == "--file" ? OpKind::File : n == "--bind-data" ? OpKind::BindData : OpKind::RoBindData;
  int fd = -1;
  RF_TRY(parse_fd_value(v[0], fd));
  FsOp& op = add_op(st, kind, v[1]);
  op.fd = spec::Fd{fd};
  op.perms = std::exchange(st.next_perms, std::nullopt);  // unset: the engine's per-kind default
  return {};
}

// --bind-fd/--ro-bind-fd: the source is the object the fd refers to (TOCTOU-free binding of a
// directory the caller opened); the engine binds it through the fd and consumes the fd.
Status on_bind_fd(ParseState& st, const OptionDef& opt, Values v) {
  int fd = -1;
  RF_TRY(parse_fd_value(v[0], fd));
  FsOp& op = add_op(st, std::string_view(opt.name) == "--ro-bind-fd" ? OpKind::RoBind : OpKind::Bind, v[1],
                    "/proc/self/fd/" + std::to_string(fd));
  op.fd = spec::Fd{fd};
  return {};
}

// --overlay-src queues a lower layer; the overlay op that follows takes all queued layers.
Status on_overlay_src(ParseState& st, const OptionDef&, Values v) {
  st.next_layers.push_back(v[0]);
  return {};
}

// --overlay RWSRC WORKDIR DEST, --tmp-overlay DEST, --ro-overlay DEST: bwrap counts the queued
// layers here, after the arity check (the parser loop did that) and before anything else.
Status on_overlay(ParseState& st, const OptionDef& opt, Values v) {
  std::string_view n = opt.name;
  OpKind kind = n == "--overlay"       ? OpKind::Overlay
                : n == "--tmp-overlay" ? OpKind::TmpOverlay
                                       : OpKind::RoOverlay;
  const std::size_t needed = kind == OpKind::RoOverlay ? 2 : 1;
  if (st.next_layers.size() < needed)
    return fail(std::string(n) + (needed == 2 ? " requires at least two --overlay-src"
                                              : " requires at least one --overlay-src"));
  FsOp& op = kind == OpKind::Overlay ? add_op(st, kind, v[2], v[0]) : add_op(st, kind, v[0]);
  if (kind == OpKind::Overlay) op.work = v[1];
  op.layers = std::exchange(st.next_layers, {});
  return {};
}

Status on_symlink(ParseState& st, const OptionDef&, Values v) {
  add_op(st, OpKind::Symlink, v[1], v[0]);
  return {};
}

Status on_chmod(ParseState& st, const OptionDef&, Values v) {
  mode_t mode = 0;
  if (!parse_mode(v[0], mode)) return fail("--chmod takes an octal argument <= 07777");
  add_op(st, OpKind::Chmod, v[1]).perms = mode;
  return {};
}

Status on_perms(ParseState& st, const OptionDef&, Values v) {
  if (st.next_perms) return fail("--perms given twice for the same action");
  mode_t mode = 0;
  if (!parse_mode(v[0], mode)) return fail("--perms takes an octal argument <= 07777");
  st.next_perms = mode;
  return {};
}

// strtoull with base 0 (so hex and leading-0 octal work), but the first character must be a
// digit: that refuses signs and blanks, which strtoull would otherwise accept.
Status on_size(ParseState& st, const OptionDef&, Values v) {
  if (st.next_size) return fail("--size given twice for the same action");
  const std::string& s = v[0];
  errno = 0;
  char* end = nullptr;
  unsigned long long size = std::strtoull(s.c_str(), &end, 0);
  if (errno != 0 || s.empty() || s[0] < '0' || s[0] > '9' || *end != '\0' || size == 0)
    return fail("--size takes a non-zero number of bytes");
  if (size > kMaxTmpfsBytes)
    return fail("--size (for tmpfs) is limited to " + std::to_string(kMaxTmpfsBytes));
  st.next_size = size;
  return {};
}

Status on_seccomp(ParseState& st, const OptionDef& opt, Values v) {
  if (st.have_added_seccomp) return fail("--seccomp cannot be combined with --add-seccomp-fd");
  if (st.seccomp_fd) warn_only_last(st, opt);
  int fd = -1;
  RF_TRY(parse_fd_value(v[0], fd));
  // Read once the whole command line is accepted, as bwrap does: only the last one counts.
  st.seccomp_fd = fd;
  return {};
}

Status on_add_seccomp_fd(ParseState& st, const OptionDef&, Values v) {
  if (st.seccomp_fd) return fail("--add-seccomp-fd cannot be combined with --seccomp");
  int fd = -1;
  RF_TRY(parse_fd_value(v[0], fd));
  st.have_added_seccomp = true;
  return add_seccomp_program(st, fd);
}

// libcap's cap_from_name decides what a name is (it wants the "cap_" prefix, ignores case and
// also takes numbers), exactly as bwrap relies on it.
Status on_cap(ParseState& st, const OptionDef& opt, Values v) {
  spec::CapOp op;
  op.add = opt.name == "--cap-add";
  if (strcasecmp(v[0].c_str(), "ALL") != 0) {
    cap_value_t cap = 0;
    if (cap_from_name(v[0].c_str(), &cap) < 0) return fail("unknown cap: " + v[0]);
    op.cap = static_cast<int>(cap);
  }
  st.out.spec.cap_ops.push_back(op);
  return {};
}

// --sync-fd, --block-fd, --userns-block-fd, --info-fd, --json-status-fd: one value each; like
// bwrap, a repeat warns before its value is checked, and the last one wins.
template <std::optional<spec::Fd> spec::Spec::*Field>
Status set_single_fd(ParseState& st, const OptionDef& opt, Values v) {
  auto& slot = st.out.spec.*Field;
  if (slot) warn_only_last(st, opt);
  int fd = -1;
  RF_TRY(parse_fd_value(v[0], fd));
  slot = spec::Fd{fd};
  return {};
}

// Repeatable: every lock file is held by the sandbox's pid 1.
Status on_lock_file(ParseState& st, const OptionDef&, Values v) {
  st.out.spec.lock_files.push_back(v[0]);
  return {};
}

// Unlike the other single-value options, a second --argv0 is fatal (bwrap 0.11.1), even when the
// first one was empty.
Status on_argv0(ParseState& st, const OptionDef&, Values v) {
  if (st.out.spec.argv0) return fail("--argv0 used multiple times");
  st.out.spec.argv0 = v[0];
  return {};
}

// SELinux labels need libselinux's context handling, which ringfence does not carry: it answers
// as a bwrap built without SELinux support does (Debian's 0.8.0 among them), at parse time.
Status on_label(ParseState&, const OptionDef&, Values) {
  return fail("labeling not supported on this system");
}

using spec::Namespaces;
using spec::Spec;

// Order and value names follow bwrap 0.11.1's usage text; descriptions are our own.
constexpr OptionDef kOptions[] = {
    {"--help", "", "Show this help text and exit", on_help},
    {"--version", "", "Show the version and exit", on_version},
    {"--args", "FD", "Read more options, NUL-separated, from FD", handle_args},
    {"--argv0", "VALUE", "Pass VALUE as argv[0] to COMMAND", on_argv0, false, "--argv0 takes one argument"},
    {"--level-prefix", "", "Start each diagnostic with its syslog level, e.g. <3>", on_level_prefix},
    {"--unshare-all", "", "Unshare every supported namespace (user, cgroup only where possible)",
     on_unshare_all},
    {"--share-net", "", "Keep the host network (meant to follow --unshare-all)", on_share_net},
    {"--unshare-user", "", "Use a new user namespace (implied when not run as root)",
     set_ns<&Namespaces::user>},
    {"--unshare-user-try", "", "Use a new user namespace where the host allows it",
     set_ns<&Namespaces::user_try>},
    {"--unshare-ipc", "", "Use a new IPC namespace", set_ns<&Namespaces::ipc>},
    {"--unshare-pid", "", "Use a new PID namespace", set_ns<&Namespaces::pid>},
    {"--unshare-net", "", "Use a new network namespace (loopback only)", set_ns<&Namespaces::net>},
    {"--unshare-uts", "", "Use a new UTS (host name) namespace", set_ns<&Namespaces::uts>},
    {"--unshare-cgroup", "", "Use a new cgroup namespace", set_ns<&Namespaces::cgroup>},
    {"--unshare-cgroup-try", "", "Use a new cgroup namespace where the kernel has them",
     set_ns<&Namespaces::cgroup_try>},
    {"--userns", "FD", "Enter the user namespace FD instead of creating one",
     set_single_fd<&spec::Spec::userns_fd>},
    {"--userns2", "FD", "Switch to the user namespace FD once setup is done",
     set_single_fd<&Spec::userns2_fd>},
    {"--disable-userns", "", "Stop the sandbox from creating more user namespaces",
     set_flag<&Spec::disable_userns>},
    {"--assert-userns-disabled", "", "Fail unless new user namespaces are already impossible",
     set_flag<&Spec::assert_userns_disabled>},
    {"--pidns", "FD", "Enter the PID namespace FD (parent of a new one with --unshare-pid)",
     set_single_fd<&Spec::pidns_fd>},
    {"--uid", "UID", "User id inside the sandbox (needs --unshare-user or --userns)", on_id},
    {"--gid", "GID", "Group id inside the sandbox (needs --unshare-user or --userns)", on_id},
    {"--hostname", "NAME", "Host name inside the sandbox (needs --unshare-uts)", on_hostname},
    {"--chdir", "DIR", "Working directory for COMMAND", on_chdir, false, "--chdir takes one argument"},
    {"--clearenv", "", "Start from an empty environment", on_clearenv},
    {"--setenv", "VAR VALUE", "Set VAR to VALUE in the environment", on_setenv},
    {"--unsetenv", "VAR", "Remove VAR from the environment", on_unsetenv},
    {"--lock-file", "DEST", "Hold a read lock on DEST while the sandbox runs", on_lock_file},
    {"--sync-fd", "FD", "Keep FD open for as long as the sandbox runs", set_single_fd<&Spec::sync_fd>},
    {"--bind", "SRC DEST", "Mount host path SRC at DEST, writable", on_bind},
    {"--bind-try", "SRC DEST", "Like --bind, skipped when SRC does not exist", on_bind},
    {"--dev-bind", "SRC DEST", "Like --bind, with device nodes usable", on_bind},
    {"--dev-bind-try", "SRC DEST", "Like --dev-bind, skipped when SRC does not exist", on_bind},
    {"--ro-bind", "SRC DEST", "Mount host path SRC at DEST, read-only", on_bind},
    {"--ro-bind-try", "SRC DEST", "Like --ro-bind, skipped when SRC does not exist", on_bind},
    {"--bind-fd", "FD DEST", "Mount the directory (or O_PATH) fd FD at DEST", on_bind_fd},
    // bwrap names --bind-fd in this message for both variants.
    {"--ro-bind-fd", "FD DEST", "Like --bind-fd, read-only", on_bind_fd, false,
     "--bind-fd takes two arguments"},
    {"--remount-ro", "DEST", "Make the mount at DEST read-only (not its submounts)", on_dest_op, false,
     "--remount-ro takes one argument"},
    // bwrap has no arity check here: a missing SRC ends in its "must be followed" error.
    {"--overlay-src", "SRC", "Add SRC as a lower layer of the next overlay", on_overlay_src, false,
     kOverlaySrcUnconsumed},
    {"--overlay", "RWSRC WORKDIR DEST", "Overlay on DEST, writes go to RWSRC (WORKDIR: empty, same fs)",
     on_overlay},
    {"--tmp-overlay", "DEST", "Overlay on DEST, writes go to a hidden tmpfs and are lost", on_overlay},
    {"--ro-overlay", "DEST", "Read-only overlay of the --overlay-src layers on DEST", on_overlay},
    {"--exec-label", "LABEL", "SELinux label to run COMMAND with", on_label},
    {"--file-label", "LABEL", "SELinux label for files created during setup", on_label},
    {"--proc", "DEST", "Mount a procfs at DEST", on_dest_op},
    {"--dev", "DEST", "Mount a minimal /dev at DEST", on_dest_op},
    {"--tmpfs", "DEST", "Mount an empty tmpfs at DEST", on_tmpfs},
    {"--mqueue", "DEST", "Mount a POSIX message queue file system at DEST", on_dest_op},
    {"--dir", "DEST", "Create the directory DEST", on_dir},
    {"--file", "FD DEST", "Create the file DEST holding what FD contains", on_data_op},
    {"--bind-data", "FD DEST", "Mount a file holding what FD contains at DEST", on_data_op},
    {"--ro-bind-data", "FD DEST", "Like --bind-data, read-only", on_data_op},
    {"--symlink", "SRC DEST", "Create DEST as a symlink pointing to SRC", on_symlink},
    {"--seccomp", "FD", "Install the seccomp BPF program read from FD (only one)", on_seccomp},
    {"--add-seccomp-fd", "FD", "Also install the seccomp BPF program read from FD", on_add_seccomp_fd},
    {"--block-fd", "FD", "Before running COMMAND, wait until FD is readable", set_single_fd<&Spec::block_fd>},
    {"--userns-block-fd", "FD", "Wait on FD while the user namespace is set up from outside",
     set_single_fd<&Spec::userns_block_fd>},
    {"--info-fd", "FD", "Write JSON about the started sandbox to FD", set_single_fd<&Spec::info_fd>},
    {"--json-status-fd", "FD", "Write JSON status lines (start, exit code) to FD",
     set_single_fd<&Spec::json_status_fd>},
    {"--new-session", "", "Run COMMAND in a new session, away from the terminal",
     set_flag<&Spec::new_session>},
    {"--die-with-parent", "", "SIGKILL the sandbox when the caller of this program dies",
     set_flag<&Spec::die_with_parent>},
    {"--as-pid-1", "", "Run COMMAND as PID 1, without a reaper process", set_flag<&Spec::as_pid_1>},
    {"--cap-add", "CAP", "Give COMMAND capability CAP (or ALL)", on_cap},
    {"--cap-drop", "CAP", "Take capability CAP (or ALL) away from COMMAND", on_cap},
    {"--perms", "OCTAL", "Mode for the next --dir, --tmpfs, --file or --bind-data", on_perms, true},
    {"--size", "BYTES", "Size limit for the next --tmpfs", on_size, true},
    {"--chmod", "OCTAL PATH", "Change the mode of PATH, which must exist", on_chmod},
};

}  // namespace

std::size_t OptionDef::arity() const {
  if (metavars.empty()) return 0;
  std::size_t n = 1;
  for (char c : metavars) n += c == ' ' ? 1 : 0;
  return n;
}

std::string OptionDef::missing_message() const {
  if (!missing.empty()) return std::string(missing);
  static constexpr std::string_view kCounts[] = {"", " takes an argument", " takes two arguments",
                                                 " takes three arguments"};
  return std::string(name) + std::string(kCounts[arity()]);
}

std::span<const OptionDef> bwrap_options() { return kOptions; }

const OptionDef* find_bwrap_option(std::string_view name) {
  for (const auto& opt : kOptions)
    if (opt.name == name) return &opt;
  return nullptr;
}

}  // namespace rf::cli::detail

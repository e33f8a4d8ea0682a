// SPDX-License-Identifier: LGPL-2.1-or-later
// describe(): the stable text dump used for debugging and golden tests.
#include <doctest/doctest.h>

#include "ringfence/spec/describe.hpp"

using namespace rf::spec;

TEST_CASE("an empty spec") {
  Spec s;
  CHECK(describe(s) == "namespaces -\nargv\n");
}

TEST_CASE("op names cover every kind") {
  CHECK(std::string(op_name(OpKind::Bind)) == "bind");
  CHECK(std::string(op_name(OpKind::RoBind)) == "ro-bind");
  CHECK(std::string(op_name(OpKind::DevBind)) == "dev-bind");
  CHECK(std::string(op_name(OpKind::RemountRo)) == "remount-ro");
  CHECK(std::string(op_name(OpKind::Tmpfs)) == "tmpfs");
  CHECK(std::string(op_name(OpKind::Proc)) == "proc");
  CHECK(std::string(op_name(OpKind::Dev)) == "dev");
  CHECK(std::string(op_name(OpKind::Mqueue)) == "mqueue");
  CHECK(std::string(op_name(OpKind::Dir)) == "dir");
  CHECK(std::string(op_name(OpKind::Symlink)) == "symlink");
  CHECK(std::string(op_name(OpKind::Chmod)) == "chmod");
  CHECK(std::string(op_name(OpKind::File)) == "file");
  CHECK(std::string(op_name(OpKind::BindData)) == "bind-data");
  CHECK(std::string(op_name(OpKind::RoBindData)) == "ro-bind-data");
  CHECK(std::string(op_name(OpKind::Overlay)) == "overlay");
  CHECK(std::string(op_name(OpKind::TmpOverlay)) == "tmp-overlay");
  CHECK(std::string(op_name(OpKind::RoOverlay)) == "ro-overlay");
}

TEST_CASE("a spec with every kind of field, in a fixed order") {
  Spec s;
  s.argv = {"sh", "-c", "echo \"hi\""};
  s.ns.user_try = s.ns.pid = s.ns.cgroup_try = true;
  s.uid = 0;
  s.gid = 100;
  s.hostname = "box";
  FsOp bind;
  bind.kind = OpKind::RoBind;
  bind.source = "/usr";
  bind.dest = "/usr";
  bind.allow_missing = true;
  s.fs_ops.push_back(bind);
  FsOp tmp;
  tmp.kind = OpKind::Tmpfs;
  tmp.dest = "/tmp";
  tmp.perms = 01777;
  tmp.size = 4096;
  s.fs_ops.push_back(tmp);
  FsOp ov;
  ov.kind = OpKind::Overlay;
  ov.source = "/up";
  ov.work = "/wk";
  ov.dest = "/mnt";
  ov.layers = {"/low1", "/low2"};
  s.fs_ops.push_back(ov);
  FsOp tov;
  tov.kind = OpKind::TmpOverlay;
  tov.dest = "/t";
  tov.layers = {"/l"};
  s.fs_ops.push_back(tov);
  s.env_ops.push_back({EnvOp::Kind::Clear, {}, {}});
  s.env_ops.push_back({EnvOp::Kind::Set, "A", "1 2"});
  s.env_ops.push_back({EnvOp::Kind::Unset, "B", {}});
  s.chdir = "/tmp";
  s.cap_ops.push_back({false, -1});
  s.cap_ops.push_back({true, 12});
  s.seccomp.push_back({std::string(16, '\0')});
  s.inherit_fds = false;
  s.pass_fds = {rf::spec::Fd{5}, rf::spec::Fd{7}};
  s.new_session = s.die_with_parent = s.as_pid_1 = true;
  CHECK(describe(s) ==
        "namespaces user-try,pid,cgroup-try\n"
        "uid 0\n"
        "gid 100\n"
        "hostname \"box\"\n"
        "op ro-bind \"/usr\" \"/usr\" try\n"
        "op tmpfs \"/tmp\" perms=1777 size=4096\n"
        "op overlay \"/up\" \"/mnt\" work=\"/wk\" layer=\"/low1\" layer=\"/low2\"\n"
        "op tmp-overlay \"/t\" layer=\"/l\"\n"
        "env clear\n"
        "env set \"A\" \"1 2\"\n"
        "env unset \"B\"\n"
        "chdir \"/tmp\"\n"
        "cap drop ALL\n"
        "cap add 12\n"
        "seccomp 2 instructions\n"
        "fds closed except 0 1 2 5 7\n"
        "new-session\n"
        "die-with-parent\n"
        "as-pid-1\n"
        "argv \"sh\" \"-c\" \"echo \\\"hi\\\"\"\n");
}

TEST_CASE("perms are printed as four octal digits") {
  Spec s;
  FsOp d;
  d.kind = OpKind::Dir;
  d.dest = "/d";
  d.perms = 0700;
  s.fs_ops.push_back(d);
  CHECK(describe(s).find("op dir \"/d\" perms=0700\n") != std::string::npos);
}

TEST_CASE("data ops, lock files, fds and the user namespace flags") {
  Spec s;
  s.argv = {"true"};
  s.ns.user = true;
  FsOp file;
  file.kind = OpKind::File;
  file.dest = "/etc/passwd";
  file.fd = rf::spec::Fd{0};
  s.fs_ops.push_back(file);
  FsOp data;
  data.kind = OpKind::RoBindData;
  data.dest = "/d";
  data.fd = rf::spec::Fd{11};
  data.perms = 0444;
  s.fs_ops.push_back(data);
  s.argv0 = "-sh";
  s.lock_files = {"/a", "/b c"};
  s.sync_fd = rf::spec::Fd{3};
  s.block_fd = rf::spec::Fd{4};
  s.userns_block_fd = rf::spec::Fd{5};
  s.info_fd = rf::spec::Fd{6};
  s.json_status_fd = rf::spec::Fd{7};
  s.disable_userns = s.assert_userns_disabled = true;
  CHECK(describe(s) ==
        "namespaces user\n"
        "op file \"/etc/passwd\" fd=0\n"
        "op ro-bind-data \"/d\" perms=0444 fd=11\n"
        "argv0 \"-sh\"\n"
        "lock-file \"/a\"\n"
        "lock-file \"/b c\"\n"
        "sync-fd 3\n"
        "block-fd 4\n"
        "userns-block-fd 5\n"
        "info-fd 6\n"
        "json-status-fd 7\n"
        "disable-userns\n"
        "assert-userns-disabled\n"
        "argv \"true\"\n");
}

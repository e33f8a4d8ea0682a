// SPDX-License-Identifier: LGPL-2.1-or-later
// The verify layer without sandboxes: reading rf-attack's and the fixture's output, the level
// line, the verdict of a row at each level, selectors, the table and the JSON, the JSON reader,
// the child runner and the temporary tree.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>

#include "process.hpp"
#include "ringfence/base/json.hpp"
#include "ringfence/cli/native.hpp"
#include "ringfence/verify/verify.hpp"
#include "workspace.hpp"

using namespace rf::verify;
namespace json = rf::base::json;
using Words = std::vector<std::string>;

namespace {

Attack attack(const std::string& id, Words protects, const std::string& network = "") {
  Attack a;
  a.id = id;
  a.row = id;
  a.title = "title of " + id;
  a.protects = std::move(protects);
  a.network = network;
  return a;
}

Observation seen(const std::string& id, Outcome o, int err = 0, const std::string& detail = "") {
  return Observation{id, "", o, err, detail};
}

const Words kAll = {"kernel", "landlock", "soft"};

}  // namespace

TEST_CASE("parse_list: attacks, their levels, and where they run") {
  auto l = parse_list(
      "{\"id\":\"S-01\",\"row\":\"S-01\",\"title\":\"environ\",\"protects\":[\"kernel\"]}\n"
      "\n"
      "{\"id\":\"S-06\",\"row\":\"S-06\",\"title\":\"metadata\",\"protects\":[\"kernel\",\"landlock\","
      "\"soft\"]}\n"
      "{\"id\":\"S-07\",\"row\":\"S-07\",\"title\":\"egress\",\"protects\":[]}\n"
      "{\"id\":\"NET-01.tcp.169.254.169.254\",\"row\":\"NET-01\",\"title\":\"t\",\"protects\":[\"soft\"]}\n"
      "{\"id\":\"NTF-05\",\"row\":\"NTF-05\",\"title\":\"t\",\"protects\":[]}\n"
      "{\"id\":\"X-1\",\"row\":\"X-1\",\"title\":\"t\",\"protects\":[],\"network\":\"off\"}\n");
  REQUIRE(l);
  REQUIRE(l->size() == 6);
  CHECK((*l)[0].protects == Words{"kernel"});
  CHECK((*l)[0].network.empty());
  CHECK((*l)[1].network == "on");
  CHECK((*l)[2].network == "off");
  CHECK((*l)[2].protects.empty());
  CHECK((*l)[3].network == "on");
  CHECK((*l)[4].network == "on");
  CHECK((*l)[5].network == "off");  // the list's own field wins
}

TEST_CASE("parse_list: errors name the line") {
  auto bad = parse_list("{\"id\":\"A\"}\n{\"id\":\n");
  REQUIRE(!bad);
  CHECK(bad.error().message().find("line 2") != std::string::npos);
  CHECK(parse_list("{\"title\":\"no id\"}\n").error().message().find("no \"id\"") != std::string::npos);
  CHECK(parse_list("{\"id\":\"A\"}\n{\"id\":\"A\"}\n").error().message().find("listed twice") !=
        std::string::npos);
  CHECK(parse_list("\n\n").error().message().find("no attack") != std::string::npos);
}

TEST_CASE("parse_results: outcomes, junk, a repeated id keeps the worse outcome") {
  int junk = 0;
  auto r = parse_results(
      "{\"id\":\"A\",\"title\":\"a\",\"outcome\":\"blocked\",\"errno\":13,\"detail\":\"EACCES\"}\n"
      "not json at all\n"
      "{\"id\":\"B\",\"outcome\":\"maybe\"}\n"
      "{\"id\":\"C\",\"outcome\":\"skipped\",\"errno\":0,\"detail\":\"no i386\"}\n"
      "{\"id\":\"A\",\"outcome\":\"succeeded\",\"errno\":0,\"detail\":\"worked\"}\n"
      "{\"id\":\"C\",\"outcome\":\"blocked\",\"errno\":1}\n"
      "{\"id\":\"D\",\"outcome\":\"blocked\",\"detail\":\"raw \xff byte\\u0007\"}",
      junk);
  CHECK(junk == 2);
  REQUIRE(r.size() == 3);
  CHECK(r[0].id == "A");
  CHECK(r[0].outcome == Outcome::Succeeded);
  CHECK(r[0].detail == "worked");
  CHECK(r[1].outcome == Outcome::Skipped);  // a later "blocked" does not replace it
  CHECK(r[2].detail == "raw ? byte ");      // invalid UTF-8 and control characters cleaned
}

TEST_CASE("parse_fixture_log: the summary and the denied events") {
  auto f = parse_fixture_log(
      "{\"fixture\":\"event\",\"proto\":\"tcp\",\"addr\":\"169.254.169.254\",\"port\":80,\"peer\":\"x\","
      "\"denied\":true}\n"
      "{\"fixture\":\"event\",\"proto\":\"udp\",\"addr\":\"198.51.100.10\",\"port\":53,\"peer\":\"x\","
      "\"denied\":false}\n"
      "{\"fixture\":\"address\",\"addr\":\"2002:a9fe:a9fe::1\",\"error\":\"EADDRNOTAVAIL\"}\n"
      "{\"fixture\":\"summary\",\"denied_hits\":1,\"allowed_hits\":1}\n");
  REQUIRE(f);
  CHECK(f->denied_hits == 1);
  CHECK(f->allowed_hits == 1);
  CHECK(f->denied_events == Words{"tcp 169.254.169.254:80"});
  CHECK(!parse_fixture_log("{\"fixture\":\"event\",\"denied\":true}\n"));
  CHECK(!parse_fixture_log("{\"fixture\":\"summary\",\"denied_hits\":\"x\"}\n"));
  CHECK(!parse_fixture_log(""));
}

TEST_CASE("parse_level_line: the word after 'ringfence: level'") {
  CHECK(parse_level_line("ringfence: level kernel, preset balanced, network on, seccomp default\n") ==
        "kernel");
  CHECK(parse_level_line("warning\nringfence: level soft, preset trusted\n") == "soft");
  CHECK(parse_level_line("<6>ringfence: level landlock, preset x\n") == "landlock");
  CHECK(parse_level_line("rf-attack: ringfence: level kernel\n").empty());  // not at a line start
  CHECK(parse_level_line("ringfence: level banana\n").empty());
  CHECK(parse_level_line("").empty());
}

TEST_CASE("judge: pass, FAIL, not protected, reported only") {
  Attack k = attack("S-01", {"kernel"});
  auto blocked = seen("S-01", Outcome::Blocked, 13, "EACCES");
  auto won = seen("S-01", Outcome::Succeeded, 0, "read it");
  Row r = judge(k, &blocked, "kernel", std::nullopt, "");
  CHECK(r.verdict == Verdict::Pass);
  CHECK(r.expected == "blocked");
  CHECK(r.observed == "blocked (EACCES): EACCES");
  r = judge(k, &won, "kernel", std::nullopt, "");
  CHECK(r.verdict == Verdict::Fail);
  CHECK(r.observed == "succeeded: read it");
  // At a level the row does not protect: never a pass, never a failure.
  for (const auto* o : {&blocked, &won}) {
    r = judge(k, o, "soft", std::nullopt, "");
    CHECK(r.verdict == Verdict::NotProtected);
    CHECK(r.expected == "not protected at soft");
  }
  // No level promises it: reported.
  Attack none = attack("PRIV-05", {});
  r = judge(none, &won, "kernel", std::nullopt, "");
  CHECK(r.verdict == Verdict::NotProtected);
  CHECK(r.expected == "reported only");
  CHECK(verdict_name(Verdict::NotProtected) == "not protected at this level");
}

TEST_CASE("judge: skipped, undecided, no result") {
  Attack k = attack("TTY-01", kAll);
  auto skip = seen("TTY-01", Outcome::Skipped, 0, "no terminal");
  Row r = judge(k, &skip, "kernel", std::nullopt, "");
  CHECK(r.verdict == Verdict::Skipped);
  CHECK(r.reason == "no terminal");
  auto undecided = seen("TTY-01", Outcome::Skipped, 0, "timed out after 3 s (undecided)");
  CHECK(judge(k, &undecided, "kernel", std::nullopt, "").verdict == Verdict::Fail);
  CHECK(judge(attack("X", {"kernel"}), &undecided, "soft", std::nullopt, "").verdict ==
        Verdict::NotProtected);
  r = judge(k, nullptr, "kernel", std::nullopt, "the seccomp policy killed the attack program (SIGSYS)");
  CHECK(r.verdict == Verdict::Error);
  CHECK(r.observed == "no result");
  CHECK(r.reason.find("SIGSYS") != std::string::npos);
}

TEST_CASE("judge: a network row needs a failed call and a quiet fixture") {
  Attack n = attack("S-06", kAll, "on");
  auto blocked = seen("S-06", Outcome::Blocked, 111, "connect 169.254.169.254:80");
  FixtureSummary quiet{0, 3, {}};
  FixtureSummary hit{2, 3, {"tcp 169.254.169.254:80", "udp 169.254.169.253:53"}};
  Row r = judge(n, &blocked, "kernel", quiet, "");
  CHECK(r.verdict == Verdict::Pass);
  CHECK(r.expected == "blocked, no fixture hit");
  CHECK(r.observed.find("fixture: 0 denied hits") != std::string::npos);
  r = judge(n, &blocked, "kernel", hit, "");
  CHECK(r.verdict == Verdict::Fail);
  CHECK(r.reason.find("tcp 169.254.169.254:80, udp 169.254.169.253:53") != std::string::npos);
  r = judge(n, &blocked, "kernel", std::nullopt, "");
  CHECK(r.verdict == Verdict::Error);
  CHECK(r.reason.find("no summary") != std::string::npos);
}

TEST_CASE("selectors_for: a row as a prefix only when it picks nothing else") {
  std::vector<Attack> all = {attack("NET-01.a", kAll), attack("NET-01.b", kAll), attack("NET-CTL", {}),
                             attack("MNT-01", kAll), attack("MNT-01.i386", kAll)};
  for (auto& a : all) a.row = a.id.substr(0, 6);
  all[2].row = "NET-01";
  CHECK(selectors_for({"NET-01.a", "NET-01.b"}, all) == Words{"NET-01"});
  CHECK(selectors_for({"NET-01.a"}, all) == Words{"NET-01.a"});
  CHECK(selectors_for({"NET-CTL"}, all) == Words{"NET-CTL"});  // its row is not a prefix of its id
  CHECK(selectors_for({"MNT-01", "MNT-01.i386"}, all) == Words{"MNT-01"});
  CHECK(selectors_for({}, all).empty());
}

TEST_CASE("the report: exit code, table and JSON") {
  Report rep;
  rep.preset = "balanced";
  rep.level = "soft";
  rep.kernel = "6.1.0";
  rep.uid = "1000";
  rep.attack_program = "/x/rf-attack";
  rep.fake_home = "/tmp/rf-verify-x/home";
  auto blocked = seen("ENV-01", Outcome::Blocked);
  auto won = seen("S-05", Outcome::Succeeded, 0, "read .env \"quoted\"");
  rep.rows.push_back(judge(attack("ENV-01", kAll), &blocked, "soft", std::nullopt, ""));
  rep.rows.push_back(judge(attack("S-05", {"kernel", "landlock"}), &won, "soft", std::nullopt, ""));
  CHECK(exit_code(rep) == 0);
  std::string t = format_table(rep);
  CHECK(t.rfind("ringfence verify: level soft, preset balanced, kernel 6.1.0", 0) == 0);
  CHECK(t.find("not protected at this level") != std::string::npos);
  CHECK(t.find("summary: 1 pass, 0 FAIL, 0 skipped, 1 not protected at this level") != std::string::npos);
  CHECK(t.find(rep.fake_home) != std::string::npos);
  rep.rows.push_back(judge(attack("S-04", kAll), &won, "soft", std::nullopt, ""));
  CHECK(exit_code(rep) == 1);
  t = format_table(rep);
  CHECK(t.find("failed rows:\n  S-04 FAIL") != std::string::npos);
  CHECK(t.find("an attack succeeded where it should have been blocked") != std::string::npos);
  auto doc = json::parse(to_json(rep));
  REQUIRE(doc);
  CHECK(doc->str("level") == "soft");
  REQUIRE(doc->get("rows"));
  REQUIRE(doc->get("rows")->array.size() == 3);
  CHECK(doc->get("rows")->array[1].str("verdict") == "not protected at this level");
  CHECK(doc->get("rows")->array[1].str("detail") == "read .env \"quoted\"");
  CHECK(doc->get("rows")->array[2].str("verdict") == "FAIL");
  CHECK(doc->get("summary")->num("fail", -1) == 1);
  CHECK(doc->num("exit_code", -1) == 1);
  rep.rows.push_back(judge(attack("Z", kAll), nullptr, "soft", std::nullopt, "exit 1"));
  CHECK(format_table(rep).find("1 error") != std::string::npos);
}

TEST_CASE("json reader: escapes, nesting, errors") {
  auto v = json::parse(R"({"a":"x\n\u00e9\ud83d\ude00\"","b":[1,-2.5e1,true,null],"c":{}})");
  REQUIRE(v);
  CHECK(v->str("a") == "x\n\xc3\xa9\xf0\x9f\x98\x80\"");
  CHECK(v->get("b")->array.size() == 4);
  CHECK(v->get("b")->array[1].number == -25);
  CHECK(v->num("missing", 7) == 7);
  CHECK(!json::parse("{\"a\":1,}"));
  CHECK(!json::parse("{\"a\":\"\x01\"}"));
  CHECK(!json::parse("[1] 2"));
  CHECK(!json::parse(std::string(40, '[') + std::string(40, ']')));
  CHECK(json::parse("\"\\ud800\\u0041\"").error().message().find("surrogate") != std::string::npos);
}

TEST_CASE("run_captured: output, exit code, a deadline, a program that cannot start") {
  auto sig = SignalGuard::make();
  REQUIRE(sig);
  Words env = {"PATH=/usr/bin:/bin"};
  auto c = run_captured({"/bin/sh", "-c", "echo out; echo err >&2; exit 3"}, env, "/", 10, *sig);
  REQUIRE(c);
  CHECK(c->out == "out\n");
  CHECK(c->err == "err\n");
  CHECK(c->exit_code == 3);
  CHECK(!c->timed_out);
  c = run_captured({"/bin/sh", "-c", "kill -9 $$"}, env, "/", 10, *sig);
  REQUIRE(c);
  CHECK(c->exit_code == 128 + 9);
  c = run_captured({"/bin/sh", "-c", "sleep 30 & sleep 30"}, env, "/", 0.3, *sig);
  REQUIRE(c);
  CHECK(c->timed_out);
  auto missing = run_captured({"/nonexistent/rf-attack", "list"}, env, "/", 10, *sig);
  REQUIRE(!missing);
  CHECK(missing.error().code() == ENOENT);
  CHECK(missing.error().describe().find("cannot run /nonexistent/rf-attack") != std::string::npos);
  CHECK(tail_lines("a\n\nb\nc\n", 2) == "b | c");
}

TEST_CASE("workspace: the canaries, and nothing left after remove") {
  char base[] = "/tmp/rf-verify-test-XXXXXX";
  REQUIRE(::mkdtemp(base) != nullptr);
  const std::string old_tmp = ::getenv("TMPDIR") ? ::getenv("TMPDIR") : "";
  ::setenv("TMPDIR", base, 1);
  std::string program = std::string(base) + "/prog";
  std::ofstream(program) << "#!/bin/sh\n";
  auto token = make_token();
  REQUIRE(token);
  CHECK(token->size() == 40);
  CHECK(token->rfind("rfcanary", 0) == 0);
  {
    auto ws = Workspace::create(*token, program);
    REQUIRE(ws);
    CHECK(ws->root().rfind(std::string(base) + "/rf-verify-", 0) == 0);
    std::ifstream env(ws->project() + "/.env");
    std::string line;
    std::getline(env, line);
    CHECK(line == "API_KEY=" + *token);
    struct stat st {};
    CHECK(::stat(ws->home_canary().c_str(), &st) == 0);
    CHECK(::stat((ws->project() + "/.git/hooks").c_str(), &st) == 0);
    CHECK(::stat(ws->attack_copy().c_str(), &st) == 0);
    CHECK((st.st_mode & 0111) != 0);
    // Something a sandbox made unreadable is still removed.
    CHECK(::mkdir((ws->project() + "/locked").c_str(), 0700) == 0);
    std::ofstream(ws->project() + "/locked/f") << "x";
    CHECK(::chmod((ws->project() + "/locked").c_str(), 0) == 0);
    CHECK(ws->remove());
    CHECK(::stat(ws->root().c_str(), &st) != 0);
  }
  auto bad = Workspace::create(*token, std::string(base) + "/missing");
  REQUIRE(!bad);
  CHECK(bad.error().describe().find("open the attack program") != std::string::npos);
  ::unlink(program.c_str());
  CHECK(::rmdir(base) == 0);  // the failed create left nothing either
  if (old_tmp.empty())
    ::unsetenv("TMPDIR");
  else
    ::setenv("TMPDIR", old_tmp.c_str(), 1);
}

TEST_CASE("the command line: ringfence verify [--preset] [--level] [--json] [--attack-program]") {
  using rf::cli::NativeCommand;
  auto c = rf::cli::parse_native({"verify"});
  REQUIRE(c);
  CHECK(c->kind == NativeCommand::Kind::Verify);
  CHECK(!c->verify.preset);
  CHECK(!c->verify.json);
  c = rf::cli::parse_native(
      {"verify", "--preset", "hardened", "--level", "soft", "--json", "--attack-program", "/x"});
  REQUIRE(c);
  CHECK(c->verify.preset == "hardened");
  CHECK(c->verify.level == "soft");
  CHECK(c->verify.json);
  CHECK(c->verify.attack_program == "/x");
  auto err = [](const Words& w) {
    auto r = rf::cli::parse_native(w);
    return r ? std::string() : r.error().message();
  };
  CHECK(err({"verify", "--level", "max"}).find("expected kernel, landlock or soft") != std::string::npos);
  CHECK(err({"verify", "--preset", "paranoid"}).find("paranoid") != std::string::npos);
  CHECK(!err({"verify", "--bogus"}).empty());
  CHECK(!err({"verify", "extra"}).empty());
}

// SPDX-License-Identifier: LGPL-2.1-or-later
// The log sink: lines from any thread reach the installed sink, whole, with the shown prefix.
#include <doctest/doctest.h>

#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "ringfence/base/log.hpp"

namespace log = rf::base::log;

namespace {

struct Captured {
  std::mutex lock;
  std::vector<std::string> shown;
  std::vector<log::Level> levels;
};

// Installs a capturing sink for the scope, and restores the one before.
class Capture {
public:
  Capture() {
    before_ = log::set_sink([this](const log::Line& line) {
      std::lock_guard<std::mutex> hold(c_.lock);
      c_.shown.emplace_back(line.shown);
      c_.levels.push_back(line.level);
    });
  }
  ~Capture() { log::set_sink(std::move(before_)); }
  Captured& got() { return c_; }

private:
  Captured c_;
  log::Sink before_;
};

}  // namespace

TEST_CASE("log lines go to the installed sink, formatted") {
  Capture cap;
  log::set_program("ringfence");
  log::warning("a warning");
  log::debug("not shown without verbose");
  log::set_level_prefix(true);
  log::error("an error");
  log::set_level_prefix(false);
  REQUIRE(cap.got().shown.size() == 2);
  CHECK(cap.got().shown[0] == "ringfence: a warning");
  CHECK(cap.got().levels[0] == log::Level::Warning);
  CHECK(cap.got().shown[1] == "<3>ringfence: an error");
}

TEST_CASE("log lines from several threads arrive whole") {
  Capture cap;
  log::set_program("bwrap");
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([t] {
      for (int i = 0; i < 100; ++i)
        log::warning("thread " + std::to_string(t) + " line " + std::to_string(i));
    });
  for (auto& th : threads) th.join();
  log::set_program("ringfence");
  REQUIRE(cap.got().shown.size() == 400);
  for (const auto& s : cap.got().shown) CHECK(s.rfind("bwrap: thread ", 0) == 0);
}

TEST_CASE("without a sink, lines are dropped") {
  log::Sink before = log::set_sink({});
  log::error("nowhere");  // must not crash or print
  log::set_sink(std::move(before));
}

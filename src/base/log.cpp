// SPDX-License-Identifier: LGPL-2.1-or-later
// Diagnostics facade: one sink, installed by the application, behind one lock (engine threads
// log too). The stderr logger is created on first use, so a run that prints nothing pays
// nothing for it.
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "ringfence/base/log.hpp"

namespace rf::base::log {
namespace {

std::mutex g_lock;  // guards the sink and the program name, and keeps lines whole
Sink g_sink;
std::string g_program = "ringfence";
std::atomic<bool> g_level_prefix{false};
std::atomic<bool> g_verbose{false};
std::atomic<bool> g_quiet{false};

spdlog::logger& stderr_logger() {
  static auto l = [] {
    auto sink = std::make_shared<spdlog::sinks::stderr_sink_st>();
    auto lg = std::make_shared<spdlog::logger>("ringfence", sink);
    lg->set_pattern("%v");
    lg->set_level(spdlog::level::trace);
    lg->flush_on(spdlog::level::trace);
    return lg;
  }();
  return *l;
}

}  // namespace

Sink set_sink(Sink sink) {
  std::lock_guard<std::mutex> hold(g_lock);
  return std::exchange(g_sink, std::move(sink));
}

Sink stderr_sink() {
  return [](const Line& line) {
    auto lvl = line.level == Level::Error     ? spdlog::level::err
               : line.level == Level::Warning ? spdlog::level::warn
               : line.level == Level::Info    ? spdlog::level::info
                                              : spdlog::level::debug;
    stderr_logger().log(lvl, "{}", line.shown);  // one caller at a time: message() holds g_lock
  };
}

void set_program(std::string_view name) {
  std::lock_guard<std::mutex> hold(g_lock);
  g_program = std::string(name);
}
void set_level_prefix(bool on) { g_level_prefix = on; }
void set_verbose(bool on) { g_verbose = on; }
void set_quiet(bool on) { g_quiet = on; }

void message(Level level, std::string_view text) {
  if (level == Level::Debug && !g_verbose) return;
  if (level == Level::Info && g_quiet) return;
  std::lock_guard<std::mutex> hold(g_lock);
  if (!g_sink) return;
  std::string shown;
  if (g_level_prefix) shown += "<" + std::to_string(static_cast<int>(level)) + ">";
  shown += g_program;
  shown += ": ";
  shown += text;
  g_sink(Line{level, text, shown});
}

}  // namespace rf::base::log

// SPDX-License-Identifier: LGPL-2.1-or-later
// Diagnostics facade over spdlog. The logger is created on first use, so a run that prints
// nothing pays nothing for it.
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <memory>
#include <string>

#include "ringfence/base/log.hpp"

namespace rf::base::log {
namespace {

std::string g_program = "ringfence";
bool g_level_prefix = false;
bool g_verbose = false;

spdlog::logger& logger() {
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

void set_program(std::string_view name) { g_program = std::string(name); }
void set_level_prefix(bool on) { g_level_prefix = on; }
void set_verbose(bool on) { g_verbose = on; }

void message(Level level, std::string_view text) {
  if (level == Level::Debug && !g_verbose) return;
  std::string line;
  if (g_level_prefix) line += "<" + std::to_string(static_cast<int>(level)) + ">";
  line += g_program;
  line += ": ";
  line += text;
  auto lvl = level == Level::Error     ? spdlog::level::err
             : level == Level::Warning ? spdlog::level::warn
             : level == Level::Info    ? spdlog::level::info
                                       : spdlog::level::debug;
  logger().log(lvl, "{}", line);
}

}  // namespace rf::base::log

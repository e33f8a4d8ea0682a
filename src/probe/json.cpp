// SPDX-License-Identifier: LGPL-2.1-or-later
// from_json: to_json's output back into a Report (the cache's content).
#include "json.hpp"

#include <cerrno>
#include <cstdlib>

#include "ringfence/probe/probe.hpp"

namespace rf::probe {
namespace {

base::Result<Level> level_from(const std::string& name) {
  for (Level l : {Level::Soft, Level::Landlock, Level::Kernel})
    if (level_name(l) == name) return l;
  return base::Error(EINVAL, "unknown level \"" + name + "\"");
}

base::Result<Availability> availability_from(const std::string& name) {
  for (Availability a : {Availability::Yes, Availability::Partial, Availability::No})
    if (availability_name(a) == name) return a;
  return base::Error(EINVAL, "unknown availability \"" + name + "\"");
}

long long integer(const json::Value& v, std::string_view key) {
  const json::Value* n = v.get(key);
  return n && n->type == json::Value::Type::Number ? static_cast<long long>(n->number) : 0;
}

}  // namespace

base::Result<Report> report_from(const json::Value& doc) {
  using T = json::Value::Type;
  const json::Value* checks = doc.get("checks");
  const json::Value* facts = doc.get("facts");
  const json::Value* presets = doc.get("presets");
  if (doc.type != T::Object || !checks || checks->type != T::Array || !facts || facts->type != T::Object ||
      !presets || presets->type != T::Array)
    return base::Error(EINVAL, "not a probe report (checks, facts and presets are needed)");
  Report r;
  RF_TRY_ASSIGN(level, level_from(doc.str("level")));
  r.level = level;
  r.level_reason = doc.str("level_reason");
  r.landlock_abi = static_cast<int>(integer(doc, "landlock_abi"));
  r.probed_at = integer(doc, "probed_at");
  for (const auto& c : checks->array) {
    RF_TRY_ASSIGN(available, availability_from(c.str("available")));
    r.checks.push_back({c.str("id"), c.str("layer"), available, c.str("detail"), c.str("cause"), c.str("fix"),
                        c.str("needed_for")});
  }
  for (const auto& [id, value] : facts->object) {
    if (value.type != T::String) return base::Error(EINVAL, "fact \"" + id + "\" is not a string");
    r.facts.push_back({id, value.string});
  }
  for (const auto& p : presets->array) {
    RF_TRY_ASSIGN(aim, level_from(p.str("aim")));
    RF_TRY_ASSIGN(reached, level_from(p.str("reached")));
    r.presets.push_back({p.str("preset"), aim, reached, p.str("note")});
  }
  if (const json::Value* cache = doc.get("cache")) {
    r.cache = cache->str("status");
    r.cache_path = cache->str("path");
  }
  return r;
}

base::Result<Report> from_json(std::string_view text) {
  RF_TRY_ASSIGN(doc, json::parse(text));
  return report_from(doc);
}

}  // namespace rf::probe

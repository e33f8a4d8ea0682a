// SPDX-License-Identifier: LGPL-2.1-or-later
// A small JSON reader for the probe's own files (the cache, to_json's output): objects keep
// their key order; numbers are kept as doubles; depth and size are bounded.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ringfence/base/result.hpp"

namespace rf::probe::json {

struct Value {
  enum class Type { Null, Bool, Number, String, Array, Object } type = Type::Null;
  bool boolean = false;
  double number = 0;
  std::string string;
  std::vector<Value> array;
  std::vector<std::pair<std::string, Value>> object;

  // The member called key, or nullptr (also when this is not an object).
  [[nodiscard]] const Value* get(std::string_view key) const;
  // The member's string, or "" when it is missing or not a string.
  [[nodiscard]] std::string str(std::string_view key) const;
};

base::Result<Value> parse(std::string_view text);

}  // namespace rf::probe::json

namespace rf::probe {
struct Report;
// to_json's object, parsed, back into a Report.
base::Result<Report> report_from(const json::Value& doc);
}  // namespace rf::probe

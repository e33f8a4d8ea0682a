// SPDX-License-Identifier: LGPL-2.1-or-later
// A small JSON reader for the project's own JSON (the probe cache, the attack program's result
// lines, the network fixture's log): bounded depth, numbers as doubles, objects in key order,
// strict about control characters and surrogates.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ringfence/base/result.hpp"

namespace rf::base::json {

struct Member;

struct Value {
  enum class Type { Null, Bool, Number, String, Array, Object } type = Type::Null;
  bool boolean = false;
  double number = 0;
  std::string string;
  std::vector<Value> array;
  std::vector<Member> object;  // in the text's order

  // The member called key, or nullptr (also when this is not an object).
  [[nodiscard]] const Value* get(std::string_view key) const;
  // The member's string, or "" when it is missing or not a string.
  [[nodiscard]] std::string str(std::string_view key) const;
  // The member's number, or fallback when it is missing or not a number.
  [[nodiscard]] double num(std::string_view key, double fallback) const;
};

// An object's member (a struct rather than a pair, which cannot hold the incomplete Value).
struct Member {
  std::string key;
  Value value;
};

base::Result<Value> parse(std::string_view text);

}  // namespace rf::base::json

// SPDX-License-Identifier: LGPL-2.1-or-later
// Text helpers private to the net layer: quoting bad input in error messages, JSON strings for
// bytes that need not be UTF-8, and the escaped form of abstract socket names in rules.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace rf::net {

// "\"text\"" with quotes, backslashes and non-printable bytes escaped (\xNN), cut after 200
// bytes: bad input always fits on one line of an error message.
std::string quote(std::string_view text);

// Appends s as a JSON string literal. Control characters and DEL are escaped; bytes that are
// not valid UTF-8 become U+FFFD, and the return value says whether that happened.
bool append_json_string(std::string& out, std::string_view s);

// Abstract socket names in rules: printable ASCII stays, backslash is "\\", every other byte
// (space included) is "\xNN".
std::string escape_name(std::string_view name);
// The inverse; nullopt for a malformed escape.
std::optional<std::string> unescape_name(std::string_view text);

}  // namespace rf::net

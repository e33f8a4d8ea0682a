// SPDX-License-Identifier: LGPL-2.1-or-later
// What a line of the violation log means to the one who hit it: what was refused, and which
// flag (or profile line) would allow it. The same text is the launcher's hint on stderr at the
// first refusal of each kind in a run and `ringfence why`'s explanation of the log.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace rf::net {

struct Explanation {
  std::string kind;   // the class of refusal: one hint per kind and run ("floor", "allowlist", ...)
  std::string what;   // "refused connect to 203.0.113.5:443 (not in --allow-host)"
  std::string allow;  // "--allow-host NAME"; empty where nothing allows it (the metadata floor)
  std::string note;   // more about it, when there is more to say
};

// The explanation of one violation log line (a JSON object); nothing for lines that are no
// denial (the run markers, the size limit's line) or are not the log's JSON.
std::optional<Explanation> explain_violation(std::string_view json_line);

// One line: "refused ...; to allow: FLAG" (or "; nothing allows it: why").
std::string explanation_line(const Explanation& e);

}  // namespace rf::net

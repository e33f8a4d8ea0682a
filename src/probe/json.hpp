// SPDX-License-Identifier: LGPL-2.1-or-later
// Reading the probe's own JSON back (the cache, to_json's output) with base's JSON reader.
#pragma once

#include "ringfence/base/json.hpp"

namespace rf::probe {
namespace json = base::json;
struct Report;
// to_json's object, parsed, back into a Report.
base::Result<Report> report_from(const json::Value& doc);
}  // namespace rf::probe

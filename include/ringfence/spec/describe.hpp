// SPDX-License-Identifier: LGPL-2.1-or-later
// A stable, line-oriented text dump of a Spec (debug output and golden tests).
#pragma once

#include <string>

#include "ringfence/spec/spec.hpp"

namespace rf::spec {

std::string describe(const Spec& spec);
const char* op_name(OpKind kind);

}  // namespace rf::spec

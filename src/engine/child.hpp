// SPDX-License-Identifier: LGPL-2.1-or-later
// Entry of the cloned child.
#pragma once

#include "context.hpp"

namespace rf::engine {

[[noreturn]] void run_child(const ChildContext& ctx);

}  // namespace rf::engine

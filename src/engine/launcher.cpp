// SPDX-License-Identifier: LGPL-2.1-or-later
#include "ringfence/engine/launch.hpp"
namespace rf::engine {
base::Result<int> launch(const spec::Spec&) { return base::make_error("not implemented"); }
}

// SPDX-License-Identifier: LGPL-2.1-or-later
// The overlay family (--overlay, --tmp-overlay, --ro-overlay): host paths resolved by the
// launcher before clone, and the overlayfs mount made by the child during the ops.
#pragma once

#include "context.hpp"
#include "ringfence/base/result.hpp"

namespace rf::engine {

// Launcher side, as the caller: realpath the lower layers, then the upper and work dirs, in
// place in r.op.layers / r.host_source / r.op.work (bwrap's order and message).
base::Status resolve_overlay_sources(ResolvedOp& r);

// Child side: mount overlayfs on dir_fd (the in-root destination directory, already made).
// --tmp-overlay's upper and work dirs go on the hidden scratch root, numbered by its position
// among the --tmp-overlay ops in ctx.ops.
base::Status mount_overlay_in_child(const ChildContext& ctx, int dir_fd, const ResolvedOp& r);

}  // namespace rf::engine

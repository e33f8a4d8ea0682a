// SPDX-License-Identifier: LGPL-2.1-or-later
// Cross-option rules of a Spec, with bwrap's exact message texts.
#pragma once

#include "ringfence/base/result.hpp"
#include "ringfence/spec/spec.hpp"

namespace rf::spec {

// The namespaces a Spec really gets on this host: an unprivileged caller always gets a user
// namespace (nothing else can be unshared without one); the -try variants are resolved by
// the caller, which knows whether the host allows them.
Namespaces effective_namespaces(const Spec& spec, uid_t caller_uid, bool userns_available,
                                bool cgroupns_available);

// The jail's rules, for every front end: landlock rules only in the landlock jail, an exec
// allowlist exactly with shell off, and in the landlock and soft jails nothing they would ignore
// (namespaces, filesystem ops, ids, capabilities, /proc and root bounds, late masks, bwrap's
// options and descriptors). validate() runs it first; the landlock and soft jails run only this.
base::Status validate_jail(const Spec& spec);

// Checks that do not depend on the host (e.g. --hostname needs --unshare-uts), run against the
// effective namespaces. `caller_uid`/`caller_gid` are the real ids of the invoking process.
base::Status validate(const Spec& spec, const Namespaces& effective, uid_t caller_uid, gid_t caller_gid);

}  // namespace rf::spec

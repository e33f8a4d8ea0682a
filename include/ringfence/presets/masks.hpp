// SPDX-License-Identifier: LGPL-2.1-or-later
// Paths that must not be readable in the sandbox: secrets on the host's system paths (hidden even
// though /etc is bound read-only) and secret-looking names in the project; glob matching for both.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ringfence/base/result.hpp"

namespace rf::presets {

struct SecretPath {
  std::string path;    // absolute host path; the last component may be a glob
  std::string reason;  // shown by the dry run
};

// Files whose format says whether they hold a secret: a default mask of such a name covers the
// file only when its content does (a `.npmrc` holding only `save-exact=true` stays readable).
enum class ContentCheck : std::uint8_t {
  None,    // always covered
  Npmrc,   // a key ending in _authToken, _auth, _password, password, certfile or keyfile
  Pypirc,  // a password key in any section
  Netrc,   // a password or account token
  Pem,     // a PEM block of a private key ("PRIVATE KEY", encrypted or not)
};

struct Mask {
  std::string pattern;  // see mask_applies
  std::string reason;
  ContentCheck check = ContentCheck::None;
};

// Whether `content` (a file a default mask with this check names) holds a secret. Content that
// cannot be read as the format counts as one.
bool content_is_secret(ContentCheck check, std::string_view content);

// Host paths hidden in every sandbox (a directory gets an empty tmpfs, a file /dev/null).
const std::vector<SecretPath>& system_secret_paths();
// Patterns masked in the project unless the profile says otherwise.
const std::vector<Mask>& default_project_masks();

// fnmatch(3) with FNM_PATHNAME: '*', '?' and '[...]' never match '/'; a leading '.' is matched
// like any other character (so "*.pem" covers ".secret.pem"); '\' quotes the next character.
bool mask_matches(std::string_view pattern, std::string_view name);
// Whether a mask pattern covers `relpath` (relative to the project, no leading "./"):
// - a trailing '/' ("secrets/") covers directories only;
// - a pattern with no other '/' ("*.pem") matches the last component, at any depth;
// - a pattern with a '/' inside ("config/prod.env", "/top.key") matches the whole relative path,
//   anchored at the project root.
// Everything under a covered directory is covered with it (the mask hides the whole tree).
bool mask_applies(std::string_view pattern, std::string_view relpath, bool is_dir);
// A usable mask pattern: not empty, relative to the project (a leading '/' anchors it), no "."
// or ".." components, no empty components.
base::Status check_mask_pattern(std::string_view pattern);
// Whether a path or pattern contains glob characters ('*', '?', '[').
bool has_glob(std::string_view pattern);

}  // namespace rf::presets

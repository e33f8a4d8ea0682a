// SPDX-License-Identifier: LGPL-2.1-or-later
// presets: glob matching (fnmatch semantics), mask coverage of project paths, the secret lists.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "ringfence/presets/autorun.hpp"
#include "ringfence/presets/presets.hpp"

using namespace rf::presets;

namespace {

bool covered_by_defaults(std::string_view relpath, bool is_dir) {
  const auto& masks = default_project_masks();
  return std::any_of(masks.begin(), masks.end(),
                     [&](const Mask& m) { return mask_applies(m.pattern, relpath, is_dir); });
}

bool listed_secret(std::string_view host_path) {
  const auto& list = system_secret_paths();
  return std::any_of(list.begin(), list.end(), [&](const SecretPath& s) {
    return s.path == host_path || (has_glob(s.path) && mask_matches(s.path, host_path));
  });
}

}  // namespace

TEST_CASE("mask_matches: fnmatch semantics") {
  CHECK(mask_matches("*.pem", "server.pem"));
  CHECK(mask_matches("*.pem", ".pem"));
  CHECK(mask_matches("*.pem", ".hidden.pem"));  // a leading dot is not special
  CHECK_FALSE(mask_matches("*.pem", "server.pem.txt"));
  CHECK_FALSE(mask_matches("*.pem", "server.PEM"));
  CHECK(mask_matches(".env", ".env"));
  CHECK_FALSE(mask_matches(".env", ".envrc"));
  CHECK(mask_matches(".env.*", ".env.local"));
  CHECK_FALSE(mask_matches(".env.*", ".env"));
  CHECK(mask_matches("id_rsa*", "id_rsa"));
  CHECK(mask_matches("id_rsa*", "id_rsa.pub"));
  CHECK(mask_matches("?.key", "a.key"));
  CHECK_FALSE(mask_matches("?.key", "ab.key"));
  CHECK(mask_matches("[ab].txt", "b.txt"));
  CHECK_FALSE(mask_matches("[!ab].txt", "b.txt"));
  CHECK(mask_matches("[!ab].txt", "c.txt"));
  CHECK(mask_matches("[a-c]*", "cat"));
  CHECK(mask_matches("\\*.txt", "*.txt"));
  CHECK_FALSE(mask_matches("\\*.txt", "a.txt"));
  CHECK_FALSE(mask_matches("*", "a/b"));  // '*' never crosses '/'
  CHECK_FALSE(mask_matches("a?b", "a/b"));
  CHECK(mask_matches("a/*", "a/b"));
  CHECK(mask_matches("*", ""));
  CHECK_FALSE(mask_matches("", "a"));
  CHECK(mask_matches("/etc/ssh/ssh_host_*_key", "/etc/ssh/ssh_host_ed25519_key"));
  CHECK_FALSE(mask_matches("/etc/ssh/ssh_host_*_key", "/etc/ssh/ssh_host_ed25519_key.pub"));
}

TEST_CASE("mask_applies: basename patterns at any depth") {
  CHECK(mask_applies("*.pem", "a.pem", false));
  CHECK(mask_applies("*.pem", "deep/er/a.pem", false));
  CHECK(mask_applies(".env", "services/api/.env", false));
  CHECK_FALSE(mask_applies(".env", "services/api/env", false));
  CHECK(mask_applies(".env", ".env/inner", false));  // under a covered directory
}

TEST_CASE("mask_applies: a trailing slash covers directories only") {
  CHECK(mask_applies(".ssh/", ".ssh", true));
  CHECK_FALSE(mask_applies(".ssh/", ".ssh", false));
  CHECK(mask_applies(".ssh/", "home/.ssh", true));
  CHECK(mask_applies(".ssh/", "home/.ssh/id_ed25519", false));
  CHECK(mask_applies("secrets/", "a/secrets/b/c.txt", false));
  CHECK_FALSE(mask_applies("secrets/", "a/secrets", false));
}

TEST_CASE("mask_applies: a slash inside anchors at the project root") {
  CHECK(mask_applies("config/prod.env", "config/prod.env", false));
  CHECK_FALSE(mask_applies("config/prod.env", "x/config/prod.env", false));
  CHECK(mask_applies("/top.key", "top.key", false));
  CHECK_FALSE(mask_applies("/top.key", "sub/top.key", false));
  CHECK(mask_applies("config/*.json", "config/a.json", false));
  CHECK_FALSE(mask_applies("config/*.json", "config/sub/a.json", false));
  CHECK(mask_applies("config/private/", "config/private/x", false));
  CHECK(mask_applies("./x", "x", false) == false);  // rejected by check_mask_pattern anyway
  CHECK_FALSE(mask_applies("/", "x", false));
  CHECK_FALSE(mask_applies("*.pem", "", true));
}

TEST_CASE("the default project masks cover the usual secrets") {
  for (std::string_view p : {".env", ".env.production", "app/.env.local", "certs/server.pem", "tls/x.key",
                             "id_rsa", "keys/id_ed25519", "id_ecdsa.pub", ".npmrc", ".pypirc", ".netrc",
                             ".git-credentials", "infra/terraform.tfstate", "store.p12", ".pgpass"}) {
    CAPTURE(p);
    CHECK(covered_by_defaults(p, false));
  }
  for (std::string_view p : {".aws", ".ssh", "sub/.docker", ".kube", ".gnupg"}) {
    CAPTURE(p);
    CHECK(covered_by_defaults(p, true));
    CHECK(covered_by_defaults(std::string(p) + "/credentials", false));
  }
  for (std::string_view p : {"src/main.cpp", "README.md", ".gitignore", ".git/config", "environment.ts",
                             "keys.txt", "package.json", "Makefile", ".github/workflows/ci.yml"}) {
    CAPTURE(p);
    CHECK_FALSE(covered_by_defaults(p, false));
  }
  for (const auto& m : default_project_masks()) {
    CAPTURE(m.pattern);
    CHECK(check_mask_pattern(m.pattern));
    CHECK_FALSE(m.reason.empty());
  }
}

TEST_CASE("check_mask_pattern") {
  CHECK(check_mask_pattern("*.pem"));
  CHECK(check_mask_pattern("secrets/"));
  CHECK(check_mask_pattern("/anchored/x"));
  CHECK(check_mask_pattern("").error().message() == "mask \"\": empty pattern");
  CHECK(check_mask_pattern("/").error().message() == "mask \"/\": empty pattern");
  CHECK(check_mask_pattern("a//b").error().message() == "mask \"a//b\": empty path component");
  CHECK(check_mask_pattern("../x").error().message() ==
        "mask \"../x\": \".\" and \"..\" are not allowed (patterns are relative to the project)");
  CHECK_FALSE(check_mask_pattern("a/./b"));
  CHECK_FALSE(check_mask_pattern("a/.."));
  CHECK(check_mask_pattern("..x"));  // a name, not a component
}

TEST_CASE("system secrets: the host paths that must stay hidden") {
  for (std::string_view p :
       {"/etc/shadow", "/etc/gshadow", "/etc/shadow-", "/etc/gshadow-", "/etc/ssh/ssh_host_rsa_key",
        "/etc/ssh/ssh_host_ed25519_key", "/etc/sudoers", "/etc/sudoers.d", "/etc/security/opasswd",
        "/etc/ssl/private", "/etc/krb5.keytab", "/etc/wireguard", "/etc/NetworkManager/system-connections"}) {
    CAPTURE(p);
    CHECK(listed_secret(p));
  }
  for (std::string_view p : {"/etc/passwd", "/etc/group", "/etc/hosts", "/etc/resolv.conf", "/etc/machine-id",
                             "/etc/ssl/certs", "/etc/ld.so.cache", "/etc/ssh/ssh_host_rsa_key.pub"}) {
    CAPTURE(p);
    CHECK_FALSE(listed_secret(p));
  }
  for (const auto& s : system_secret_paths()) {
    CAPTURE(s.path);
    CHECK(s.path.starts_with("/etc/"));
    CHECK_FALSE(s.reason.empty());
    // A glob only in the last component: the engine expands it in one directory.
    CHECK_FALSE(has_glob(s.path.substr(0, s.path.rfind('/'))));
  }
}

TEST_CASE("autorun_reason: files host tools run later") {
  using rf::presets::autorun_reason;
  CHECK_FALSE(autorun_reason("sub/.git", true).empty());
  CHECK_FALSE(autorun_reason("a/b/.git", false).empty());  // a gitfile
  CHECK(autorun_reason(".git", true).empty());             // the top one: protected, not warned
  CHECK_FALSE(autorun_reason(".git/commondir", false).empty());
  CHECK_FALSE(autorun_reason("sub/.git/config", false).empty());  // inside a nested .git
  CHECK_FALSE(autorun_reason(".git/hooks/pre-commit", false).empty());
  CHECK(autorun_reason(".git/objects/ab/cdef", false).empty());
  CHECK_FALSE(autorun_reason(".envrc", false).empty());
  CHECK_FALSE(autorun_reason("deep/dir/.envrc", false).empty());
  CHECK_FALSE(autorun_reason(".vscode/tasks.json", false).empty());
  CHECK(autorun_reason("sub/.vscode/tasks.json", false).empty());
  CHECK_FALSE(autorun_reason(".github/workflows/ci.yml", false).empty());
  CHECK(autorun_reason(".github/workflows", true).empty());
  CHECK(autorun_reason("src/main.c", false).empty());
  CHECK(autorun_reason("README.md", false).empty());
}

TEST_CASE("masks: files whose format tells are covered only when they hold a secret") {
  using rf::presets::content_is_secret;
  using rf::presets::ContentCheck;
  CHECK_FALSE(
      content_is_secret(ContentCheck::Npmrc, "save-exact=true\n; comment\nregistry=https://r.example/\n"));
  CHECK(content_is_secret(ContentCheck::Npmrc, "//registry.npmjs.org/:_authToken=npm_abc\n"));
  CHECK(content_is_secret(ContentCheck::Npmrc, "  _auth = dXNlcjpwYXNz\n"));
  CHECK(content_is_secret(ContentCheck::Npmrc, "//r.example/:_password=cGFzcw==\n"));
  CHECK(content_is_secret(ContentCheck::Npmrc, "//r.example/:keyfile=/k.pem\n"));
  CHECK(content_is_secret(ContentCheck::Npmrc, std::string_view("save-exact=true\0\n", 17)));  // NUL: no text
  CHECK_FALSE(content_is_secret(ContentCheck::Pypirc,
                                "[distutils]\nindex-servers = pypi\n[pypi]\nusername = __token__\n"));
  CHECK(content_is_secret(ContentCheck::Pypirc, "[pypi]\nusername = __token__\npassword = pypi-AgEI\n"));
  CHECK_FALSE(content_is_secret(ContentCheck::Netrc, "machine example.com login bob\n"));
  CHECK(content_is_secret(ContentCheck::Netrc, "machine example.com\n  login bob\n  password hunter2\n"));
  CHECK(content_is_secret(ContentCheck::Netrc, "default account x"));
  CHECK_FALSE(
      content_is_secret(ContentCheck::Pem, "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"));
  CHECK(content_is_secret(ContentCheck::Pem,
                          "-----BEGIN CERTIFICATE-----\nA\n-----END CERTIFICATE-----\n"
                          "-----BEGIN RSA PRIVATE KEY-----\nB\n-----END RSA PRIVATE KEY-----\n"));
  CHECK(content_is_secret(ContentCheck::Pem, "-----BEGIN ENCRYPTED PRIVATE KEY-----\nB\n"));
  CHECK(content_is_secret(ContentCheck::Pem, "binary key material, no PEM armour"));
  // The defaults that carry a check.
  int checked = 0;
  for (const auto& m : rf::presets::default_project_masks())
    if (m.check != ContentCheck::None) ++checked;
  CHECK(checked == 4);
}

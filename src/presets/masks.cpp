// SPDX-License-Identifier: LGPL-2.1-or-later
// Secrets hidden on the host's system paths, the default project masks, and mask matching.
#include <fnmatch.h>

#include <cctype>
#include <initializer_list>
#include <string>

#include "ringfence/base/paths.hpp"
#include "ringfence/base/strings.hpp"
#include "ringfence/presets/masks.hpp"

namespace rf::presets {

namespace {

// Only /etc is listed: /usr holds no per-host secrets, and nothing else of the host is bound.
// /etc/machine-id stays visible: it identifies the host but grants nothing, it is readable by
// every user, and D-Bus, systemd and glib read it and fail or warn without it.
const std::vector<SecretPath> kSystemSecrets = {
    {"/etc/shadow", "password hashes"},
    {"/etc/shadow-", "password hashes (backup)"},
    {"/etc/gshadow", "group password hashes"},
    {"/etc/gshadow-", "group password hashes (backup)"},
    {"/etc/security/opasswd", "previous password hashes"},
    {"/etc/sudoers", "privilege rules"},
    {"/etc/sudoers.d", "privilege rules"},
    {"/etc/ssh/ssh_host_*_key", "SSH host private keys"},
    {"/etc/ssl/private", "TLS private keys"},
    {"/etc/pki/tls/private", "TLS private keys"},
    {"/etc/letsencrypt", "TLS certificates and their private keys"},
    {"/etc/krb5.keytab", "Kerberos host keys"},
    {"/etc/ipsec.secrets", "IPsec keys"},
    {"/etc/ipsec.d/private", "IPsec private keys"},
    {"/etc/wireguard", "WireGuard private keys"},
    {"/etc/openvpn", "VPN keys and credentials"},
    {"/etc/NetworkManager/system-connections", "Wi-Fi and VPN secrets"},
    {"/etc/wpa_supplicant", "Wi-Fi passphrases"},
    {"/etc/ppp/chap-secrets", "PPP credentials"},
    {"/etc/ppp/pap-secrets", "PPP credentials"},
    {"/etc/credstore", "systemd credentials"},
    {"/etc/credstore.encrypted", "systemd credentials"},
    {"/etc/sssd", "directory service bind credentials"},
    {"/etc/ldap.secret", "LDAP bind password"},
    {"/etc/mysql/debian.cnf", "database maintenance password"},
    {"/etc/postfix/sasl_passwd", "mail relay credentials"},
    {"/etc/kubernetes", "cluster admin credentials and CA keys"},
    {"/etc/rancher", "cluster admin credentials"},
    {"/etc/gitlab-runner", "CI runner tokens"},
    {"/etc/docker/key.json", "container daemon identity key"},
    {"/etc/environment", "system-wide variables (proxy credentials, tokens)"},
};

// .env.* covers .env.example too: masking a template costs little, missing .env.production
// costs a secret. .git/config is not masked (git needs it); PER-01 protects it another way.
const std::vector<Mask> kProjectMasks = {
    {".env", "environment file with secrets"},
    {".env.*", "environment files with secrets"},
    {".envrc", "direnv file with secrets"},
    {"*.pem", "private keys", ContentCheck::Pem},
    {"*.key", "private keys"},
    {"*.p12", "key stores"},
    {"*.pfx", "key stores"},
    {"*.jks", "Java key stores"},
    {"*.keystore", "key stores"},
    {"id_rsa*", "SSH keys"},
    {"id_dsa*", "SSH keys"},
    {"id_ecdsa*", "SSH keys"},
    {"id_ed25519*", "SSH keys"},
    {".npmrc", "registry tokens", ContentCheck::Npmrc},
    {".pypirc", "registry tokens", ContentCheck::Pypirc},
    {".netrc", "login credentials", ContentCheck::Netrc},
    {".git-credentials", "git credentials"},
    {".pgpass", "database passwords"},
    {".my.cnf", "database passwords"},
    {".htpasswd", "password hashes"},
    {".vault-token", "Vault token"},
    {"*.tfstate", "Terraform state (holds secrets in plain text)"},
    {"*.tfstate.backup", "Terraform state (holds secrets in plain text)"},
    {".terraformrc", "Terraform registry tokens"},
    {".aws/", "cloud credentials"},
    {".azure/", "cloud credentials"},
    {".gcloud/", "cloud credentials"},
    {".kube/", "cluster credentials"},
    {".docker/", "registry credentials"},
    {".ssh/", "SSH keys"},
    {".gnupg/", "GPG keys"},
};

// The key of an INI or npmrc line ("key = value", "//host/:_authToken=..."), lowercased and
// trimmed; empty for comments, sections and lines without '='.
std::string line_key(std::string_view line) {
  while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
  if (line.empty() || line.front() == '#' || line.front() == ';' || line.front() == '[') return {};
  const auto eq = line.find_first_of("=:");
  // npmrc keys hold ':' ("//registry/:_authToken"): the key runs to the '='.
  const auto key_end = line.find('=') != std::string_view::npos ? line.find('=') : eq;
  if (key_end == std::string_view::npos) return {};
  std::string key(line.substr(0, key_end));
  while (!key.empty() && (key.back() == ' ' || key.back() == '\t')) key.pop_back();
  for (char& c : key) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return key;
}

template <typename F>
void each_line(std::string_view text, F f) {
  for (std::size_t at = 0; at <= text.size();) {
    std::size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    f(text.substr(at, end - at));
    at = end + 1;
  }
}

bool ends_with_any(const std::string& key, std::initializer_list<std::string_view> suffixes) {
  for (auto s : suffixes)
    if (key.ends_with(s)) return true;
  return false;
}

}  // namespace

bool content_is_secret(ContentCheck check, std::string_view content) {
  if (content.find('\0') != std::string_view::npos) return true;  // not the text format it claims
  bool secret = false;
  switch (check) {
    case ContentCheck::None: return true;
    case ContentCheck::Npmrc:
      each_line(content, [&](std::string_view l) {
        const std::string k = line_key(l);
        secret = secret || ends_with_any(k, {"_authtoken", "_auth", "_password", "password", "certfile",
                                             "keyfile", "cert", "key", "token"});
      });
      return secret;
    case ContentCheck::Pypirc:
      each_line(content, [&](std::string_view l) {
        const std::string k = line_key(l);
        secret = secret || k == "password" || k.ends_with("token");
      });
      return secret;
    case ContentCheck::Netrc: {
      // Whitespace-separated tokens; "password" and "account" are followed by secrets.
      std::size_t at = 0;
      while (at < content.size() && !secret) {
        while (at < content.size() && std::isspace(static_cast<unsigned char>(content[at]))) ++at;
        std::size_t end = at;
        while (end < content.size() && !std::isspace(static_cast<unsigned char>(content[end]))) ++end;
        const std::string_view tok = content.substr(at, end - at);
        secret = tok == "password" || tok == "account" || tok == "macdef";
        at = end;
      }
      return secret;
    }
    case ContentCheck::Pem:
      return content.find("PRIVATE KEY-----") != std::string_view::npos ||
             content.find("-----BEGIN") == std::string_view::npos;  // not PEM at all: a key of another form
  }
  return true;
}

const std::vector<SecretPath>& system_secret_paths() { return kSystemSecrets; }
const std::vector<Mask>& default_project_masks() { return kProjectMasks; }

bool mask_matches(std::string_view pattern, std::string_view name) {
  return base::pattern_matches(pattern, name);
}

bool mask_applies(std::string_view pattern, std::string_view relpath, bool is_dir) {
  return base::pattern_applies(pattern, relpath, is_dir);
}

base::Status check_mask_pattern(std::string_view pattern) {
  std::string quoted = "mask \"" + std::string(pattern) + "\"";
  std::string_view body = pattern;
  while (body.starts_with("/")) body.remove_prefix(1);
  while (body.ends_with("/")) body.remove_suffix(1);
  if (body.empty()) return base::Error(0, quoted + ": empty pattern");
  if (body.find("//") != std::string_view::npos) return base::Error(0, quoted + ": empty path component");
  for (const auto& part : base::split(body, '/')) {
    if (part == "." || part == "..") {
      return base::Error(
          0, quoted + ": \".\" and \"..\" are not allowed (patterns are relative to the project)");
    }
  }
  return {};
}

bool has_glob(std::string_view pattern) { return pattern.find_first_of("*?[") != std::string_view::npos; }

}  // namespace rf::presets

// SPDX-License-Identifier: LGPL-2.1-or-later
// presets: the environment rebuild keeps exactly the allowlist, the agent's own variables and
// explicit --env items; every credential pattern of threat-model.md ENV-01/02 is dropped.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "ringfence/presets/presets.hpp"

using namespace rf::presets;

namespace {

// Credentials and hooks planted as canaries (threat-model.md ENV-01, ENV-02), and the patterns
// of agent-sandbox.md.
const std::vector<std::string> kCanaries = {
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_PROFILE",
    "AWS_REGION",
    "AWS_CONTAINER_CREDENTIALS_FULL_URI",
    "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
    "AWS_CONTAINER_AUTHORIZATION_TOKEN",
    "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE",
    "AWS_WEB_IDENTITY_TOKEN_FILE",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "AZURE_CLIENT_SECRET",
    "AZURE_CLIENT_ID",
    "AZURE_TENANT_ID",
    "GITHUB_TOKEN",
    "GH_TOKEN",
    "NPM_TOKEN",
    "NODE_AUTH_TOKEN",
    "VAULT_TOKEN",
    "STRIPE_API_KEY",
    "MY_SERVICE_KEY",
    "DB_PASSWORD",
    "APP_SECRET",
    "SLACK_TOKEN",
    "SSH_AUTH_SOCK",
    "GPG_AGENT_INFO",
    "DBUS_SESSION_BUS_ADDRESS",
    "DISPLAY",
    "WAYLAND_DISPLAY",
    "XDG_RUNTIME_DIR",
    "XDG_CONFIG_HOME",
    "KUBECONFIG",
    "DOCKER_HOST",
    "ACTIONS_ID_TOKEN_REQUEST_URL",
    "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
    "ACTIONS_RUNTIME_TOKEN",
    "CI_JOB_JWT",
    "NETRC",
    "GIT_ASKPASS",
    "SSH_ASKPASS",
    "GIT_CONFIG_COUNT",
    "GIT_CONFIG_KEY_0",
    "GIT_CONFIG_VALUE_0",
    "BASH_ENV",
    "ENV",
    "PROMPT_COMMAND",
    "LD_PRELOAD",
    "LD_LIBRARY_PATH",
    "LD_AUDIT",
    "TMPDIR",
    "EDITOR",
    "PWD",
    "OLDPWD",
    "HTTPS_PROXY",
    "http_proxy",
    "PYTHONPATH",
    "NODE_OPTIONS",
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "GEMINI_API_KEY",
    "CURSOR_API_KEY",
    "CLAUDE_CONFIG_DIR",
    "CODEX_HOME",
};

// The variables every run keeps.
const std::vector<std::string> kKept = {
    "PATH=/usr/bin:/bin",
    "TERM=xterm-256color",
    "COLORTERM=truecolor",
    "LANG=C.UTF-8",
    "LC_ALL=C.UTF-8",
    "LC_TIME=en_GB.UTF-8",
    "TZ=UTC",
    "USER=u",
    "LOGNAME=u",
    "SHELL=/bin/bash",
    "NO_COLOR=1",
    "CI=true",
    "LANGUAGE=en",
    "TERM_PROGRAM=vscode",
    "FORCE_COLOR=1",
    "TERM_PROGRAM_VERSION=1",
};

std::vector<std::string> host_env() {
  std::vector<std::string> env = kKept;
  for (const auto& name : kCanaries) env.push_back(name + "=canary-" + name);
  env.push_back("HOME=/home/u");
  return env;
}

std::vector<std::string> sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

std::vector<std::string> names_of(const std::vector<std::string>& env) {
  std::vector<std::string> out;
  for (const auto& kv : env) out.push_back(kv.substr(0, kv.find('=')));
  return out;
}

}  // namespace

TEST_CASE("generic: exactly the allowlist and HOME") {
  auto env = build_environment(host_env(), generic_agent(), {}, "/sandbox/home");
  std::vector<std::string> want = kKept;
  want.push_back("HOME=/sandbox/home");
  CHECK(env == sorted(want));
  for (const auto& kv : env) CHECK(kv.find("canary") == std::string::npos);
}

TEST_CASE("generic: every canary is reported dropped, by name only") {
  auto dropped = dropped_variables(host_env(), generic_agent(), {});
  CHECK(dropped == sorted(kCanaries));
  for (const auto& name : dropped) CHECK(name.find('=') == std::string::npos);
}

TEST_CASE("each agent adds only its own variables") {
  struct Case {
    std::string agent;
    std::vector<std::string> extra_host;  // the agent's own, besides the canaries
    std::vector<std::string> kept;        // names expected on top of the allowlist
  };
  const std::vector<Case> cases = {
      {"claude",
       {"ANTHROPIC_BASE_URL=https://x", "ANTHROPIC_MODEL=m", "CLAUDE_CODE_USE_BEDROCK=1",
        "CLAUDE_CODE_MAX_OUTPUT_TOKENS=1000", "ANTHROPIC_AUTH_TOKEN=t", "CLAUDE_CODE_OAUTH_TOKEN=t",
        "DISABLE_AUTOUPDATER=1", "CLAUDE_CODE_EXTRA_SECRET=s", "ANTHROPIC_OTHER_KEY=k"},
       {"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL", "ANTHROPIC_MODEL",
        "CLAUDE_CODE_MAX_OUTPUT_TOKENS", "CLAUDE_CODE_OAUTH_TOKEN", "CLAUDE_CODE_USE_BEDROCK",
        "DISABLE_AUTOUPDATER"}},
      {"codex",
       {"OPENAI_BASE_URL=https://x", "CODEX_API_KEY=k", "CODEX_QUIET_MODE=1", "OPENAI_ORG_ID=o"},
       {"CODEX_API_KEY", "CODEX_QUIET_MODE", "OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_ORG_ID"}},
      {"gemini",
       {"GOOGLE_API_KEY=k", "GOOGLE_GENAI_USE_VERTEXAI=true", "GOOGLE_CLOUD_PROJECT=p", "GEMINI_MODEL=m",
        "GOOGLE_OTHER=x"},
       {"GEMINI_API_KEY", "GEMINI_MODEL", "GOOGLE_API_KEY", "GOOGLE_CLOUD_PROJECT",
        "GOOGLE_GENAI_USE_VERTEXAI"}},
      {"cursor", {"CURSOR_AUTH_TOKEN=t", "CURSOR_CONFIG_DIR=/x"}, {"CURSOR_API_KEY", "CURSOR_AUTH_TOKEN"}},
      {"cline", {"CLINE_DIR=/x"}, {}},
  };
  for (const auto& c : cases) {
    CAPTURE(c.agent);
    std::vector<std::string> host = host_env();
    host.insert(host.end(), c.extra_host.begin(), c.extra_host.end());
    auto env = build_environment(host, *agent_by_name(c.agent), {}, "/h");
    std::vector<std::string> want = names_of(kKept);
    want.push_back("HOME");
    want.insert(want.end(), c.kept.begin(), c.kept.end());
    CHECK(names_of(env) == sorted(want));
    // What is not kept is reported, and nothing else.
    auto dropped = dropped_variables(host, *agent_by_name(c.agent), {});
    for (const auto& name : dropped) CHECK(std::find(want.begin(), want.end(), name) == want.end());
    CHECK(dropped.size() + want.size() - 1 == names_of(host).size() - 1);
  }
}

TEST_CASE("the agent's key passes with its value") {
  auto env = build_environment({"ANTHROPIC_API_KEY=sk-1", "OPENAI_API_KEY=sk-2"}, *agent_by_name("claude"),
                               {}, "/h");
  CHECK(env == std::vector<std::string>{"ANTHROPIC_API_KEY=sk-1", "HOME=/h"});
}

TEST_CASE("--env: K passes from the host, K=V sets, later wins, HOME stays") {
  std::vector<std::string> host = {"GITHUB_TOKEN=ght", "PATH=/bin", "EMPTY=", "HOME=/home/u"};
  auto env = build_environment(host, generic_agent(),
                               {"GITHUB_TOKEN", "FOO=bar", "FOO=baz", "PATH=/opt/bin", "MISSING", "EMPTY",
                                "HOME=/evil", "=x", "WITH=eq=sign"},
                               "/h");
  CHECK(env == std::vector<std::string>{"EMPTY=", "FOO=baz", "GITHUB_TOKEN=ght", "HOME=/h", "PATH=/opt/bin",
                                        "WITH=eq=sign"});
  CHECK(dropped_variables(host, generic_agent(), {"GITHUB_TOKEN", "EMPTY"}).empty());
  CHECK(dropped_variables(host, generic_agent(), {}) == std::vector<std::string>{"EMPTY", "GITHUB_TOKEN"});
}

TEST_CASE("host environ quirks: first duplicate wins, junk ignored") {
  auto env = build_environment({"PATH=/first", "PATH=/second", "noequals", "=novalue", "TERM=a=b"},
                               generic_agent(), {}, "/h");
  CHECK(env == std::vector<std::string>{"HOME=/h", "PATH=/first", "TERM=a=b"});
}

TEST_CASE("lower-case lookalikes of allowlisted names do not pass") {
  auto env = build_environment({"path=/x", "Lc_ALL=x", "lc_all=x", "LCX=1", "TERMINAL=1", "PATHS=1"},
                               generic_agent(), {}, "/h");
  CHECK(env == std::vector<std::string>{"HOME=/h"});
}

TEST_CASE("looks_like_credential") {
  for (std::string_view n : {"OPENAI_API_KEY", "X_TOKEN", "APP_SECRET", "DB_PASSWORD", "SMTP_PASSWD",
                             "GOOGLE_APPLICATION_CREDENTIALS", "CI_JOB_JWT", "MY_APIKEY", "X_AUTH", "PASS",
                             "github_token", "AWS_SECRET_ACCESS_KEY", "X_TOKEN_FILE", "X_PRIVATE_PEM"}) {
    CAPTURE(n);
    CHECK(looks_like_credential(n));
  }
  for (std::string_view n : {"PATH", "CLAUDE_CODE_MAX_OUTPUT_TOKENS", "ANTHROPIC_MODEL", "KEYBOARD",
                             "OPENAI_BASE_URL", "AUTHOR", "PASSTHROUGH"}) {
    CAPTURE(n);
    CHECK_FALSE(looks_like_credential(n));
  }
}

TEST_CASE("valid_env_name and check_env_arg") {
  CHECK(valid_env_name("A"));
  CHECK(valid_env_name("_a1"));
  CHECK_FALSE(valid_env_name(""));
  CHECK_FALSE(valid_env_name("1A"));
  CHECK_FALSE(valid_env_name("A-B"));
  CHECK_FALSE(valid_env_name("A B"));
  CHECK(check_env_arg("FOO"));
  CHECK(check_env_arg("FOO="));
  CHECK(check_env_arg("FOO=a=b"));
  CHECK(check_env_arg("").error().message() == "empty --env item (expected NAME or NAME=VALUE)");
  auto bad = check_env_arg("MY-KEY=sk-secret-value");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message() ==
        "bad variable name \"MY-KEY\" in --env (expected NAME or NAME=VALUE; NAME is letters, digits, _)");
  CHECK(bad.error().message().find("sk-secret") == std::string::npos);
  CHECK_FALSE(check_env_arg("=value"));
  CHECK(check_env_arg("HOME=/x").error().message() ==
        "--env HOME: HOME is always the sandbox's home directory");
}

TEST_CASE("the allowlist itself") {
  CHECK(env_allowlist_prefixes() == std::vector<std::string>{"LC_"});
  for (const auto& name : env_allowlist()) {
    CAPTURE(name);
    CHECK(valid_env_name(name));
    CHECK_FALSE(looks_like_credential(name));
    CHECK(name != "HOME");
  }
}

// SPDX-License-Identifier: LGPL-2.1-or-later
// The preset table of agent-sandbox.md as data; toggles over a preset; their stable text dumps.
#include <array>
#include <cstdint>

#include "ringfence/presets/presets.hpp"

namespace rf::presets {

namespace {

constexpr std::array<std::string_view, 3> kLevelNames = {"soft", "landlock", "kernel"};

// Balanced's process bound (threads count too): far above what parallel builds and agents use
// (make -j64 runs a few hundred processes; node, JVM and browser test runs a few hundred threads
// each), far below what a host allows (threads-max and the default RLIMIT_NPROC are tens of
// thousands on a machine with a few GB), so a fork bomb stops in the sandbox.
constexpr std::uint64_t kBalancedPids = 4096;

// Hardened and read-only: a bounded process count and descriptor table, and no core dumps.
// Balanced sets core=0 too: a crashing agent's dump holds its API key, and with a plain
// core_pattern it lands in the working directory, the project.
Limits confined_limits() {
  Limits l;
  l.pids = 512;
  l.nofile = 1024;
  l.core = 0;
  return l;
}

std::vector<Preset> make_presets() {
  std::vector<Preset> out;
  Preset trusted;
  trusted.name = PresetName::Trusted;
  trusted.id = "trusted";
  trusted.summary = "for people you fully trust: environment scrub and HOME redirect only";
  trusted.fs_jail = Level::Soft;
  trusted.seccomp = "default";
  out.push_back(trusted);

  Preset balanced;
  balanced.name = PresetName::Balanced;
  balanced.id = "balanced";
  balanced.summary = "the default: kernel jail, project writable, network under the connect policy";
  balanced.seccomp = "default";
  balanced.limits.core = 0;
  balanced.limits.pids = kBalancedPids;
  out.push_back(balanced);

  // Network off: a host-side web search would be the one way left to carry data out (in the
  // query), so it is off too.
  Preset hardened;
  hardened.name = PresetName::Hardened;
  hardened.id = "hardened";
  hardened.summary = "kernel jail, no network, strict seccomp, new session, limits, no ptrace";
  hardened.network = false;
  hardened.seccomp = "strict";
  hardened.web_search = false;
  hardened.new_session = true;
  hardened.ptrace = false;
  hardened.limits = confined_limits();
  out.push_back(hardened);

  // Stricter than hardened in every column of the table, so it keeps hardened's "other" too.
  Preset read_only = hardened;
  read_only.name = PresetName::ReadOnly;
  read_only.id = "read-only";
  read_only.summary = "hardened, and the project is read-only (review, analysis)";
  read_only.project_writable = false;
  out.push_back(read_only);

  // Untrusted build and test steps (CI): the project writable, the package registries and
  // nothing else on the network, limits, and never unconfined: a host that cannot give the
  // kernel jail fails the step instead of running it with less.
  Preset ci;
  ci.name = PresetName::Ci;
  ci.id = "ci";
  ci.summary = "untrusted build and test steps: kernel jail required, network to package registries only";
  ci.seccomp = "default";
  ci.web_search = false;
  ci.limits.core = 0;
  ci.limits.pids = kBalancedPids;
  ci.host_sets = {"npm", "pypi", "crates", "go", "debian", "github"};
  ci.require = Level::Kernel;
  out.push_back(ci);
  return out;
}

std::string on_off(bool v) { return v ? "on" : "off"; }
std::string yes_no(bool v) { return v ? "yes" : "no"; }

// The lines a preset and the settings made from it share.
std::string settings_lines(const Settings& s) {
  std::string limits = format_limits(s.limits);
  std::string out;
  out += "filesystem: " + std::string(s.fs_jail == Level::Soft ? "soft jail" : "kernel jail") + "\n";
  out += "project: " + std::string(s.project_writable ? "read-write" : "read-only") + "\n";
  out += "network: " + std::string(s.network ? "on (metadata endpoints always denied)" : "off") + "\n";
  out += "seccomp: " + s.seccomp + "\n";
  out += "shell: " + on_off(s.shell) + "\n";
  out += "web search: " + on_off(s.web_search) + "\n";
  out += "new session: " + yes_no(s.new_session) + "\n";
  out += "ptrace: " + std::string(s.ptrace ? "allowed" : "denied") + "\n";
  out += "limits: " + (limits.empty() ? std::string("none") : limits) + "\n";
  return out;
}

}  // namespace

std::string_view level_name(Level level) { return kLevelNames.at(static_cast<size_t>(level)); }

base::Result<Level> level_by_name(std::string_view name) {
  for (size_t i = 0; i < kLevelNames.size(); ++i) {
    if (kLevelNames[i] == name) return static_cast<Level>(i);
  }
  return base::Error(
      0, "unknown enforcement level \"" + std::string(name) + "\" (valid: kernel, landlock, soft)");
}

const std::vector<Preset>& all_presets() {
  static const std::vector<Preset> kPresets = make_presets();
  return kPresets;
}

const Preset& preset(PresetName name) { return all_presets().at(static_cast<size_t>(name)); }

const Preset& default_preset() { return preset(PresetName::Balanced); }

base::Result<Preset> preset_by_name(std::string_view name) {
  std::string valid;
  for (const auto& p : all_presets()) {
    if (p.id == name) return p;
    valid += (valid.empty() ? "" : ", ") + p.id;
  }
  return base::Error(0, "unknown preset \"" + std::string(name) + "\" (valid: " + valid + ")");
}

std::string describe(const Preset& p) {
  std::string out = "preset: " + p.id + (p.name == default_preset().name ? " (default)" : "") + "\n";
  out += "summary: " + p.summary + "\n";
  std::string text = settings_lines(resolve(p, Toggles{}));
  if (!p.host_sets.empty()) {
    std::string sets;
    for (const auto& h : p.host_sets) sets += (sets.empty() ? "" : ", ") + h;
    text += "allowlist: the host sets " + sets + " (--allow-host and --allow-hosts add more)\n";
  }
  if (p.require)
    text += "requires: the " + std::string(level_name(*p.require)) + " level (exit 123 below it)\n";
  return out + text;
}

Toggles merge(const Toggles& lower, const Toggles& higher) {
  Toggles out = lower;
  auto take = [](auto& into, const auto& from) {
    if (from) into = from;
  };
  take(out.fs_jail, higher.fs_jail);
  take(out.network, higher.network);
  take(out.edits, higher.edits);
  take(out.review, higher.review);
  take(out.shell, higher.shell);
  take(out.web_search, higher.web_search);
  take(out.new_session, higher.new_session);
  take(out.timeout, higher.timeout);
  take(out.keep_home, higher.keep_home);
  out.limits = merge(lower.limits, higher.limits);
  return out;
}

Settings resolve(const Preset& p, const Toggles& t) {
  Settings s;
  s.preset = p.name;
  s.fs_jail = t.fs_jail ? (*t.fs_jail ? Level::Kernel : Level::Soft) : p.fs_jail;
  s.project_writable = t.edits.value_or(p.project_writable);
  // A review run's project looks writable inside; an explicit edits=off wins (read-only).
  s.review = t.review.value_or(false) && t.edits.value_or(true);
  if (s.review) s.project_writable = true;
  s.network = t.network.value_or(p.network);
  s.seccomp = p.seccomp;
  s.shell = t.shell.value_or(p.shell);
  s.web_search = t.web_search.value_or(p.web_search);
  s.new_session = t.new_session.value_or(p.new_session);
  s.ptrace = p.ptrace;
  s.timeout = t.timeout;
  s.limits = merge(p.limits, t.limits);
  s.keep_home = t.keep_home.value_or(false);
  return s;
}

std::string describe(const Settings& s) {
  std::string out = "preset: " + preset(s.preset).id + "\n";
  out += settings_lines(s);
  out += "timeout: " + (s.timeout ? std::to_string(*s.timeout) + "s" : std::string("none")) + "\n";
  out += "keep home: " + yes_no(s.keep_home) + "\n";
  if (s.review) out += "edits: review (kept in a change set; the project is untouched)\n";
  return out;
}

}  // namespace rf::presets

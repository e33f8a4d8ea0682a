// SPDX-License-Identifier: LGPL-2.1-or-later
// The enforcement level the checks allow (agent-sandbox.md, "Enforcement levels") and what each
// preset reaches. The presets' aims mirror agent-sandbox.md's table (the probe layer may not
// include presets; a test compares the two).
#include <algorithm>
#include <array>

#include "observations.hpp"

namespace rf::probe {
namespace {

// What the kernel jail needs from the host: every namespace step of the engine's launch.
constexpr std::array kKernelChecks = {"userns",  "idmap",      "mountns",      "pidns_proc",
                                      "ipc_uts", "pivot_root", "no_new_privs", "seccomp"};

struct PresetAim {
  const char* name;
  Level aim;
  bool network_off;  // or allowlisted: either needs a network namespace of the sandbox's own
};
constexpr std::array<PresetAim, 5> kPresets = {{{"trusted", Level::Soft, false},
                                                {"balanced", Level::Kernel, false},
                                                {"hardened", Level::Kernel, true},
                                                {"read-only", Level::Kernel, true},
                                                {"ci", Level::Kernel, true}}};

bool is(const Report& r, const char* id, bool partial_ok = false) {
  const Check* c = find_check(r, id);
  return c && (c->available == Availability::Yes || (partial_ok && c->available == Availability::Partial));
}

bool landlock_ok(const Report& r) {
  return is(r, "landlock", true) && is(r, "seccomp") && is(r, "no_new_privs");
}

std::string reason(const Report& r) {
  for (const char* id : kKernelChecks) {
    const Check* c = find_check(r, id);
    if (!c) return std::string(id) + ": not checked";
    if (c->available != Availability::Yes) return c->layer + ": " + c->detail;
  }
  return {};
}

std::string preset_note(const Report& r, const PresetAim& p, Level reached) {
  std::vector<std::string> notes;
  if (p.aim == Level::Soft)
    notes.push_back("soft by design: environment scrub and HOME redirect only");
  else if (reached == Level::Soft)
    notes.push_back("NOT confined: reads by absolute path and writes outside the project are not stopped");
  if (reached == Level::Landlock) {
    notes.push_back(
        "files confined by Landlock rules, but project masks and the read-only .git/hooks do not apply and "
        "the "
        "host's pathname unix sockets are not protected; no namespaces, so this user's other processes stay "
        "visible");
    if (r.landlock_abi < 6)
      notes.push_back("no abstract-socket or signal scoping (Landlock ABI " + std::to_string(r.landlock_abi) +
                      ")");
  }
  if (p.network_off && p.aim == Level::Kernel && r.level == Level::Kernel && !is(r, "netns"))
    notes.push_back("network off needs a network namespace, which fails here");
  if (!p.network_off && !(is(r, "seccomp_notify") && is(r, "pidfd_getfd")))
    notes.push_back("no connect policy: it needs seccomp user notifications and pidfd_getfd");
  std::string s;
  for (const auto& n : notes) s += (s.empty() ? "" : "; ") + n;
  return s;
}

}  // namespace

std::string_view level_name(Level level) {
  switch (level) {
    case Level::Soft: return "soft";
    case Level::Landlock: return "landlock";
    case Level::Kernel: return "kernel";
  }
  return "soft";
}

std::string_view availability_name(Availability a) {
  switch (a) {
    case Availability::Yes: return "yes";
    case Availability::Partial: return "partial";
    case Availability::No: return "no";
  }
  return "no";
}

const Check* find_check(const Report& r, std::string_view id) {
  for (const auto& c : r.checks)
    if (c.id == id) return &c;
  return nullptr;
}

Level reachable(const Report& r, Level aim, bool network_off) {
  Level host = r.level;
  if (host == Level::Kernel && network_off && !is(r, "netns"))
    host = landlock_ok(r) ? Level::Landlock : Level::Soft;
  return std::min(aim, host);
}

void conclude(Report& r) {
  bool kernel =
      std::all_of(kKernelChecks.begin(), kKernelChecks.end(), [&r](const char* id) { return is(r, id); });
  r.level = kernel ? Level::Kernel : landlock_ok(r) ? Level::Landlock : Level::Soft;
  r.level_reason = reason(r);
  if (r.level == Level::Soft && find_check(r, "landlock"))
    r.level_reason +=
        (r.level_reason.empty() ? "" : "; ") + std::string("Landlock: ") + find_check(r, "landlock")->detail;
  r.presets.clear();
  for (const auto& p : kPresets) {
    Level reached = reachable(r, p.aim, p.network_off);
    r.presets.push_back({p.name, p.aim, reached, preset_note(r, p, reached)});
  }
}

std::string level_line(const Report& r, Level aim, bool network_off) {
  const Level reached = reachable(r, aim, network_off);
  std::string s = "level: " + std::string(level_name(reached));
  if (reached == aim) return aim == Level::Kernel ? s : s + " (as asked)";
  std::string why = r.level_reason;
  if (r.level >= aim) {  // only the network namespace is missing
    const Check* net = find_check(r, "netns");
    why = "network namespace + lo: " + (net ? net->detail : std::string("not checked"));
  }
  return s + ", not " + std::string(level_name(aim)) + " (" + why + "); `ringfence doctor` shows the fix";
}

}  // namespace rf::probe

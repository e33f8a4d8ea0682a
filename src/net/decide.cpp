// SPDX-License-Identifier: LGPL-2.1-or-later
// The decision: resolver exemptions, the metadata floor on every form of the address, then the
// most specific user rule for each address the destination really reaches.
#include <algorithm>
#include <cerrno>

#include "ringfence/net/decision.hpp"

namespace rf::net {

namespace {

Decision allow(std::string rule) {
  return Decision{Verdict::Allow, 0, std::move(rule), false, std::nullopt, false, {}};
}

Decision deny(int error, std::string rule) {
  return Decision{Verdict::Deny, error, std::move(rule), false, std::nullopt, false, {}};
}

// A mapped address is the IPv4 address itself (the kernel sends IPv4).
Address unmapped(const Address& a) {
  for (const auto& f : alternate_forms(a))
    if (f.via == Embedding::Mapped) return f.address;
  return a;
}

const FloorEntry* floor_match(const Address& a) {
  for (const auto& e : metadata_floor())
    if (e.net.contains(a)) return &e;
  return nullptr;
}

std::string floor_text(const FloorEntry& e) {
  return "metadata floor: " + format_cidr(e.net) + " (" + std::string(e.reason) + ")";
}

// Specificity of an address rule: prefix length on the IPv6 scale (an IPv4 /n is the mapped
// /96+n, so the embedded IPv4 is more specific than the IPv6 block embedding it), "*" below
// everything; then a rule with ports beats one without, and a narrower range a wider one.
struct Specificity {
  int prefix;
  int has_ports;
  std::int64_t narrowness;

  friend auto operator<=>(const Specificity&, const Specificity&) = default;
};

Specificity specificity(const Rule& r) {
  int prefix = -1;
  if (r.net) prefix = r.net->base.family == Family::V4 ? 96 + r.net->prefix : r.net->prefix;
  if (!r.ports) return {prefix, 0, 0};
  return {prefix, 1, -static_cast<std::int64_t>(r.ports->width())};
}

bool inet_rule_matches(const Rule& r, const Address& a) {
  if (r.kind != RuleKind::Inet) return false;
  if (r.ports && !r.ports->contains(a.port)) return false;
  return !r.net || r.net->contains(a);
}

// The better of two matching rules: the more specific; on a full tie, deny.
bool better(const Rule& candidate, const Rule* best) {
  if (best == nullptr) return true;
  auto a = specificity(candidate);
  auto b = specificity(*best);
  if (a != b) return a > b;
  return candidate.verdict == Verdict::Deny && best->verdict == Verdict::Allow;
}

// The best rule for one reached address: rules on the literal destination or on that address.
const Rule* best_rule(const Policy& p, const Address& literal, const Address* reached) {
  const Rule* best = nullptr;
  for (const auto& r : p.rules)
    if ((inet_rule_matches(r, literal) || (reached && inet_rule_matches(r, *reached))) && better(r, best))
      best = &r;
  return best;
}

Decision rule_decision(const Policy& p, const Rule* best) {
  if (best == nullptr) {
    Decision d =
        p.default_verdict == Verdict::Allow ? allow("default: allow") : deny(ECONNREFUSED, "default: deny");
    d.by_default = true;
    return d;
  }
  return best->verdict == Verdict::Allow ? allow(best->text) : deny(ECONNREFUSED, best->text);
}

// Every address the destination reaches must be allowed; with no alternate form that is the
// literal address alone.
Decision user_rules(const Policy& p, const Address& a, const std::vector<AlternateForm>& forms) {
  if (forms.empty()) return rule_decision(p, best_rule(p, a, nullptr));
  Decision first;
  for (std::size_t i = 0; i < forms.size(); ++i) {
    const Rule* best = best_rule(p, a, &forms[i].address);
    Decision d = rule_decision(p, best);
    if (best && !inet_rule_matches(*best, a)) d.via = forms[i];
    if (d.verdict == Verdict::Deny) return d;
    if (i == 0) first = d;
  }
  return first;
}

// The floor on the literal address, then on every alternate form.
std::optional<Decision> floor_decision(const Address& a, const std::vector<AlternateForm>& forms) {
  auto denial = [](const FloorEntry& e, std::optional<AlternateForm> via) {
    Decision d = deny(ECONNREFUSED, floor_text(e));
    d.floor = true;
    d.via = std::move(via);
    return d;
  };
  if (const FloorEntry* e = floor_match(a)) return denial(*e, std::nullopt);
  for (const auto& f : forms)
    if (const FloorEntry* e = floor_match(f.address)) return denial(*e, f);
  return std::nullopt;
}

bool resolver_exempt(const Policy& p, const Address& a) {
  if (a.port != 53) return false;
  return std::any_of(p.resolvers.begin(), p.resolvers.end(),
                     [&](const Address& r) { return unmapped(r).same_ip(unmapped(a)); });
}

Decision decide_inet(const Policy& p, const Destination& dest) {
  const Address& a = dest.inet;
  auto forms = alternate_forms(a);
  Decision d;
  if (resolver_exempt(p, a)) {
    d = allow("resolver: " + format_ip(unmapped(a)) + " port 53");
  } else if (auto floor = floor_decision(a, forms)) {
    d = std::move(*floor);
  } else {
    d = user_rules(p, a, forms);
  }
  if (d.verdict == Verdict::Allow && dest.fastopen)
    return deny(EOPNOTSUPP, "TCP Fast Open sends are refused (connect first)");
  return d;
}

Decision decide_abstract(const Policy& p, const std::string& name) {
  // A rule naming this socket beats "unix-abstract:*"; on a tie, deny.
  auto better_abstract = [](const Rule& r, const Rule* best) {
    if (best == nullptr) return true;
    if (r.name.has_value() != best->name.has_value()) return r.name.has_value();
    return r.verdict == Verdict::Deny && best->verdict == Verdict::Allow;
  };
  const Rule* best = nullptr;
  for (const auto& r : p.rules) {
    if (r.kind != RuleKind::UnixAbstract || (r.name && *r.name != name)) continue;
    if (better_abstract(r, best)) best = &r;
  }
  if (best == nullptr)
    return deny(ECONNREFUSED, "unix abstract sockets are denied unless a rule allows them");
  return best->verdict == Verdict::Allow ? allow(best->text) : deny(ECONNREFUSED, best->text);
}

std::string none_text(NoDestination n) {
  switch (n) {
    case NoDestination::Disconnect: return "no destination: disconnect";
    case NoDestination::ConnectedPeer: return "no destination: the connected peer";
    case NoDestination::Ignored: return "no destination: the call ignores the address";
  }
  return "no destination";
}

}  // namespace

Decision decide(const Policy& policy, const Destination& dest) {
  switch (dest.kind) {
    case DestinationKind::Inet: return decide_inet(policy, dest);
    case DestinationKind::Unix:
      if (dest.unix_form == UnixForm::Path) return allow("unix path socket: left to the filesystem");
      return decide_abstract(policy, dest.unix_name);
    case DestinationKind::Unspec: return allow(none_text(dest.none));
    case DestinationKind::Other: break;
  }
  return deny(EAFNOSUPPORT, "address family " + std::to_string(dest.family) + " is not allowed");
}

}  // namespace rf::net

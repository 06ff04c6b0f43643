// Lock-bound (paper section 5.3.4: the runtime lock is part of state-update communication, and of
// the decision to animate when a core must wait for it before the assigner): cores spend much of
// their overhead waiting for the runtime lock, though the units are not too small for one core
// (those are unit-size's, waits and all: bigger units cure both). The one lock serves too many
// cores for this grain. The loss is what fewer construct calls would save: the lock wait,
// wherever it happened, and the runtime's own work for each call. A language that names lock
// domains has a lock per domain: the hint then names the domain most of the wait was for, in the
// program's words (format 3.4's lock handoffs), since spreading the calls over domains cures it too.
#include <algorithm>
#include <map>

#include "output/text_format.h"
#include "analyses/report/analysis.h"

namespace moirai::visualize::report {
namespace {

constexpr double kLockShare = 0.30;  // of all overhead, lock wait included
constexpr double kDomainShare = 0.5;  // of the handoffs' wait: "the" contended domain

// Contended is the named lock domain the handoffs waited for most, and its share of their wait.
struct Contended {
  std::string name;
  double share = 0;
};

Contended contended_domain(const trace::Trace& trace) {
  std::map<std::uint16_t, std::uint64_t> waited;
  std::uint64_t all = 0;
  for (const trace::Trace::LockHandoff& handoff : trace.lock_handoffs) {
    const std::uint64_t ticks = handoff.record.acquired - handoff.record.waited;
    waited[handoff.record.domain] += ticks;
    all += ticks;
  }
  Contended top;
  std::uint64_t most = 0;
  for (const auto& [domain, ticks] : waited) {
    if (domain == 0 || ticks <= most) continue;
    most = ticks;
    auto named = trace.lock_domains.find(domain);
    top.name = named != trace.lock_domains.end() ? named->second.name : "lock domain " + std::to_string(domain);
  }
  if (all != 0) top.share = static_cast<double>(most) / static_cast<double>(all);
  return top;
}

void run(const Analysis& a, Ledger& ledger, RuleOutput& out) {
  std::uint64_t overhead = 0, lock = 0;
  for (const LossEntry& e : a.entries) {
    if (!is_overhead(e.kind)) continue;
    overhead += e.ticks;
    if (e.kind == LossKind::lock_wait && e.owner == kNone) lock += e.ticks;
  }
  if (overhead == 0 || static_cast<double>(lock) <= kLockShare * static_cast<double>(overhead)) return;
  if (static_cast<double>(per_unit_overhead(a.entries)) > kUnitsTooSmall * static_cast<double>(a.work)) return;
  std::vector<std::uint32_t> cores;
  const std::uint64_t waited = ledger.claim_kind(LossKind::lock_wait, cores);
  std::uint64_t own = 0;
  for (std::size_t i = 0; i < a.entries.size(); ++i) {
    if (per_call(a.entries[i].kind)) own += ledger.claim(i);
  }
  const Contended domain = contended_domain(a.trace);
  if (!domain.name.empty()) {
    const bool most = domain.share >= kDomainShare;
    out.hints.push_back(make_hint(
        "lock-contention",
        "waiting for runtime locks took " + a.ms(waited) + " of core time (" + detail::fixed(100 * a.share(waited), 1) +
            "% of it, " + detail::fixed(100.0 * static_cast<double>(lock) / static_cast<double>(overhead), 1) +
            "% of the runtime overhead) on " + a.words.core_set(cores) + ", " +
            detail::fixed(100 * domain.share, 1) + "% of it for " + domain.name +
            ", and the constructs' own work " + a.ms(own) + ": too many construct calls at once " +
            (most ? "on " + domain.name + "; do more work per unit (fewer calls), or spread the calls over more domains"
                  : "on several domains; do more work per unit (fewer calls), or run on fewer cores"),
        cores, 0, a.makespan, a.busiest_site(), waited + own));
    return;
  }
  out.hints.push_back(make_hint(
      "lock-contention",
      "waiting for the runtime lock took " + a.ms(waited) + " of core time (" + detail::fixed(100 * a.share(waited), 1) +
          "% of it, " + detail::fixed(100.0 * static_cast<double>(lock) / static_cast<double>(overhead), 1) +
          "% of the runtime overhead) on " + a.words.core_set(cores) + ", and the constructs' own work " + a.ms(own) +
          ": too many construct calls at once for one runtime lock; do more work per unit (fewer calls), or run on fewer cores",
      cores, 0, a.makespan, a.busiest_site(), waited + own));
}

}  // namespace

extern const Rule rule_lock_bound{40, "lock-contention", run};

}  // namespace moirai::visualize::report

// Units too small (paper section 3.4.3, StarSs-style): the runtime's own work per unit, without
// lock waits, is a large share of the units' work: the units would be too small on one core. The
// loss is that overhead and, on many cores, the lock waits of their constructs: bigger units
// remove both (lock-contention is left the waits of units that are not too small). It is also
// the idle of cores whose partners were late because of that overhead: an idle span whose
// releasing chain of units spent most of it in the runtime, not working (a ring of tiny steps,
// where every core waits for a neighbour that is itself between units); bigger units shorten the
// chain's overhead and so the wait. The hint names the call site that ends most units.
#include <algorithm>

#include "output/text_format.h"
#include "analyses/report/analysis.h"

namespace moirai::visualize::report {
namespace {

// An idle span belongs to the units' size when the chain that released it worked for less than
// this share of it: the partners were late because of the runtime's overhead between their units.
constexpr double kChainWork = 0.5;

// mean_work renders the mean work of a unit: units worth this hint are often a few microseconds,
// which milliseconds at three digits would show as 0.000, or a few nanoseconds (a ring of tiny
// steps), which microseconds would.
std::string mean_work(const Analysis& a) {
  if (a.trace.units.empty() || !(a.trace.clock_hz > 0)) return a.ms(0);
  const double seconds = static_cast<double>(a.work) / static_cast<double>(a.trace.units.size()) / a.trace.clock_hz;
  if (seconds >= 1e-4) return detail::fixed(seconds * 1e3, 3) + " ms";
  return seconds >= 1e-8 ? detail::fixed(seconds * 1e6, 2) + " us" : detail::fixed(seconds * 1e9, 1) + " ns";
}

void run(const Analysis& a, Ledger& ledger, RuleOutput& out) {
  const std::uint64_t overhead = per_unit_overhead(a.entries);
  if (a.work == 0 || static_cast<double>(overhead) <= kUnitsTooSmall * static_cast<double>(a.work)) return;
  std::uint64_t lost = 0, lock = 0, waited = 0;
  for (std::size_t i = 0; i < a.entries.size(); ++i) {
    const LossEntry& e = a.entries[i];
    if (e.kind == LossKind::idle && e.owner == kNone) {
      const Analysis::HeldBy held = a.held_by(e);
      if (held.span > 0 && static_cast<double>(held.work) < kChainWork * static_cast<double>(held.span)) waited += ledger.claim(i);
      continue;
    }
    if (!per_call(e.kind) && e.kind != LossKind::lock_wait) continue;
    const std::uint64_t took = ledger.claim(i);
    lost += took;
    if (e.kind == LossKind::lock_wait) lock += took;
  }
  lost += waited;
  const double per_core = static_cast<double>(a.trace.units.size()) / std::max<std::uint32_t>(a.trace.core_count, 1);
  out.hints.push_back(make_hint(
      "unit-size",
      "units are too small: the runtime's overhead (without lock wait) is " +
          detail::fixed(100.0 * static_cast<double>(overhead) / static_cast<double>(a.work), 1) + "% of work (" +
          detail::fixed(per_core, 1) + " units per core, mean work " + mean_work(a) +
          ")" + (20 * lock >= lost ? ", and their constructs waited " + a.ms(lock) + " for the runtime lock" : std::string()) +
          (20 * waited >= lost ? "; cores sat idle " + a.ms(waited) + " waiting for other " + a.words.vps + ", late because of that overhead, not of work" : std::string()) + "; " +
          a.words.unit_size_cure + " (trigger: overhead above " + detail::fixed(kUnitsTooSmall * 100, 0) + "% of work)",
      {}, 0, a.makespan, a.busiest_site(), lost));
}

}  // namespace

extern const Rule rule_unit_size{50, "unit-size", run};

}  // namespace moirai::visualize::report

// Lock-bound (paper section 5.3.4: the runtime lock is part of state-update communication, and of
// the decision to animate when a core must wait for it before the assigner): cores spend much of
// their overhead waiting for the runtime lock. The loss is the lock wait, wherever it happened;
// unit-size measures the rest of the overhead, so the two never count the same tick.
#include "views/text_format.h"
#include "analyses/report/analysis.h"

namespace moirai::visualize::report {
namespace {

constexpr double kLockShare = 0.30;  // of all overhead, lock wait included

void run(const Analysis& a, Ledger& ledger, RuleOutput& out) {
  std::uint64_t overhead = 0, lock = 0;
  for (const LossEntry& e : a.entries) {
    if (!is_overhead(e.kind)) continue;
    overhead += e.ticks;
    if (e.kind == LossKind::lock_wait && e.owner == kNone) lock += e.ticks;
  }
  if (overhead == 0 || static_cast<double>(lock) <= kLockShare * static_cast<double>(overhead)) return;
  std::vector<std::uint32_t> cores;
  const std::uint64_t lost = ledger.claim_kind(LossKind::lock_wait, cores);
  out.hints.push_back(make_hint(
      "lock-contention",
      "waiting for the runtime lock took " + a.ms(lost) + " of core time (" + detail::fixed(100 * a.share(lost), 1) +
          "% of it, " + detail::fixed(100.0 * static_cast<double>(lock) / static_cast<double>(overhead), 1) +
          "% of the runtime overhead) on " + detail::core_set(cores) + ": too many construct calls at once; do more work per unit (fewer calls), or run on fewer cores",
      cores, 0, a.makespan, a.busiest_site(), lost));
}

}  // namespace

extern const Rule rule_lock_bound{40, "lock-contention", run};

}  // namespace moirai::visualize::report

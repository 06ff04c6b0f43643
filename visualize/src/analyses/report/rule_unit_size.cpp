// Units too small (paper section 3.4.3, StarSs-style): the runtime's own work per unit, without
// the lock wait (lock-contention's), is a large share of the units' work. The loss is that
// overhead; the hint names the call site that ends most units.
#include <algorithm>

#include "views/text_format.h"
#include "analyses/report/analysis.h"

namespace moirai::visualize::report {
namespace {

constexpr double kTooSmall = 0.20;  // overhead without lock wait, of work

// per_unit says whether an overhead kind is paid per unit. Lock waits are lock-contention's and
// wake-ups are the idle cores': units of any size pay them when cores collide or wait.
bool per_unit(LossKind kind) { return is_overhead(kind) && kind != LossKind::lock_wait && kind != LossKind::wake_up; }

// mean_work renders the mean work of a unit: units worth this hint are often a few microseconds,
// which milliseconds at three digits would show as 0.000.
std::string mean_work(const Analysis& a) {
  if (a.trace.units.empty() || !(a.trace.clock_hz > 0)) return a.ms(0);
  const double seconds = static_cast<double>(a.work) / static_cast<double>(a.trace.units.size()) / a.trace.clock_hz;
  return seconds >= 1e-4 ? detail::fixed(seconds * 1e3, 3) + " ms" : detail::fixed(seconds * 1e6, 2) + " us";
}

void run(const Analysis& a, Ledger& ledger, RuleOutput& out) {
  std::uint64_t overhead = 0;
  for (const LossEntry& e : a.entries) {
    if (per_unit(e.kind)) overhead += e.ticks;
  }
  if (a.work == 0 || static_cast<double>(overhead) <= kTooSmall * static_cast<double>(a.work)) return;
  std::uint64_t lost = 0;
  for (std::size_t i = 0; i < a.entries.size(); ++i) {
    if (per_unit(a.entries[i].kind)) lost += ledger.claim(i);
  }
  const double per_core = static_cast<double>(a.trace.units.size()) / std::max<std::uint32_t>(a.trace.core_count, 1);
  out.hints.push_back(make_hint(
      "unit-size",
      "units are too small: the runtime's overhead (without lock wait) is " +
          detail::fixed(100.0 * static_cast<double>(overhead) / static_cast<double>(a.work), 1) + "% of work (" +
          detail::fixed(per_core, 1) + " units per core, mean work " + mean_work(a) +
          "); " + a.words.unit_size_cure + " (trigger: overhead above " +
          detail::fixed(kTooSmall * 100, 0) + "% of work)",
      {}, 0, a.makespan, a.busiest_site(), lost));
}

}  // namespace

extern const Rule rule_unit_size{50, "unit-size", run};

}  // namespace moirai::visualize::report

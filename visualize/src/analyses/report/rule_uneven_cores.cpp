// Uneven cores (not a pattern of the program): the cores ran the same declared work at different
// speeds. On a VM the hypervisor can give a vCPU less of a host CPU without the guest's OS seeing
// it as time taken (machine-busy sees only what the guest's OS took), and a big.LITTLE machine's
// cores differ by design. Then, with work placed evenly, the faster cores wait for the slower:
// the tail or the starved core a rule names below is the machine's as much as the program's. The
// speed of a core is the median, over its units that declared work (charge_work), of measured
// work per declared cycle; only big units count (a tenth of the largest declared or more),
// since a small unit's time is mostly its switch and probe. Claims nothing: a warning.
#include <algorithm>
#include <string>
#include <vector>

#include "output/text_format.h"
#include "analyses/report/analysis.h"

namespace moirai::visualize::report {
namespace {

constexpr double kUneven = 1.15;          // slowest core / fastest core
constexpr std::size_t kUnitsPerCore = 3;  // big units a core needs for its speed to count
constexpr double kBigUnit = 0.1;          // of the largest declared work

void run(const Analysis& a, Ledger&, RuleOutput& out) {
  std::uint64_t largest = 0;
  for (const trace::Unit& u : a.trace.units) largest = std::max(largest, u.declared);
  if (largest == 0) return;
  struct Speed {
    std::uint32_t core;
    double ticks_per_cycle;
    std::size_t units;
  };
  std::vector<Speed> speeds;
  for (std::uint32_t core = 0; core < a.units_on_core.size(); ++core) {
    std::vector<double> ratios;
    for (std::uint32_t index : a.units_on_core[core]) {
      const trace::Unit& u = a.unit(index);
      if (static_cast<double>(u.declared) < kBigUnit * static_cast<double>(largest) || u.work() == 0) continue;
      ratios.push_back(static_cast<double>(u.work()) / static_cast<double>(u.declared));
    }
    if (ratios.size() < kUnitsPerCore) continue;
    auto middle = ratios.begin() + static_cast<std::ptrdiff_t>(ratios.size() / 2);
    std::nth_element(ratios.begin(), middle, ratios.end());
    speeds.push_back({core, *middle, ratios.size()});
  }
  if (speeds.size() < 2) return;
  const auto [fast, slow] = std::minmax_element(speeds.begin(), speeds.end(),
                                                [](const Speed& x, const Speed& y) { return x.ticks_per_cycle < y.ticks_per_cycle; });
  const double ratio = slow->ticks_per_cycle / fast->ticks_per_cycle;
  if (ratio < kUneven) return;
  const auto clock = a.trace.metadata.find("clock_source");
  const bool simulated = clock != a.trace.metadata.end() && clock->second == "virtual";
  const std::string why = simulated ? "(the simulated machine's cost model spreads its cores' speeds: core_spread)."
                                     : "(on a VM the hypervisor may give a vCPU less of its CPU than the others, unseen by the "
                                       "guest's OS). Rerun to compare.";
  out.warnings.push_back(
      "cores ran at different speeds: core " + std::to_string(slow->core) + " took " + detail::fixed(ratio, 2) +
      "x as long per declared cycle as core " + std::to_string(fast->core) + " (the median of " + std::to_string(slow->units) +
      " and " + detail::plural(fast->units, "big unit") +
      " that declared their work). With work placed evenly the faster cores wait for the slower: an idle tail or a "
      "starved core below is the machine's as much as the program's " + why +
      " The cure: balance the work as it runs (an assigner that gives the next piece to whichever core is free) rather "
      "than placing it evenly up front.");
}

}  // namespace

extern const Rule rule_uneven_cores{2, "uneven-cores", run};

}  // namespace moirai::visualize::report

// An idle tail (paper section 3.4.2): cores that worked run out of units well before the end,
// because the last wave has fewer units than cores. Cores that never worked are not a tail
// (unused-cores).
#include <algorithm>

#include "../text_format.h"
#include "analysis.h"

namespace moirai::visualize::report {
namespace {

constexpr double kIdleTail = 0.10;  // idle for the last 10% of the run or more

void run(const Analysis& a, Ledger& ledger, RuleOutput& out) {
  std::vector<std::uint32_t> cores;
  std::uint64_t lost = 0, longest = 0;
  for (std::size_t i = 0; i < a.entries.size(); ++i) {
    const LossEntry& e = a.entries[i];
    if (e.kind != LossKind::run_end || e.owner != kNone || a.core_work[e.core] == 0) continue;
    if (static_cast<double>(e.end - e.begin) < kIdleTail * static_cast<double>(a.makespan)) continue;
    const std::uint64_t length = e.end - e.begin;
    const std::uint32_t core = e.core;
    lost += ledger.claim(i);
    cores.push_back(core);
    longest = std::max(longest, length);
  }
  if (lost == 0) return;
  out.hints.push_back(make_hint(
      "idle-tail",
      detail::core_set(cores) + " idle at the end, up to " + a.ms(longest) +
          ": too few units remain for the last wave; try a number of pieces that fills every core (paper 3.4.2)",
      cores, a.makespan - longest, a.makespan, "", lost));
}

}  // namespace

extern const Rule rule_idle_tail{70, "idle-tail", run};

}  // namespace moirai::visualize::report

// Waking cores (paper section 5.3.4: runtime overhead): a core that makes work for an idle core
// wakes it after the runtime lock, and waking a core that idled past the runtime's spin (it has
// parked) is a kernel call that the waking core pays, tens of microseconds on a VM. The loss is
// the recorded wake-up chores (trace format 3.2); the site is the construct call whose handler
// made the work that cost the most wake-up time.
#include <algorithm>
#include <map>

#include "output/text_format.h"
#include "analyses/report/analysis.h"

namespace moirai::visualize::report {
namespace {

constexpr double kParkedSeconds = 5e-6;  // a wake-up this long woke a parked core (a spinning one: under 1 us)

void run(const Analysis& a, Ledger& ledger, RuleOutput& out) {
  const trace::Trace& trace = a.trace;
  const auto parked_ticks = static_cast<std::uint64_t>(kParkedSeconds * trace.clock_hz);
  std::map<std::string, std::uint64_t> ticks_by_site;  // the construct whose handler made the work
  std::uint64_t wake_ups = 0, parked = 0;
  for (const trace::Trace::ChoreSpan& chore : trace.chores) {
    if (chore.record.chore != static_cast<std::uint16_t>(Chore::wake_up) || chore.core >= trace.core_count) continue;
    const std::uint64_t ticks = chore.record.end - chore.record.begin;
    ++wake_ups;
    parked += ticks >= parked_ticks;
    // The unit whose handler ran last before the chore on its core made the work.
    const auto& units = a.units_on_core[chore.core];
    const auto after = std::partition_point(units.begin(), units.end(), [&](std::uint32_t u) {
      return trace.units[u].record.handler_end <= chore.record.begin;
    });
    ticks_by_site[after == units.begin() ? std::string() : a.site_of(*(after - 1))] += ticks;
  }
  if (wake_ups == 0) return;
  std::vector<std::uint32_t> cores;
  const std::uint64_t lost = ledger.claim_kind(LossKind::wake_up, cores);
  if (lost == 0) return;
  const auto site = std::max_element(ticks_by_site.begin(), ticks_by_site.end(),
                                     [](const auto& x, const auto& y) { return x.second < y.second; });
  out.hints.push_back(make_hint(
      "waking-cores",
      a.words.core_set(cores) + " spent " + a.ms(lost) + " (" + detail::fixed(100 * a.share(lost), 1) +
          "% of the core time) waking the cores they made work for: " + std::to_string(wake_ups) + " wake-ups, " +
          std::to_string(parked) + " of them of a parked core (one that idled past the runtime's spin: waking it is a "
          "kernel call its waker pays); give the idle cores their work in fewer, larger pieces, or before they idle "
          "that long (paper 5.3.4)",
      cores, 0, a.makespan, site->first, lost));
}

}  // namespace

extern const Rule rule_waking_cores{45, "waking-cores", run};

}  // namespace moirai::visualize::report

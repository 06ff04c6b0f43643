// The biggest remaining cause of idle time (paper section 3.3.2: an idle block ends where a
// constraint line arrives): one construct at one call site whose satisfaction ended much idle
// time that no named pattern explained. Ranked with the others by its loss.
#include <algorithm>
#include <map>
#include <tuple>

#include "output/text_format.h"
#include "analyses/report/analysis.h"

namespace moirai::visualize::report {
namespace {

constexpr double kIdleCause = 0.10;  // idle core-ticks over 10% of the makespan

void run(const Analysis& a, Ledger& ledger, RuleOutput& out) {
  std::map<std::pair<std::string, std::string>, std::uint64_t> causes;
  for (const LossEntry& e : a.entries) {
    if (e.kind != LossKind::idle || e.owner != kNone || e.freed_by == kNone) continue;
    causes[{a.construct_of(e), a.site_of(a.freeing_unit(e))}] += e.ticks;
  }
  // The most idle time; on a tie the first by name, so the text does not depend on the order.
  const auto top = std::max_element(causes.begin(), causes.end(), [](const auto& x, const auto& y) { return x.second < y.second; });
  if (top == causes.end() || static_cast<double>(top->second) <= kIdleCause * static_cast<double>(a.makespan)) return;
  const auto [construct, site] = top->first;
  std::uint64_t lost = 0;
  std::vector<std::uint32_t> cores, freeing_cores;
  std::vector<std::uint64_t> freeing_units;  // the late arrivals, for the what-if that evens their work out
  ConstructRole role = ConstructRole::other;
  for (std::size_t i = 0; i < a.entries.size(); ++i) {
    const LossEntry& e = a.entries[i];
    if (e.kind != LossKind::idle || e.owner != kNone || e.freed_by == kNone) continue;
    if (a.construct_of(e) != construct || a.site_of(a.freeing_unit(e)) != site) continue;
    cores.push_back(e.core);
    if (const std::uint32_t freeing = a.freeing_unit(e); freeing != kNone) {
      freeing_cores.push_back(a.unit(freeing).core);
      freeing_units.push_back(a.unit(freeing).record.unit);
    }
    role = a.trace.construct_role(a.trace.constraints[e.freed_by].construct);
    lost += ledger.claim(i);
  }
  Hint& hint = out.hints.emplace_back(make_hint(
      "idle-cause",
      a.words.core_set(cores) + " sat idle " + a.ms(lost) + " in all (" + detail::fixed(100 * a.share(lost), 1) +
          "% of the cores' time) until a " + construct +
          (freeing_cores.empty() ? std::string() : " on " + a.words.core_set(freeing_cores)) + " freed them: " + a.words.idle_cure(construct, role, site),
      cores, 0, a.makespan, site, lost));
  // A wait for one's turn in an exclusive section is bound by that section's constraints: the
  // construct names the what-if that frees them (replay's unchain).
  if (role == ConstructRole::exclusive_end) hint.construct = construct;
  // Otherwise the units that freed them were late: the what-if evens each one's work out with
  // the units that waited for it (replay's even).
  std::sort(freeing_units.begin(), freeing_units.end());
  freeing_units.erase(std::unique(freeing_units.begin(), freeing_units.end()), freeing_units.end());
  hint.units = std::move(freeing_units);
}

}  // namespace

extern const Rule rule_idle_cause{90, "idle-cause", run};

}  // namespace moirai::visualize::report

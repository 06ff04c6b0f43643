// A singleton whose body ran late (paper section 3.4.6): the VP granted the singleton waited on
// its core behind other VPs' work, while VPs that reached the singleton after it waited for its
// end. Premise: other work did run there first, and somebody waited; the loss is only their wait
// inside that delay (a late body nobody waited for costs nothing).
#include <algorithm>
#include <map>

#include "output/text_format.h"
#include "analyses/report/analysis.h"

namespace moirai::visualize::report {
namespace {

void run(const Analysis& a, Ledger& ledger, RuleOutput& out) {
  const trace::Trace& trace = a.trace;
  // Late bodies: unit index of the body -> the grant.
  std::map<std::uint32_t, const trace::ConstraintRecord*> late;
  for (const trace::ConstraintRecord& c : trace.constraints) {
    if (trace.construct_role(c.construct) != ConstructRole::exclusive) continue;
    auto body = a.unit_index.find(c.to);
    if (body == a.unit_index.end() || a.unit(body->second).record.begin <= c.time) continue;
    late[body->second] = &c;
  }
  if (late.empty()) return;
  std::map<std::uint32_t, std::uint64_t> by_body;
  std::map<std::uint32_t, std::vector<std::uint32_t>> waiting_cores;
  const std::size_t count = a.entries.size();
  for (std::size_t i = 0; i < count; ++i) {
    const LossEntry e = a.entries[i];
    if (e.kind != LossKind::idle || e.owner != kNone || e.freed_by == kNone) continue;
    if (trace.construct_role(trace.constraints[e.freed_by].construct) != ConstructRole::exclusive_end) continue;
    const std::uint32_t body = a.freeing_unit(e);
    auto grant = late.find(body);
    if (grant == late.end()) continue;
    const std::uint64_t got = ledger.claim_within(i, grant->second->time, a.unit(body).record.begin);
    if (got == 0) continue;
    by_body[body] += got;
    waiting_cores[body].push_back(e.core);
  }
  std::uint64_t lost = 0;
  for (const auto& [body, ticks] : by_body) lost += ticks;
  if (lost == 0) return;
  const auto worst = std::max_element(by_body.begin(), by_body.end(), [](const auto& x, const auto& y) { return x.second < y.second; });
  const std::uint32_t body = worst->first;
  const trace::Unit& unit = a.unit(body);
  const trace::ConstraintRecord& grant = *late.at(body);
  std::uint64_t others = 0;  // units of other VPs that ran first on the body's core
  for (std::uint32_t index : a.units_on_core[unit.core]) {
    const trace::UnitRecord& r = a.unit(index).record;
    if (r.vp != unit.record.vp && r.begin >= grant.time && r.begin < unit.record.begin) ++others;
  }
  auto from = a.unit_index.find(grant.from);
  out.hints.push_back(make_hint(
      "exclusive-late",
      "the " + trace.construct_name(grant.construct) + " was granted at " + a.at(grant.time) + " but its body (unit " + std::to_string(unit.record.unit) +
          ") ran only at " + a.at(unit.record.begin) + " on " + a.words.core_set({unit.core}) + ", after " +
          detail::plural(others, "unit") + " of other VPs there; " + a.words.core_set(waiting_cores[body]) +
          " waited for its end: a runtime fluke the application can only soften by its unit size (paper 3.4.6)",
      {unit.core}, grant.time - a.first, unit.record.begin - a.first,
      from == a.unit_index.end() ? std::string() : a.site_of(from->second), lost));
}

}  // namespace

extern const Rule rule_exclusive_late{15, "exclusive-late", run};

}  // namespace moirai::visualize::report

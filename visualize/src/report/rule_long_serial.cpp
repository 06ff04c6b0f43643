// A long serial section (paper section 3.4, the copy-transpose singleton of 3.4.2; a reduction
// at one VP): for a stretch of the run only one core animates units, units on the critical path,
// while the cores that worked wait. Premise: the stretch is long (5% of the run or more) and the
// unit running alone is on the critical path and a fifth of its work or more (a last piece that
// merely ran late, independent of the others, is an idle tail; one of many equal units along a
// chain, a wavefront's corner block, is the critical path's). A reduction cut into many small
// units of one VP is not seen: each unit is small. The loss is the idle time of the cores that
// worked, inside it, charged to the VP that ran there; a singleton body that only started late
// was claimed before by singleton-late.
#include <algorithm>
#include <map>

#include "../text_format.h"
#include "analysis.h"

namespace moirai::visualize::report {
namespace {

constexpr double kSerialLength = 0.05;  // of the makespan
constexpr double kChainShare = 0.20;    // a unit running alone: of the critical path's work

void run(const Analysis& a, Ledger& ledger, RuleOutput& out) {
  const trace::Trace& trace = a.trace;
  if (trace.core_count < 2 || a.makespan == 0) return;
  // Busy cores over time: a unit's whole life-line counts as busy.
  std::vector<std::pair<std::uint64_t, int>> edges;
  edges.reserve(2 * trace.units.size());
  for (const trace::Unit& u : trace.units) {
    edges.emplace_back(u.record.assign, +1);
    edges.emplace_back(u.record.handler_end, -1);
  }
  std::sort(edges.begin(), edges.end());  // at one tick, ends (-1) before begins (+1)
  std::vector<Window> sections;
  int busy = 0;
  std::uint64_t open_at = 0;
  bool open = false;
  for (std::size_t k = 0; k < edges.size();) {
    const std::uint64_t tick = edges[k].first;
    for (; k < edges.size() && edges[k].first == tick; ++k) busy += edges[k].second;
    if (!open && busy == 1) open = true, open_at = tick;
    if (open && busy != 1) {
      open = false;
      if (static_cast<double>(tick - open_at) >= kSerialLength * static_cast<double>(a.makespan)) sections.push_back({open_at, tick});
    }
  }
  if (sections.empty()) return;
  std::vector<bool> on_path(trace.units.size(), false);
  for (std::uint32_t node : a.path.nodes) on_path[a.graph.nodes[node].trace_index] = true;
  // The units inside the sections, each its own window, so the loss goes to the VP that ran.
  std::vector<Window> pieces;
  std::vector<std::uint32_t> piece_unit;
  for (const Window& s : sections) {
    std::vector<std::pair<std::uint64_t, std::uint32_t>> inside;
    for (const auto& units : a.units_on_core) {
      auto it = std::partition_point(units.begin(), units.end(), [&](std::uint32_t u) { return a.unit(u).record.handler_end <= s.begin; });
      for (; it != units.end() && a.unit(*it).record.assign < s.end; ++it) inside.emplace_back(a.unit(*it).record.assign, *it);
    }
    std::sort(inside.begin(), inside.end());
    for (const auto& [assign, u] : inside) {
      if (!on_path[u] || static_cast<double>(a.unit(u).work()) < kChainShare * static_cast<double>(a.path.work)) continue;
      const trace::UnitRecord& r = a.unit(u).record;
      const std::uint64_t b = std::max({s.begin, r.assign, pieces.empty() ? 0 : pieces.back().end});
      const std::uint64_t e = std::min(s.end, r.handler_end);
      if (e <= b) continue;
      pieces.push_back({b, e});
      piece_unit.push_back(u);
    }
  }
  std::vector<std::uint64_t> per_piece;
  ledger.claim_windows(pieces, [&](const LossEntry& e, const Window&) {
    return (e.kind == LossKind::idle || e.kind == LossKind::run_end || e.kind == LossKind::run_start) && a.core_work[e.core] > 0;
  }, &per_piece);
  // Loss by VP; the hint names the VP that cost most, and its longest unit in the sections.
  std::map<std::uint64_t, std::uint64_t> by_vp;
  std::map<std::uint64_t, std::uint32_t> longest;
  std::uint64_t lost = 0;
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    if (per_piece[i] == 0) continue;
    const trace::Unit& u = a.unit(piece_unit[i]);
    by_vp[u.record.vp] += per_piece[i];
    lost += per_piece[i];
    auto [best, added] = longest.try_emplace(u.record.vp, piece_unit[i]);
    if (!added && a.unit(best->second).work() < u.work()) best->second = piece_unit[i];
  }
  if (lost == 0) return;
  const auto worst = std::max_element(by_vp.begin(), by_vp.end(), [](const auto& x, const auto& y) { return x.second < y.second; });
  const std::uint32_t unit = longest[worst->first];
  const trace::Unit& u = a.unit(unit);
  std::string vp_name = "vp" + std::to_string(u.record.vp);
  for (const trace::Trace::Vp& vp : trace.vps) {
    if (vp.id == u.record.vp && !vp.name.empty()) vp_name = vp.name;
  }
  std::uint64_t serial = 0;
  for (const Window& s : sections) serial += s.end - s.begin;
  const bool singleton = trace.construct_name(u.record.ended_by) == "singleton end";
  out.hints.push_back(make_hint(
      "long-serial",
      "for " + a.ms(serial) + " (" + detail::fixed(100.0 * static_cast<double>(serial) / static_cast<double>(a.makespan), 1) +
          "% of the run, in " + detail::plural(sections.size(), "section") + ") only one core animated units while the other cores waited; most of it was VP '" +
          vp_name + "', whose longest unit (" + std::to_string(u.record.unit) + ", " + a.ms(u.work()) + " of work on " +
          detail::core_set({u.core}) + ") " +
          (singleton ? "is a singleton body: move its work out of the singleton or split it across the VPs that wait for it"
                     : "runs alone: split its work across VPs (a reduction: reduce in a tree, in parallel)") +
          " (paper 3.4, 3.4.6)",
      {u.core}, sections.front().begin - a.first, sections.front().end - a.first, a.site_of(unit), lost));
}

}  // namespace

extern const Rule rule_long_serial{25, "long-serial", run};

}  // namespace moirai::visualize::report

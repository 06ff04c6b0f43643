// A long serial section (paper section 3.4, the copy-transpose singleton of 3.4.2; a reduction
// at one VP): for a stretch of the run only one core animates units, units on the critical path,
// while the cores that worked wait. Premise: the stretch is long (5% of the run or more) and the
// unit running alone is on the critical path; unless it is a singleton body, it is also a fifth
// of the path's work or more (one of many equal units along a chain, a wavefront's corner block,
// is the critical path's) and not the last of a wave (a last piece that merely ran late, while
// pieces like it ran on the other cores, is an idle tail). A reduction cut into many small units
// of one VP is not seen: each unit is small. The loss is the idle time of the cores that worked,
// inside it, one hint per VP and call site of the unit that ran alone; for a singleton body only
// the idle its end satisfied. A singleton body that only started late was claimed before by
// exclusive-late.
#include <algorithm>
#include <map>

#include "output/construct_views.h"
#include "output/text_format.h"
#include "analyses/report/analysis.h"

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
      if (!on_path[u]) continue;
      // A singleton body is serial by construction: the idle it takes is only what its end freed.
      const bool exclusive_body = trace.construct_role(a.unit(u).record.ended_by) == ConstructRole::exclusive_end;
      if (!exclusive_body && (static_cast<double>(a.unit(u).work()) < kChainShare * static_cast<double>(a.path.work) || a.last_of_a_wave(u))) continue;
      const trace::UnitRecord& r = a.unit(u).record;
      const std::uint64_t b = std::max({s.begin, r.assign, pieces.empty() ? 0 : pieces.back().end});
      const std::uint64_t e = std::min(s.end, r.handler_end);
      if (e <= b) continue;
      pieces.push_back({b, e});
      piece_unit.push_back(u);
    }
  }
  // One hint per unit that ran alone, by VP and call site: a singleton body and a VP's last long
  // piece are different causes with different cures. A singleton body's hint takes only the idle
  // its end satisfied (the cores that waited for that singleton); a unit ran alone otherwise takes
  // every idle core-tick of the cores that worked.
  struct Group {
    std::vector<Window> windows;
    std::vector<std::uint64_t> units;  // the trace's ids of the units that ran alone
    std::uint32_t longest = kNone;
    bool exclusive = false;
  };
  std::map<std::pair<std::uint64_t, std::string>, Group> groups;
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    const std::uint32_t unit = piece_unit[i];
    Group& g = groups[{a.unit(unit).record.vp, a.site_of(unit)}];
    g.windows.push_back(pieces[i]);
    if (g.units.empty() || g.units.back() != a.unit(unit).record.unit) g.units.push_back(a.unit(unit).record.unit);
    if (g.longest == kNone || a.unit(g.longest).work() < a.unit(unit).work()) g.longest = unit;
    g.exclusive = g.exclusive || trace.construct_role(a.unit(unit).record.ended_by) == ConstructRole::exclusive_end;
  }
  // "singleton" in SSR, "critical section" in OpenMP
  const std::string exclusive = a.words.exclusive_section.empty() ? detail::exclusive_name(trace) : a.words.exclusive_section;
  for (const auto& [key, g] : groups) {
    const std::uint64_t lost = ledger.claim_windows(g.windows, [&](const LossEntry& e, const Window&) {
      if (a.core_work[e.core] == 0) return false;
      if (g.exclusive) return e.kind == LossKind::idle && e.freed_by != kNone && trace.construct_role(trace.constraints[e.freed_by].construct) == ConstructRole::exclusive_end;
      return e.kind == LossKind::idle || e.kind == LossKind::run_end || e.kind == LossKind::run_start;
    });
    if (lost == 0) continue;
    const trace::Unit& u = a.unit(g.longest);
    const std::string section = exclusive.empty() ? trace.construct_name(u.record.ended_by) : exclusive;
    std::string vp_name = "vp" + std::to_string(u.record.vp);
    for (const trace::Trace::Vp& vp : trace.vps) {
      if (vp.id == u.record.vp && !vp.name.empty()) vp_name = vp.name;
    }
    // The sections this group's units ran alone in.
    std::vector<Window> own;
    for (const Window& s : sections) {
      if (std::any_of(g.windows.begin(), g.windows.end(), [&](const Window& w) { return w.begin < s.end && s.begin < w.end; })) own.push_back(s);
    }
    std::uint64_t serial = 0;
    for (const Window& s : own) serial += s.end - s.begin;
    Hint& hint = out.hints.emplace_back(make_hint(
        "long-serial",
        "for " + a.ms(serial) + " (" + detail::fixed(100.0 * static_cast<double>(serial) / static_cast<double>(a.makespan), 1) +
            "% of the run, in " + detail::plural(own.size(), "section") + ") only one core animated units while the other cores waited, for " + a.words.vp + " '" +
            vp_name + "', whose longest unit there (" + std::to_string(u.record.unit) + ", " + a.ms(u.work()) + " of work on " +
            a.words.core_set({u.core}) + ") " +
            (g.exclusive ? "is a " + section + " body: " + fill(a.words.exclusive_cure, section) : "runs alone: " + a.words.serial_cure) +
            " (paper 3.4, 3.4.6)",
        {u.core}, own.front().begin - a.first, own.front().end - a.first, a.site_of(g.longest), lost));
    hint.units = g.units;
  }
}

}  // namespace

extern const Rule rule_long_serial{25, "long-serial", run};

}  // namespace moirai::visualize::report

#include "recorded_run.h"

#include <algorithm>
#include <numeric>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "moirai/replay/replay.h"
#include "moirai/trace/format.h"

namespace moirai::replay::detail {

namespace {

// add_vps indexes the trace's VP definitions by id.
std::unordered_map<std::uint64_t, std::uint32_t> add_vps(const trace::Trace& trace, RecordedRun& run) {
  std::unordered_map<std::uint64_t, std::uint32_t> index;
  for (const trace::Trace::Vp& vp : trace.vps) {
    if (!index.emplace(vp.id, static_cast<std::uint32_t>(run.vps.size())).second) continue;
    RecordedVp& added = run.vps.emplace_back();
    added.name = vp.name.empty() ? "vp" + std::to_string(vp.id) : vp.name;
    if (vp.home_core != trace::kNoHomeCore) added.pinned = static_cast<CoreId>(vp.home_core);
    added.created_at = vp.site;
  }
  return index;
}

// check_acyclic throws ReplayError when some units can never start: a cycle of constraints and
// VP order (only units of zero length at one instant can form one once backward arcs are gone).
void check_acyclic(const RecordedRun& run) {
  std::vector<std::uint32_t> waiting(run.units.size());
  for (std::size_t u = 0; u < run.units.size(); ++u) {
    waiting[u] = run.units[u].constraints + (run.first_of(static_cast<std::uint32_t>(u)) ? 0 : 1);
  }
  std::vector<std::uint32_t> ready;
  for (std::size_t u = 0; u < run.units.size(); ++u) {
    if (waiting[u] == 0) ready.push_back(static_cast<std::uint32_t>(u));
  }
  std::vector<std::uint32_t> position(run.units.size());
  for (const RecordedVp& vp : run.vps) {
    for (std::size_t k = 0; k < vp.units.size(); ++k) position[vp.units[k]] = static_cast<std::uint32_t>(k);
  }
  std::size_t started = 0;
  while (!ready.empty()) {
    const std::uint32_t u = ready.back();
    ready.pop_back();
    ++started;
    const RecordedUnit& unit = run.units[u];
    auto release = [&](std::uint32_t to) {
      if (--waiting[to] == 0) ready.push_back(to);
    };
    for (std::uint32_t k = 0; k < unit.out_count; ++k) release(run.out[unit.first_out + k].to);
    const RecordedVp& vp = run.vps[unit.vp];
    if (position[u] + 1 < vp.units.size()) release(vp.units[position[u] + 1]);
  }
  if (started == run.units.size()) return;
  for (std::size_t u = 0; u < run.units.size(); ++u) {
    if (waiting[u] != 0) {
      throw ReplayError("the trace's constraints form a cycle: " + std::to_string(run.units.size() - started) +
                        " units can never start, the first of VP '" + run.vps[run.units[u].vp].name + "'");
    }
  }
}

// busy_beside sets each unit's mean count of other cores at work during its work span, from the
// integral of the number of working cores over time (one sweep over the units' begins and ends).
void add_busy_beside(const trace::Trace& trace, const std::vector<std::uint32_t>& trace_index, RecordedRun& run) {
  std::vector<std::pair<std::uint64_t, int>> edges;  // time, +1 begin / -1 end
  edges.reserve(2 * trace_index.size());
  for (const std::uint32_t t : trace_index) {
    edges.emplace_back(trace.units[t].record.begin, 1);
    edges.emplace_back(trace.units[t].record.end, -1);
  }
  std::sort(edges.begin(), edges.end());
  std::vector<std::uint64_t> times;
  std::vector<double> integral;  // of working cores, from the first edge to times[k]
  times.reserve(edges.size());
  integral.reserve(edges.size());
  int working = 0;
  double sum = 0;
  for (std::size_t k = 0; k < edges.size(); ++k) {
    if (k > 0) sum += static_cast<double>(working) * static_cast<double>(edges[k].first - edges[k - 1].first);
    if (times.empty() || times.back() != edges[k].first) {
      times.push_back(edges[k].first);
      integral.push_back(sum);
    }
    working += edges[k].second;
  }
  const auto at = [&](std::uint64_t time) {
    return integral[static_cast<std::size_t>(std::lower_bound(times.begin(), times.end(), time) - times.begin())];
  };
  for (std::size_t u = 0; u < run.units.size(); ++u) {
    const auto& r = trace.units[trace_index[u]].record;
    if (r.end <= r.begin) continue;
    const double mean = (at(r.end) - at(r.begin)) / static_cast<double>(r.end - r.begin);
    run.units[u].busy_beside = std::max(0.0, mean - 1.0);
  }
}

// handler_medians is each construct kind's median handler span (constraint update), in seconds.
std::vector<double> handler_medians(const trace::Trace& trace) {
  std::vector<std::vector<std::uint64_t>> spans;
  for (const trace::Unit& unit : trace.units) {
    const auto& r = unit.record;
    if (r.ended_by >= spans.size()) spans.resize(r.ended_by + 1u);
    spans[r.ended_by].push_back(r.handler_end - r.handler);
  }
  std::vector<double> medians(spans.size(), -1.0);
  for (std::size_t kind = 0; kind < spans.size(); ++kind) {
    std::vector<std::uint64_t>& of = spans[kind];
    if (of.empty()) continue;
    const auto middle = of.begin() + static_cast<std::ptrdiff_t>(of.size() / 2);
    std::nth_element(of.begin(), middle, of.end());
    medians[kind] = static_cast<double>(*middle) / trace.clock_hz;
  }
  return medians;
}

}  // namespace

void pin_vps(RecordedRun& run, Pinning pinning, std::size_t cores) {
  std::unordered_map<std::uint32_t, std::pair<CoreId, std::size_t>> by_site;  // first core, VPs so far
  for (RecordedVp& vp : run.vps) {  // in creation order (the trace defines VPs as they are made)
    if (vp.pinned == kAnyCore || pinning == Pinning::free) {
      vp.target_core = kAnyCore;
    } else if (pinning == Pinning::spread) {
      auto [site, first] = by_site.try_emplace(vp.created_at, vp.pinned, 0);
      vp.target_core = static_cast<CoreId>((site->second.first + site->second.second++) % cores);
    } else {
      vp.target_core = static_cast<CoreId>(vp.pinned % cores);
    }
  }
}

// add_domains gives each unit the lock domains its handler waited for: a handoff on a core lies in
// the communication span [end, handler) of the unit that core ended last.
void add_domains(const trace::Trace& trace, const std::vector<std::uint32_t>& trace_index, RecordedRun& run) {
  auto names = trace.metadata.find("lock_domains");
  run.names_domains = names != trace.metadata.end() && names->second == "named";
  if (!run.names_domains) return;
  for (const auto& [id, domain] : trace.lock_domains) run.domain_names[domain.key] = domain.name;
  std::vector<std::vector<std::pair<std::uint64_t, std::uint32_t>>> ends(trace.core_count);  // (end, unit)
  for (std::uint32_t u = 0; u < trace_index.size(); ++u) {
    const trace::Unit& recorded = trace.units[trace_index[u]];
    if (recorded.core < ends.size()) ends[recorded.core].emplace_back(recorded.record.end, u);
  }
  for (auto& on_core : ends) std::sort(on_core.begin(), on_core.end());
  for (const trace::Trace::LockHandoff& handoff : trace.lock_handoffs) {
    auto domain = trace.lock_domains.find(handoff.record.domain);
    if (handoff.core >= ends.size() || domain == trace.lock_domains.end()) continue;
    const auto& on_core = ends[handoff.core];
    auto after = std::upper_bound(on_core.begin(), on_core.end(), std::make_pair(handoff.record.waited, UINT32_MAX));
    if (after == on_core.begin()) continue;
    RecordedUnit& unit = run.units[std::prev(after)->second];
    if (handoff.record.waited > trace.units[trace_index[std::prev(after)->second]].record.handler) continue;
    if (unit.domain_count < unit.domains.size()) unit.domains[unit.domain_count++] = domain->second.key;
  }
}

RecordedRun rebuild(const trace::Trace& trace) {
  if (trace.units.empty()) throw ReplayError("the trace holds no unit to replay");
  RecordedRun run;
  std::unordered_map<std::uint64_t, std::uint32_t> vp_index = add_vps(trace, run);

  // Each VP's units in the order it ran them.
  std::vector<std::uint32_t> order(trace.units.size());
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    const auto& x = trace.units[a].record;
    const auto& y = trace.units[b].record;
    return std::tie(x.vp, x.begin, x.unit) < std::tie(y.vp, y.begin, y.unit);
  });
  std::unordered_map<std::uint64_t, std::uint32_t> unit_index;
  unit_index.reserve(order.size());
  std::vector<std::uint32_t> trace_index;  // by replay unit
  std::uint64_t first = UINT64_MAX, last = 0;
  for (const std::uint32_t t : order) {
    const trace::Unit& recorded = trace.units[t];
    auto [vp, added] = vp_index.emplace(recorded.record.vp, static_cast<std::uint32_t>(run.vps.size()));
    if (added) run.vps.emplace_back().name = "vp" + std::to_string(recorded.record.vp);
    const auto u = static_cast<std::uint32_t>(run.units.size());
    if (!unit_index.emplace(recorded.record.unit, u).second) continue;  // the reader refuses duplicates
    RecordedUnit& unit = run.units.emplace_back();
    unit.id = recorded.record.unit;
    unit.vp = vp->second;
    unit.core = recorded.core;
    unit.ended_by = recorded.record.ended_by;
    unit.exclusive_body = trace.construct_role(recorded.record.ended_by) == ConstructRole::exclusive_end;
    if (auto site = trace.sites.find(recorded.record.site); site != trace.sites.end()) {
      unit.site = CallSite{site->second.file.c_str(), site->second.line, site->second.function.c_str()};
    }
    unit.work_seconds = static_cast<double>(recorded.work()) / trace.clock_hz;
    run.vps[unit.vp].units.push_back(u);
    trace_index.push_back(t);
    first = std::min(first, recorded.record.assign);
    last = std::max(last, recorded.record.handler_end);
  }
  run.makespan_seconds = static_cast<double>(last - first) / trace.clock_hz;
  run.handler_seconds = handler_medians(trace);
  add_busy_beside(trace, trace_index, run);
  add_domains(trace, trace_index, run);

  // The constraints, grouped by the freeing unit.
  std::vector<std::pair<std::uint32_t, RecordedConstraint>> arcs;
  std::size_t unknown = 0, backwards = 0;
  for (const trace::ConstraintRecord& c : trace.constraints) {
    const auto from = unit_index.find(c.from);
    const auto to = unit_index.find(c.to);
    if (from == unit_index.end() || to == unit_index.end()) {
      ++unknown;
      continue;
    }
    const auto& a = trace.units[trace_index[from->second]].record;
    const auto& b = trace.units[trace_index[to->second]].record;
    if (from->second == to->second || a.end > b.begin) {
      ++backwards;
      continue;
    }
    arcs.emplace_back(from->second, RecordedConstraint{to->second, c.construct, c.match});
  }
  std::stable_sort(arcs.begin(), arcs.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  run.out.reserve(arcs.size());
  for (const auto& [from, arc] : arcs) {
    RecordedUnit& unit = run.units[from];
    if (unit.out_count == 0) unit.first_out = static_cast<std::uint32_t>(run.out.size());
    ++unit.out_count;
    ++run.units[arc.to].constraints;
    run.out.push_back(arc);
  }

  // The seed: of the VPs nothing freed, the one that began first.
  bool seeded = false;
  for (std::size_t v = 0; v < run.vps.size(); ++v) {
    RecordedVp& vp = run.vps[v];
    if (vp.units.empty()) continue;
    vp.at_start = run.units[vp.units.front()].constraints == 0;
    if (!vp.at_start) continue;
    const auto begin = [&](const RecordedVp& of) { return trace.units[trace_index[of.units.front()]].record.begin; };
    if (!seeded || begin(vp) < begin(run.vps[run.seed])) run.seed = static_cast<std::uint32_t>(v);
    seeded = true;
  }
  for (const RecordedVp& vp : run.vps) {
    for (std::size_t k = 0; k + 1 < vp.units.size(); ++k) {
      if (run.units[vp.units[k]].ended_by == 0) {
        throw ReplayError("VP '" + vp.name + "' goes on after a unit its end (construct 0) ended");
      }
    }
  }
  if (!seeded) throw ReplayError("no VP of the trace could start: every first unit waits for a constraint");
  check_acyclic(run);

  if (unknown > 0) {
    run.notes.push_back(std::to_string(unknown) + " constraint(s) name a unit the trace lacks: left out");
  }
  if (backwards > 0) {
    run.notes.push_back(std::to_string(backwards) +
                        " constraint(s) free a unit that began before the freeing unit ended: left out");
  }
  if (!trace.complete) run.notes.push_back("the trace is cut short (" + trace.cut + "): its recorded part is replayed");
  return run;
}

}  // namespace moirai::replay::detail

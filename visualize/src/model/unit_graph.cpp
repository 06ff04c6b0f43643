#include "moirai/visualize/model/unit_graph.h"

#include "moirai/visualize/model/run_span.h"

#include <algorithm>
#include <numeric>
#include <tuple>
#include <utility>

namespace moirai::visualize {

namespace {

constexpr std::uint32_t kNone = UINT32_MAX;

bool program_arc(const UnitArc& arc) { return arc.kind == ArcKind::constraint || arc.kind == ArcKind::same_vp; }

// latest_at is the node on one core (its nodes in time order) whose life-line began last at or
// before `tick`, or kNone.
std::uint32_t latest_at(const UnitGraph& graph, const std::vector<std::uint32_t>& on_core, std::uint64_t tick) {
  auto after = std::upper_bound(on_core.begin(), on_core.end(), tick,
                                [&](std::uint64_t t, std::uint32_t n) { return t < graph.nodes[n].assign; });
  return after == on_core.begin() ? kNone : *(after - 1);
}

}  // namespace

std::uint32_t UnitGraph::node_of(std::uint64_t unit) const {
  if (!dense_node.empty()) {
    return unit >= id_base && unit - id_base < dense_node.size() ? dense_node[unit - id_base] : kNone;
  }
  auto found = std::lower_bound(sorted_ids.begin(), sorted_ids.end(), unit);
  if (found == sorted_ids.end() || *found != unit) return kNone;
  return node_of_id[static_cast<std::size_t>(found - sorted_ids.begin())];
}

void UnitGraph::index_units() {
  const std::size_t count = nodes.size();
  std::uint64_t low = UINT64_MAX, high = 0;
  for (const UnitNode& node : nodes) {
    low = std::min(low, node.unit);
    high = std::max(high, node.unit);
  }
  if (count > 0 && high - low < 2 * count + 1024) {
    id_base = low;
    dense_node.assign(high - low + 1, kNone);
    for (std::uint32_t n = 0; n < count; ++n) dense_node[nodes[n].unit - low] = n;
    return;
  }
  std::vector<std::pair<std::uint64_t, std::uint32_t>> ids(count);
  for (std::uint32_t n = 0; n < count; ++n) ids[n] = {nodes[n].unit, n};
  std::sort(ids.begin(), ids.end());
  sorted_ids.resize(count);
  node_of_id.resize(count);
  for (std::size_t i = 0; i < count; ++i) std::tie(sorted_ids[i], node_of_id[i]) = ids[i];
}

std::size_t UnitGraph::arc_count(ArcKind kind) const {
  return static_cast<std::size_t>(std::count_if(arcs.begin(), arcs.end(), [&](const UnitArc& a) { return a.kind == kind; }));
}

UnitGraph build_unit_graph(const trace::Trace& trace) {
  UnitGraph graph;
  const std::size_t count = trace.units.size();

  // Nodes in time order: a freed unit begins after its freeing unit's call, a VP's next unit
  // after its previous one, so ordering by work begin (then end) orders every program arc.
  // Sorting the keys themselves, not indexes into the trace, keeps the sort in cache.
  struct Key {
    std::uint64_t begin, end, unit;
    std::uint32_t index;
    bool operator<(const Key& o) const { return std::tie(begin, end, unit) < std::tie(o.begin, o.end, o.unit); }
  };
  std::vector<Key> keys(count);
  for (std::uint32_t i = 0; i < count; ++i) {
    const trace::UnitRecord& r = trace.units[i].record;
    keys[i] = Key{r.begin, r.end, r.unit, i};
  }
  if (!std::is_sorted(keys.begin(), keys.end())) std::sort(keys.begin(), keys.end());
  std::vector<std::uint32_t> order(count);
  for (std::size_t n = 0; n < count; ++n) order[n] = keys[n].index;
  keys = {};
  graph.nodes.resize(count);
  for (std::size_t n = 0; n < count; ++n) {
    const trace::Unit& unit = trace.units[order[n]];
    const trace::UnitRecord& r = unit.record;
    graph.nodes[n] = UnitNode{r.unit, r.vp, r.assign, r.begin, r.end, r.handler_end, unit.core, order[n], unit.taken};
  }
  const RunSpan span = run_span(trace);
  graph.origin = span.first;
  graph.makespan = span.length();

  // Unit id -> node: a flat table when the ids are dense (the runtime numbers units 1, 2, ...),
  // else a binary search over a sorted copy; no hash map either way.
  graph.index_units();
  graph.arcs.reserve(trace.constraints.size() + 3 * count + trace.lock_handoffs.size());
  for (const trace::ConstraintRecord& c : trace.constraints) {
    const std::uint32_t from = graph.node_of(c.from), to = graph.node_of(c.to);
    if (from == kNone || to == kNone || from >= to) {
      ++graph.unresolved;
      continue;
    }
    graph.arcs.push_back(UnitArc{from, to, ArcKind::constraint, c.construct, c.match});
  }
  {
    // Each VP's previous unit, in time order: a flat table for dense VP ids, else sorted pairs.
    std::uint64_t low = UINT64_MAX, high = 0;
    for (const UnitNode& node : graph.nodes) {
      low = std::min(low, node.vp);
      high = std::max(high, node.vp);
    }
    if (count > 0 && high - low < 2 * count + 1024) {
      std::vector<std::uint32_t> previous_of(high - low + 1, kNone);
      for (std::uint32_t n = 0; n < count; ++n) {
        std::uint32_t& previous = previous_of[graph.nodes[n].vp - low];
        if (previous != kNone) graph.arcs.push_back(UnitArc{previous, n, ArcKind::same_vp, 0, 0});
        previous = n;
      }
    } else {
      std::vector<std::pair<std::uint64_t, std::uint32_t>> by_vp(count);
      for (std::uint32_t n = 0; n < count; ++n) by_vp[n] = {graph.nodes[n].vp, n};
      std::sort(by_vp.begin(), by_vp.end());
      for (std::size_t i = 1; i < count; ++i) {
        if (by_vp[i].first == by_vp[i - 1].first) {
          graph.arcs.push_back(UnitArc{by_vp[i - 1].second, by_vp[i].second, ArcKind::same_vp, 0, 0});
        }
      }
    }
  }
  std::vector<std::vector<std::uint32_t>> per_core(trace.core_count);
  for (std::uint32_t n = 0; n < count; ++n) {
    if (graph.nodes[n].core < per_core.size()) per_core[graph.nodes[n].core].push_back(n);
  }
  for (const auto& on_core : per_core) {
    for (std::size_t i = 1; i < on_core.size(); ++i) {
      graph.arcs.push_back(UnitArc{on_core[i - 1], on_core[i], ArcKind::same_core, 0, 0});
    }
  }
  // Lock handoff: the unit whose life-line held the releasing core then, to the unit that waited.
  for (const trace::Trace::LockHandoff& handoff : trace.lock_handoffs) {
    const std::uint32_t releasing_core = handoff.record.from;
    if (handoff.core >= per_core.size() || releasing_core >= per_core.size()) {
      ++graph.unresolved;
      continue;
    }
    const std::uint32_t waiting = latest_at(graph, per_core[handoff.core], handoff.record.acquired);
    const std::uint32_t releasing = latest_at(graph, per_core[releasing_core], handoff.record.acquired);
    if (waiting == kNone || releasing == kNone || waiting == releasing ||
        graph.nodes[waiting].handler_end < handoff.record.acquired) {
      continue;  // the lock was waited for outside any unit (an idle core waking up)
    }
    graph.arcs.push_back(UnitArc{releasing, waiting, ArcKind::lock_handoff, 0, 0});
  }

  // Incoming arcs per node (compressed rows), in arc order: constraints come first.
  graph.in_begin.assign(count + 1, 0);
  for (const UnitArc& arc : graph.arcs) ++graph.in_begin[arc.to + 1];
  std::partial_sum(graph.in_begin.begin(), graph.in_begin.end(), graph.in_begin.begin());
  graph.in_arcs.resize(graph.arcs.size());
  std::vector<std::uint32_t> fill(graph.in_begin.begin(), graph.in_begin.end() - 1);
  for (std::uint32_t a = 0; a < graph.arcs.size(); ++a) graph.in_arcs[fill[graph.arcs[a].to]++] = a;
  return graph;
}

LongestPaths longest_paths(const UnitGraph& graph, const std::vector<std::uint64_t>& weight) {
  const std::size_t count = graph.nodes.size();
  LongestPaths paths;
  paths.start.assign(count, 0);
  paths.via.assign(count, kNone);
  for (std::size_t n = 0; n < count; ++n) {
    std::uint64_t best = 0;
    std::uint32_t via = kNone;
    for (std::uint32_t i = graph.in_begin[n]; i < graph.in_begin[n + 1]; ++i) {
      const UnitArc& arc = graph.arcs[graph.in_arcs[i]];
      if (!program_arc(arc)) continue;  // every program arc goes forward in time order
      const std::uint64_t reach = paths.start[arc.from] + weight[arc.from];
      if (reach > best || via == kNone) {
        best = std::max(best, reach);
        via = graph.in_arcs[i];
      }
    }
    paths.start[n] = best;
    paths.via[n] = via;
  }
  return paths;
}

CriticalPath critical_path(const UnitGraph& graph, const trace::Trace& trace) {
  CriticalPath path;
  path.makespan = graph.makespan;
  if (graph.nodes.empty()) return path;
  std::vector<std::uint64_t> work(graph.nodes.size());
  for (std::size_t n = 0; n < graph.nodes.size(); ++n) {
    work[n] = graph.nodes[n].work();
    path.total_work += work[n];
  }
  const LongestPaths paths = longest_paths(graph, work);
  std::uint32_t last = 0;
  for (std::uint32_t n = 1; n < graph.nodes.size(); ++n) {
    if (paths.start[n] + work[n] > paths.start[last] + work[last]) last = n;
  }
  path.work = paths.start[last] + work[last];
  for (std::uint32_t n = last;;) {
    path.nodes.push_back(n);
    path.cycles += graph.nodes[n].work() + graph.nodes[n].overhead();
    const std::uint32_t via = paths.via[n];
    if (via == kNone) break;
    path.arcs.push_back(via);
    const UnitArc& arc = graph.arcs[via];
    ++path.arcs_by_kind[arc.kind == ArcKind::same_vp ? "same VP" : trace.construct_name(arc.construct)];
    n = arc.from;
  }
  std::reverse(path.nodes.begin(), path.nodes.end());
  std::reverse(path.arcs.begin(), path.arcs.end());
  path.parallelism = path.work ? static_cast<double>(path.total_work) / static_cast<double>(path.work) : 0;
  return path;
}

}  // namespace moirai::visualize

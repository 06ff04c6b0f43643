#include "moirai/visualize/views/ucc.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <queue>
#include <set>
#include <stdexcept>
#include <tuple>
#include <unordered_map>

#include "moirai/visualize/views/pinned_graph.h"
#include "moirai/visualize/model/unit_graph.h"
#include "analyses/integrity.h"
#include "output/construct_views.h"
#include "output/text_format.h"

namespace moirai::visualize {

namespace {

constexpr std::size_t kNone = SIZE_MAX;
constexpr std::uint32_t kRowWidth = 48;  // units a row shows; the rest of the row merge into one node
constexpr std::uint64_t kMaxRows = 1000; // rows drawn; units deeper are left out (and counted)
constexpr double kCircle = 28;           // points: a unit's circle, a weighted box's width
constexpr double kSlot = 40;             // points between column centres
constexpr double kRowHeight = 56;        // points between rows of the plain UCC
constexpr double kGroupSize = 18;        // points: a complex constraint's diamond
constexpr double kFitHeight = 1200;      // points the deepest weighted chain is scaled to
constexpr double kMinHeight = 1;         // points: the smallest weighted box drawn
constexpr double kRowGap = 6;            // points each row of a weighted chain adds, so small units stay apart

std::string fixed(double value, int digits = 0) { return detail::fixed(value, digits); }

// instruction_counter is the index of the recorded instruction counter, or -1.
int instruction_counter(const trace::Trace& trace) {
  for (std::size_t i = 0; i < trace.counters.size(); ++i) {
    std::string name = trace.counters[i];
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::toupper(c); });
    if (name.find("TOT_INS") != std::string::npos || name.find("INSTRUCTIONS") != std::string::npos) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

// GroupMembers is who belongs to which group, as (group index, node) pairs of the unit graph.
struct GroupMembers {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> sources, sinks;  // sorted
  std::vector<std::pair<std::uint32_t, std::uint32_t>> sink_groups;      // (node, group index), sorted
};

// next_units is each node's VP's next unit (UINT32_MAX for a VP's last).
std::vector<std::uint32_t> next_units(const UnitGraph& graph) {
  std::vector<std::uint32_t> next(graph.nodes.size(), UINT32_MAX);
  for (const UnitArc& arc : graph.arcs) {
    if (arc.kind == ArcKind::same_vp) next[arc.from] = arc.to;
  }
  return next;
}

// group_members reads the members the recorder listed, each sink as the unit the group
// constrains: a singleton's successor is recorded as such, but a typed send's receiver is
// recorded by its receiving call (its unit ended by the receive that pairs with the group's
// sends), and the unit that waits for the message is the one after it. Members the graph lacks
// are left out.
GroupMembers group_members(const trace::Trace& trace, const UnitGraph& graph, const std::vector<std::uint32_t>& next,
                           const std::unordered_map<std::uint64_t, std::uint32_t>& group_index) {
  // The receiving side of each group's pairs: constructs matched with the group's own.
  std::map<std::uint64_t, std::uint16_t> match_kind;  // match -> construct of the group's kind
  std::set<std::uint16_t> group_kinds;
  for (const trace::Trace::Group& g : trace.groups) group_kinds.insert(static_cast<std::uint16_t>(g.construct));
  for (const trace::ConstraintRecord& c : trace.constraints) {
    if (c.match != 0 && group_kinds.count(c.construct)) match_kind[c.match] = c.construct;
  }
  std::set<std::pair<std::uint16_t, std::uint16_t>> receiving;  // (group construct, receiving construct)
  for (const trace::ConstraintRecord& c : trace.constraints) {
    auto paired = c.match != 0 ? match_kind.find(c.match) : match_kind.end();
    if (paired != match_kind.end() && paired->second != c.construct) receiving.insert({paired->second, c.construct});
  }
  GroupMembers members;
  for (const auto& m : trace.group_members) {
    auto g = group_index.find(m.record.group);
    std::uint32_t n = graph.node_of(m.record.unit);
    if (g == group_index.end() || n == UINT32_MAX) continue;
    const auto construct = static_cast<std::uint16_t>(trace.groups[g->second].construct);
    if (m.record.role != 1 && next[n] != UINT32_MAX &&
        receiving.count({construct, trace.units[graph.nodes[n].trace_index].record.ended_by})) {
      n = next[n];
    }
    if (m.record.role == 1) {
      members.sources.emplace_back(g->second, n);
    } else {
      members.sinks.emplace_back(g->second, n);
      members.sink_groups.emplace_back(n, g->second);
    }
  }
  for (auto* list : {&members.sources, &members.sinks, &members.sink_groups}) std::sort(list->begin(), list->end());
  return members;
}

// ThroughGroups decides, constraint by constraint, which ones a group stands for (drawn through
// its diamond instead of one by one): those of a group's own construct kind (a typed send, a
// singleton's grant), those matched with one (the receive's crossing dependency), and those
// from the call that completed a group (the caller's next unit and the freed unit are sinks of
// one group: a singleton's end). Every other constraint is simple and drawn as a line, whatever
// else the program uses.
class ThroughGroups {
 public:
  ThroughGroups(const trace::Trace& trace, const std::vector<std::uint32_t>& next, const GroupMembers& members)
      : members_(members), next_(next) {
    for (const trace::Trace::Group& g : trace.groups) kinds_.insert(static_cast<std::uint16_t>(g.construct));
    std::set<std::uint64_t> matches;
    for (const trace::ConstraintRecord& c : trace.constraints) {
      if (c.match != 0 && kinds_.count(c.construct)) matches.insert(c.match);
    }
    for (const trace::ConstraintRecord& c : trace.constraints) {
      if (c.match != 0 && matches.count(c.match)) kinds_.insert(c.construct);
    }
  }
  bool operator()(const UnitArc& arc) const {
    if (arc.kind != ArcKind::constraint) return false;
    if (kinds_.count(arc.construct)) return true;
    const std::uint32_t next = next_[arc.from];
    if (next == UINT32_MAX) return false;
    const auto& sink_groups = members_.sink_groups;
    for (auto it = std::lower_bound(sink_groups.begin(), sink_groups.end(), std::pair{arc.to, 0u});
         it != sink_groups.end() && it->first == arc.to; ++it) {
      if (std::binary_search(members_.sinks.begin(), members_.sinks.end(), std::pair{it->second, next})) return true;
    }
    return false;
  }

 private:
  const GroupMembers& members_;
  std::set<std::uint16_t> kinds_;
  const std::vector<std::uint32_t>& next_;
};

// Depths places units and groups along every dependency of the program, a group between its
// sources and its sinks: the graph of units (program arcs) with a node per group, in from its
// sources and out to its sinks, walked in topological order. A group one of whose sinks leads
// to one of its sources (a message relayed on one channel) cannot sit between them: its lines
// out are left out of the placing, and counted.
class Depths {
 public:
  Depths(const UnitGraph& graph, std::size_t groups, const GroupMembers& members) : units_(graph.nodes.size()) {
    const std::size_t total = units_ + groups;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
    edges.reserve(graph.arcs.size() + members.sources.size() + members.sinks.size());
    for (const UnitArc& arc : graph.arcs) {
      if (arc.kind == ArcKind::constraint || arc.kind == ArcKind::same_vp) edges.emplace_back(arc.from, arc.to);
    }
    for (const auto& [group, node] : members.sources) edges.emplace_back(node, static_cast<std::uint32_t>(units_ + group));
    const std::size_t group_out = edges.size();
    for (const auto& [group, node] : members.sinks) edges.emplace_back(static_cast<std::uint32_t>(units_ + group), node);
    order_ = topological(total, edges);
    if (order_.size() < total) {
      // Every cycle passes through a group still unplaced: drop those groups' lines out.
      std::vector<bool> placed(total, false);
      for (std::uint32_t x : order_) placed[x] = true;
      std::vector<std::pair<std::uint32_t, std::uint32_t>> kept(edges.begin(), edges.begin() + static_cast<std::ptrdiff_t>(group_out));
      for (std::size_t e = group_out; e < edges.size(); ++e) {
        if (placed[edges[e].first]) {
          kept.push_back(edges[e]);
        } else {
          ++cyclic_lines;
        }
      }
      edges = std::move(kept);
      order_ = topological(total, edges);
    }
    in_begin_.assign(total + 1, 0);
    for (const auto& e : edges) ++in_begin_[e.second + 1];
    for (std::size_t x = 0; x < total; ++x) in_begin_[x + 1] += in_begin_[x];
    in_.resize(edges.size());
    std::vector<std::uint32_t> fill(in_begin_.begin(), in_begin_.end() - 1);
    for (const auto& e : edges) in_[fill[e.second]++] = e.first;
  }

  // longest gives every node the largest sum of `length` over a chain of nodes above it.
  template <class T, class Length>
  std::vector<T> longest(Length length) const {
    std::vector<T> start(in_begin_.size() - 1, T{});
    for (std::uint32_t x : order_) {
      for (std::uint32_t i = in_begin_[x]; i < in_begin_[x + 1]; ++i) start[x] = std::max(start[x], start[in_[i]] + length(in_[i]));
    }
    return start;
  }
  bool is_group(std::uint32_t x) const { return x >= units_; }

  std::size_t cyclic_lines = 0;  // group lines out left out of the placing

 private:
  static std::vector<std::uint32_t> topological(std::size_t total, const std::vector<std::pair<std::uint32_t, std::uint32_t>>& edges) {
    std::vector<std::uint32_t> indegree(total, 0), out_begin(total + 1, 0), out(edges.size());
    for (const auto& e : edges) {
      ++indegree[e.second];
      ++out_begin[e.first + 1];
    }
    for (std::size_t x = 0; x < total; ++x) out_begin[x + 1] += out_begin[x];
    std::vector<std::uint32_t> fill(out_begin.begin(), out_begin.end() - 1);
    for (const auto& e : edges) out[fill[e.first]++] = e.second;
    std::vector<std::uint32_t> order;
    order.reserve(total);
    for (std::uint32_t x = 0; x < total; ++x) {
      if (indegree[x] == 0) order.push_back(x);
    }
    for (std::size_t i = 0; i < order.size(); ++i) {
      for (std::uint32_t j = out_begin[order[i]]; j < out_begin[order[i] + 1]; ++j) {
        if (--indegree[out[j]] == 0) order.push_back(out[j]);
      }
    }
    return order;
  }

  std::size_t units_;
  std::vector<std::uint32_t> order_, in_begin_, in_;
};

// place_columns spreads nodes horizontally so that none overlap: each goes, in order of its
// top, into the first column free at that height (the paper's "first available column").
void place_columns(std::vector<UccNode>& nodes) {
  std::vector<std::size_t> order(nodes.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return nodes[a].y < nodes[b].y; });
  using Busy = std::pair<double, std::size_t>;  // bottom, column
  std::priority_queue<Busy, std::vector<Busy>, std::greater<>> busy;
  std::priority_queue<std::size_t, std::vector<std::size_t>, std::greater<>> free;
  std::size_t columns = 0;
  for (std::size_t i : order) {
    UccNode& node = nodes[i];
    while (!busy.empty() && busy.top().first <= node.y) {
      free.push(busy.top().second);
      busy.pop();
    }
    std::size_t column = columns;
    if (free.empty()) {
      ++columns;
    } else {
      column = free.top();
      free.pop();
    }
    node.x = static_cast<double>(column) * kSlot + kSlot / 2;
    busy.push({node.y + node.height + 4, column});
  }
}

// Tiers is where each node of the UCC goes vertically: its weight, its row (units above it) and,
// weighted, the weight and points above it; the units of the critical path.
struct Tiers {
  bool weighted = false;
  double weight_per_point = 1;
  std::vector<std::uint64_t> weight;        // per unit
  std::vector<std::uint64_t> rows;          // per unit, then per group
  std::vector<std::uint64_t> weight_above;  // weighted: per unit, then per group
  std::vector<double> top_points;           // weighted: per unit, then per group
  std::vector<bool> critical;               // per unit

  Tiers(const trace::Trace& trace, const UnitGraph& graph, const CriticalPath& path, const Depths& depths, int counter,
        bool by_weight)
      : weighted(by_weight), weight(graph.nodes.size()), critical(graph.nodes.size(), false) {
    const std::size_t count = graph.nodes.size();
    for (std::size_t n = 0; n < count; ++n) {
      const trace::Unit& unit = trace.units[graph.nodes[n].trace_index];
      weight[n] = counter >= 0 && static_cast<std::size_t>(counter) < unit.counters.size()
                      ? unit.counters[static_cast<std::size_t>(counter)]
                      : graph.nodes[n].work();
    }
    // Rows count the units above (a group takes none: it sits in the gap above its first row).
    rows = depths.longest<std::uint64_t>([&](std::uint32_t x) { return depths.is_group(x) ? 0 : 1; });
    if (weighted) {
      weight_above = depths.longest<std::uint64_t>([&](std::uint32_t x) { return depths.is_group(x) ? 0 : weight[x]; });
      std::uint64_t deepest = 1;
      for (std::size_t n = 0; n < count; ++n) deepest = std::max(deepest, weight_above[n] + weight[n]);
      weight_per_point = std::max(1.0, static_cast<double>(deepest) / kFitHeight);
      // Each box (or diamond) and a gap below it, so that a chain of tiny units still stacks.
      top_points = depths.longest<double>([&](std::uint32_t x) {
        return (depths.is_group(x) ? kGroupSize : std::max(static_cast<double>(weight[x]) / weight_per_point, kMinHeight)) +
               kRowGap;
      });
    }
    for (std::uint32_t n : path.nodes) critical[n] = true;
  }
  double top_of(std::size_t n) const { return weighted ? top_points[n] : static_cast<double>(rows[n]) * kRowHeight; }
  double height_of(std::size_t n) const {
    return weighted ? std::max(static_cast<double>(weight[n]) / weight_per_point, kMinHeight) : kCircle;
  }
  std::uint64_t depth_of(std::size_t n) const { return weighted ? weight_above[n] : rows[n]; }
};

// place_units adds a node per unit, row by row (a row: units of one depth in units), merging the
// rest of a full row into one node; it returns each unit's node (kNone: left out).
std::vector<std::size_t> place_units(UccLayout& layout, const trace::Trace& trace, const UnitGraph& graph, const Tiers& tiers) {
  const std::size_t count = graph.nodes.size();
  std::vector<std::uint32_t> row_total, row_shown;
  std::vector<std::size_t> row_merged;
  for (std::size_t n = 0; n < count; ++n) {
    const std::uint64_t row = tiers.rows[n];
    if (row >= kMaxRows) continue;
    if (row_total.size() <= row) row_total.resize(row + 1, 0);
    ++row_total[row];
  }
  row_shown.assign(row_total.size(), 0);
  row_merged.assign(row_total.size(), kNone);
  std::vector<std::size_t> drawn(count, kNone);
  for (std::size_t n = 0; n < count; ++n) {
    const std::uint64_t row = tiers.rows[n];
    if (row >= kMaxRows) {
      ++layout.omitted_units;
      continue;
    }
    const std::uint64_t depth = tiers.depth_of(n);
    if (row_total[row] <= kRowWidth || row_shown[row] + 1 < kRowWidth) {
      ++row_shown[row];
      const UnitNode& u = graph.nodes[n];
      const trace::UnitRecord& r = trace.units[u.trace_index].record;
      UccNode node{UccNodeKind::unit, u.unit, 1, depth, tiers.weight[n], 0, tiers.top_of(n), kCircle, tiers.height_of(n),
                   tiers.critical[n], std::to_string(u.unit), ""};
      node.tooltip = "unit " + std::to_string(u.unit) + ", VP " + std::to_string(u.vp) + ", core " + std::to_string(u.core) +
                     "\\nended by " + trace.construct_name(r.ended_by) + " at " + trace.site_name(r.site) + "\\n" +
                     layout.weight_name + ": " + std::to_string(tiers.weight[n]) + "\\nrow " + std::to_string(row) +
                     " (units above it)" + (tiers.critical[n] ? "\\non the critical path" : "");
      drawn[n] = layout.nodes.size();
      layout.nodes.push_back(std::move(node));
      continue;
    }
    // The rest of a full row: one node standing for them all.
    ++layout.merged_units;
    std::size_t& merged = row_merged[row];
    if (merged == kNone) {
      merged = layout.nodes.size();
      layout.nodes.push_back(UccNode{UccNodeKind::merged, row, 0, depth, 0, 0, tiers.top_of(n), kCircle + 8, tiers.height_of(n),
                                     false, "", ""});
    }
    UccNode& node = layout.nodes[merged];
    const double bottom = std::max(node.y + node.height, tiers.top_of(n) + tiers.height_of(n));
    node.y = std::min(node.y, tiers.top_of(n));
    node.height = bottom - node.y;
    node.depth = std::min(node.depth, depth);
    ++node.units;
    node.weight += tiers.weight[n];
    node.critical = node.critical || tiers.critical[n];
    node.label = std::to_string(node.units) + "\\nunits";
    node.tooltip = detail::plural(node.units, "more unit") + " of row " + std::to_string(row) + ", merged (a row shows " +
                   std::to_string(kRowWidth) + ")";
    drawn[n] = merged;
  }
  return drawn;
}

// ArcAdder adds arcs between drawn nodes, one per kind between a merged node and another.
class ArcAdder {
 public:
  explicit ArcAdder(UccLayout& layout) : layout_(layout) {}
  void operator()(std::size_t from, std::size_t to, const std::string& kind, bool on_critical = false) {
    if (from == kNone || to == kNone || from == to) return;
    const bool via_merged = layout_.nodes[from].kind == UccNodeKind::merged || layout_.nodes[to].kind == UccNodeKind::merged;
    if (via_merged && !merged_arcs_.insert({from, to, kind}).second) return;
    layout_.arcs.push_back(UccArc{from, to, kind, on_critical});
  }

 private:
  UccLayout& layout_;
  std::set<std::tuple<std::size_t, std::size_t, std::string>> merged_arcs_;
};

// add_program_arcs adds the program's simple constraints and each VP's order; complex ones go
// through groups, unless the critical path goes through them.
void add_program_arcs(const trace::Trace& trace, const UnitGraph& graph, const CriticalPath& path,
                      const std::vector<std::size_t>& drawn, const ThroughGroups& through_group, ArcAdder& add_arc) {
  std::vector<bool> on_path(graph.arcs.size(), false);
  for (std::uint32_t a : path.arcs) on_path[a] = true;
  for (std::size_t a = 0; a < graph.arcs.size(); ++a) {
    const UnitArc& arc = graph.arcs[a];
    if (arc.kind == ArcKind::same_vp) {
      add_arc(drawn[arc.from], drawn[arc.to], "same VP", on_path[a]);
    } else if (arc.kind != ArcKind::constraint) {
      continue;
    } else if (!through_group(arc)) {
      add_arc(drawn[arc.from], drawn[arc.to], trace.construct_name(arc.construct), on_path[a]);
    } else if (on_path[a]) {
      // A complex constraint the critical path goes through: drawn too, so the path stays unbroken.
      add_arc(drawn[arc.from], drawn[arc.to], "critical " + trace.construct_name(arc.construct), true);
    }
  }
}

// add_groups adds a node per complex constraint, in from every source, out to every sink, placed
// between them (plain: in the gap above the row of its shallowest possible sink).
void add_groups(UccLayout& layout, const trace::Trace& trace, const Tiers& tiers, const GroupMembers& members,
                const std::unordered_map<std::uint64_t, std::uint32_t>& group_index, const std::vector<std::size_t>& drawn,
                ArcAdder& add_arc) {
  const std::size_t count = drawn.size();
  std::vector<std::size_t> sources(trace.groups.size(), 0), sinks(trace.groups.size(), 0);
  for (const auto& m : trace.group_members) {
    auto g = group_index.find(m.record.group);
    if (g != group_index.end()) ++(m.record.role == 1 ? sources : sinks)[g->second];
  }
  std::vector<std::size_t> group_node(trace.groups.size(), kNone);  // trace.groups -> layout.nodes
  for (std::size_t i = 0; i < trace.groups.size(); ++i) {
    const trace::Trace::Group& g = trace.groups[i];
    const std::size_t x = count + i;
    if (tiers.rows[x] >= kMaxRows) continue;
    const double top = tiers.weighted ? tiers.top_points[x]
                                      : static_cast<double>(tiers.rows[x]) * kRowHeight - (kRowHeight - kCircle) / 2 - kGroupSize / 2;
    group_node[i] = layout.nodes.size();
    layout.nodes.push_back(UccNode{UccNodeKind::group, g.id, 0, tiers.depth_of(x), 0, 0, top,
                                   kGroupSize, kGroupSize, false, "",
                                   trace.construct_name(g.construct) + ": " + g.name + "\\n" + detail::plural(sources[i], "source") +
                                       " (units whose call affects it), " + detail::plural(sinks[i], "sink") +
                                       " (units it constrains)"});
  }
  for (const auto& [group, n] : members.sources) add_arc(drawn[n], group_node[group], "group in");
  for (const auto& [group, n] : members.sinks) add_arc(group_node[group], drawn[n], "group out");
}

}  // namespace

UccLayout layout_ucc(const trace::Trace& trace, const UccOptions& options) {
  UccLayout layout;
  layout.weighted = options.weighted;
  auto cmd = trace.metadata.find("command_line");
  layout.title = std::string("Unit & Constraint Collection") + (options.weighted ? " (weighted)" : "") + ": " +
                 (cmd == trace.metadata.end() ? std::string("?") : cmd->second);
  const std::string left_out = detail::integrity_note(trace, "integrity");
  if (!left_out.empty()) layout.title += "\\n" + left_out;
  const UnitGraph graph = build_unit_graph(trace);
  const CriticalPath path = critical_path(graph, trace);
  layout.parallelism = path.parallelism;
  layout.group_kinds = detail::group_kinds(trace, detail::GroupWords::legend);
  const int counter = instruction_counter(trace);
  layout.weight_name = counter >= 0 ? "instructions (" + trace.counters[static_cast<std::size_t>(counter)] + ")"
                                    : "cycles of work (the trace has no instruction counter)";
  if (graph.nodes.empty()) {
    layout.note = "the trace has no units: nothing to draw";
    return layout;
  }
  std::unordered_map<std::uint64_t, std::uint32_t> group_index;  // group id -> trace.groups
  for (std::uint32_t i = 0; i < trace.groups.size(); ++i) group_index[trace.groups[i].id] = i;
  const std::vector<std::uint32_t> next = next_units(graph);
  const GroupMembers members = group_members(trace, graph, next, group_index);
  const Depths depths(graph, trace.groups.size(), members);
  layout.cyclic_group_lines = depths.cyclic_lines;
  const Tiers tiers(trace, graph, path, depths, counter, options.weighted);
  if (tiers.weighted) layout.weight_per_point = tiers.weight_per_point;
  const std::vector<std::size_t> drawn = place_units(layout, trace, graph, tiers);
  ArcAdder add_arc(layout);
  add_program_arcs(trace, graph, path, drawn, ThroughGroups(trace, next, members), add_arc);
  add_groups(layout, trace, tiers, members, group_index, drawn, add_arc);
  place_columns(layout.nodes);
  const detail::ArcColours colours(trace);
  for (const UccArc& arc : layout.arcs) layout.arc_colours.emplace(arc.kind, colours(arc.kind));
  return layout;
}

void render_ucc(const UccLayout& layout, const std::string& format, const std::string& path) {
  const auto colour_of = [&](const std::string& kind) {
    auto found = layout.arc_colours.find(kind);
    return found == layout.arc_colours.end() ? std::string("gray40") : found->second;
  };
  detail::PinnedGraph pinned("ucc");
  const auto set = detail::set_attribute;
  set(pinned.graph(), "label", layout.title);
  set(pinned.graph(), "labelloc", "t");
  std::vector<Agnode_t*> nodes(layout.nodes.size());
  double right = 0;
  for (std::size_t i = 0; i < layout.nodes.size(); ++i) {
    const UccNode& n = layout.nodes[i];
    const char* prefix = n.kind == UccNodeKind::unit ? "u" : n.kind == UccNodeKind::group ? "g" : "m";
    Agnode_t* node = pinned.node(prefix + std::to_string(n.id));
    nodes[i] = node;
    right = std::max(right, n.x + n.width / 2);
    set(node, "pos", detail::point(n.x, -(n.y + n.height / 2)));
    set(node, "width", fixed(n.width / 72.0, 4));
    set(node, "height", fixed(n.height / 72.0, 4));
    set(node, "fixedsize", "true");
    set(node, "style", "filled");
    set(node, "tooltip", n.tooltip);
    set(node, "penwidth", n.critical ? "2" : "0.6");
    set(node, "color", n.critical ? "red3" : "black");
    // Shape, fill, label and SVG class by what the node stands for.
    struct Look { const char* shape; const char* fill; const char* font; std::string label; const char* svg_class; };
    const Look look = n.kind == UccNodeKind::unit
                          ? Look{layout.weighted ? "box" : "circle", "lightblue", "8", !layout.weighted || n.height >= 10 ? n.label : "", "uccunit"}
                      : n.kind == UccNodeKind::merged ? Look{"box", "lightsteelblue", "6", n.height >= 14 ? n.label : "", "uccmerged"}
                                                      : Look{"diamond", "lightyellow", "8", "", "uccgroup"};
    set(node, "shape", look.shape);
    set(node, "fillcolor", look.fill);
    set(node, "fontsize", look.font);
    set(node, "label", look.label);
    set(node, "class", look.svg_class);
  }
  for (const UccArc& arc : layout.arcs) {
    Agedge_t* edge = agedge(pinned.graph(), nodes[arc.from], nodes[arc.to], nullptr, 1);
    if (arc.critical) set(edge, "penwidth", "2.2");
    set(edge, "arrowsize", "0.4");
    set(edge, "tooltip", arc.kind);
    set(edge, "tailport", "s");  // from the bottom of the constraining node to the top of the constrained
    set(edge, "headport", "n");
    if (arc.kind == "same VP") {
      set(edge, "style", "dashed");
      set(edge, "color", "gray55");
      set(edge, "class", "uccvp");
    } else if (arc.kind == "group in" || arc.kind == "group out") {
      set(edge, "color", arc.kind == "group in" ? "goldenrod" : "darkorange3");
      set(edge, "penwidth", "0.6");
      set(edge, "class", arc.kind == "group in" ? "uccgroupin" : "uccgroupout");
    } else if (arc.kind.rfind("critical ", 0) == 0) {
      set(edge, "color", "red3");
      set(edge, "class", "ucccritical " + arc.kind.substr(9));
    } else {
      set(edge, "color", colour_of(arc.kind));
      set(edge, "penwidth", arc.critical ? "2.2" : "0.9");
      set(edge, "class", "uccconstraint " + arc.kind);
    }
  }
  // Legend, to the right of the drawing.
  const auto row = [](const std::string& key, const std::string& text) {
    return "<tr><td>" + key + "</td><td align='left'>" + text + "</td></tr>";
  };
  std::string legend = "<table border='0' cellborder='1' cellspacing='0' cellpadding='3'><tr><td colspan='2'><b>legend</b></td></tr>";
  legend += row(layout.weighted ? "box" : "circle",
                layout.weighted ? "a unit, as tall as its " + layout.weight_name : std::string("a unit (its id inside)"));
  legend += row("", "top to bottom: depth in the program's<br align='left'/>dependencies (constraints, VP order)<br align='left'/>");
  legend += row("<font color='red3'><b>O</b></font>", "red rim, bold lines: the critical path (a<br align='left'/>complex constraint on it drawn in red)<br align='left'/>parallelism (total work / critical-path<br align='left'/>work): " +
                fixed(layout.parallelism, 2) + "<br align='left'/>");
  legend += row("<font color='gray55'>- - &gt;</font>", "same VP: its next unit");
  legend += row("&#9671;", "complex constraint (" + layout.group_kinds + "): lines in from the units whose<br align='left'/>"
                "call affects it (<font color='goldenrod'>gold</font>), out to the units<br align='left'/>it constrains (<font color='darkorange3'>orange</font>)<br align='left'/>");
  std::set<std::string> shown;
  for (const UccArc& arc : layout.arcs) {
    if (arc.kind != "same VP" && arc.kind != "group in" && arc.kind != "group out" && arc.kind.rfind("critical ", 0) != 0) {
      shown.insert(arc.kind);
    }
  }
  for (const std::string& kind : shown) {
    legend += "<tr><td bgcolor='" + colour_of(kind) + "'> </td><td align='left'>" + kind + "</td></tr>";
  }
  if (layout.merged_units) {
    legend += row("<font color='steelblue'>[ ]</font>", detail::plural(layout.merged_units, "unit") + " merged: a row shows " +
                  std::to_string(kRowWidth) + " units");
  }
  if (layout.cyclic_group_lines) {
    legend += row("", detail::plural(layout.cyclic_group_lines, "line") + " out of a group point up: the unit they<br align='left'/>"
                  "reach leads to one of the group's sources<br align='left'/>");
  }
  if (layout.omitted_units) {
    legend += row("", detail::plural(layout.omitted_units, "unit") + " deeper than " + std::to_string(kMaxRows) + " rows not drawn");
  }
  if (!layout.note.empty()) legend += row("", layout.note);
  if (layout.weighted) legend += row("", "scale: " + fixed(layout.weight_per_point, 1) + " per point");
  legend += "</table>";
  Agnode_t* key = pinned.node("legend");
  set(key, "shape", "plaintext");
  set(key, "fontsize", "10");
  pinned.html_label(key, legend);
  set(key, "pos", detail::point(right + 250, -130));
  pinned.render(format, path);
}

}  // namespace moirai::visualize

#include "moirai/visualize/ucc.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <queue>
#include <set>
#include <stdexcept>
#include <tuple>
#include <unordered_map>

#include "moirai/visualize/pinned_graph.h"
#include "moirai/visualize/scg.h"
#include "moirai/visualize/unit_graph.h"
#include "text_format.h"

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

bool contains(const std::vector<std::uint64_t>& sorted, std::uint64_t id) {
  return std::binary_search(sorted.begin(), sorted.end(), id);
}

// complex_constructs are the construct kinds the groups stand for: a kind whose constraints
// start at a group member (the member's call imposed them), or whose constraints all end at
// a group's sinks (a singleton's body freeing its successors). Their arcs go through the
// group's node instead of being drawn one by one.
std::set<std::uint16_t> complex_constructs(const trace::Trace& trace) {
  std::vector<std::uint64_t> members, sinks;
  for (const auto& m : trace.group_members) {
    members.push_back(m.record.unit);
    if (m.record.role == 2) sinks.push_back(m.record.unit);
  }
  std::sort(members.begin(), members.end());
  std::sort(sinks.begin(), sinks.end());
  std::set<std::uint16_t> kinds, not_all_to_sinks;
  for (const trace::ConstraintRecord& c : trace.constraints) {
    if (contains(members, c.from)) kinds.insert(c.construct);
    if (!contains(sinks, c.to)) not_all_to_sinks.insert(c.construct);
  }
  if (!sinks.empty()) {
    for (const trace::ConstraintRecord& c : trace.constraints) {
      if (!not_all_to_sinks.count(c.construct)) kinds.insert(c.construct);
    }
  }
  return kinds;
}

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

}  // namespace

UccLayout layout_ucc(const trace::Trace& trace, const UccOptions& options) {
  UccLayout layout;
  layout.weighted = options.weighted;
  auto cmd = trace.metadata.find("command_line");
  layout.title = std::string("Unit & Constraint Collection") + (options.weighted ? " (weighted)" : "") + ": " +
                 (cmd == trace.metadata.end() ? std::string("?") : cmd->second);
  const UnitGraph graph = build_unit_graph(trace);
  const CriticalPath path = critical_path(graph, trace);
  layout.parallelism = path.parallelism;
  const int counter = instruction_counter(trace);
  layout.weight_name = counter >= 0 ? "instructions (" + trace.counters[static_cast<std::size_t>(counter)] + ")"
                                    : "cycles of work (the trace has no instruction counter)";
  if (graph.nodes.empty()) {
    layout.note = "the trace has no units: nothing to draw";
    return layout;
  }
  const std::size_t count = graph.nodes.size();
  std::vector<std::uint64_t> weight(count), ones(count, 1);
  for (std::size_t n = 0; n < count; ++n) {
    const trace::Unit& unit = trace.units[graph.nodes[n].trace_index];
    weight[n] = counter >= 0 && static_cast<std::size_t>(counter) < unit.counters.size()
                    ? unit.counters[static_cast<std::size_t>(counter)]
                    : graph.nodes[n].work();
  }
  const LongestPaths rows = longest_paths(graph, ones);
  const LongestPaths weighted = options.weighted ? longest_paths(graph, weight) : LongestPaths{};
  std::uint64_t deepest = 1;
  if (options.weighted) {
    for (std::size_t n = 0; n < count; ++n) deepest = std::max(deepest, weighted.start[n] + weight[n]);
    layout.weight_per_point = std::max(1.0, static_cast<double>(deepest) / kFitHeight);
  }
  std::vector<bool> critical(count, false);
  for (std::uint32_t n : path.nodes) critical[n] = true;

  // Units, row by row (a row: units of one depth in units), merging the rest of a full row.
  std::vector<std::uint32_t> row_total, row_shown;
  std::vector<std::size_t> row_merged;
  for (std::size_t n = 0; n < count; ++n) {
    const std::uint64_t row = rows.start[n];
    if (row >= kMaxRows) continue;
    if (row_total.size() <= row) row_total.resize(row + 1, 0);
    ++row_total[row];
  }
  row_shown.assign(row_total.size(), 0);
  row_merged.assign(row_total.size(), kNone);
  std::vector<std::size_t> drawn(count, kNone);
  const auto top_of = [&](std::size_t n) {
    // Weighted: the weight above the unit, plus a small gap per row so that a chain of tiny units
    // still stacks instead of piling up at one height (both grow along every dependency).
    return options.weighted ? static_cast<double>(weighted.start[n]) / layout.weight_per_point +
                                  static_cast<double>(rows.start[n]) * kRowGap
                            : static_cast<double>(rows.start[n]) * kRowHeight;
  };
  const auto height_of = [&](std::size_t n) {
    return options.weighted ? std::max(static_cast<double>(weight[n]) / layout.weight_per_point, kMinHeight) : kCircle;
  };
  for (std::size_t n = 0; n < count; ++n) {
    const std::uint64_t row = rows.start[n];
    if (row >= kMaxRows) {
      ++layout.omitted_units;
      continue;
    }
    const std::uint64_t depth = options.weighted ? weighted.start[n] : row;
    if (row_total[row] <= kRowWidth || row_shown[row] + 1 < kRowWidth) {
      ++row_shown[row];
      const UnitNode& u = graph.nodes[n];
      const trace::UnitRecord& r = trace.units[u.trace_index].record;
      UccNode node{UccNodeKind::unit, u.unit, 1, depth, weight[n], 0, top_of(n), kCircle, height_of(n), critical[n],
                   std::to_string(u.unit), ""};
      node.tooltip = "unit " + std::to_string(u.unit) + ", VP " + std::to_string(u.vp) + ", core " + std::to_string(u.core) +
                     "\\nended by " + trace.construct_name(r.ended_by) + " at " + trace.site_name(r.site) + "\\n" +
                     layout.weight_name + ": " + std::to_string(weight[n]) + "\\ndepth: " + std::to_string(row) +
                     " units above it" + (critical[n] ? "\\non the critical path" : "");
      drawn[n] = layout.nodes.size();
      layout.nodes.push_back(std::move(node));
      continue;
    }
    // The rest of a full row: one node standing for them all.
    ++layout.merged_units;
    std::size_t& merged = row_merged[row];
    if (merged == kNone) {
      merged = layout.nodes.size();
      layout.nodes.push_back(UccNode{UccNodeKind::merged, row, 0, depth, 0, 0, top_of(n), kCircle + 8, height_of(n),
                                     false, "", ""});
    }
    UccNode& node = layout.nodes[merged];
    const double bottom = std::max(node.y + node.height, top_of(n) + height_of(n));
    node.y = std::min(node.y, top_of(n));
    node.height = bottom - node.y;
    node.depth = std::min(node.depth, depth);
    ++node.units;
    node.weight += weight[n];
    node.critical = node.critical || critical[n];
    node.label = std::to_string(node.units) + "\\nunits";
    node.tooltip = std::to_string(node.units) + " more units of depth " + std::to_string(row) + ", merged (a row shows " +
                   std::to_string(kRowWidth) + ")";
    drawn[n] = merged;
  }

  // Arcs: the program's simple constraints and each VP's order; complex ones go through groups.
  const std::set<std::uint16_t> complex = complex_constructs(trace);
  std::set<std::tuple<std::size_t, std::size_t, std::string>> merged_arcs;
  const auto add_arc = [&](std::size_t from, std::size_t to, const std::string& kind, bool on_critical = false) {
    if (from == kNone || to == kNone || from == to) return;
    const bool via_merged = layout.nodes[from].kind == UccNodeKind::merged || layout.nodes[to].kind == UccNodeKind::merged;
    if (via_merged && !merged_arcs.insert({from, to, kind}).second) return;
    layout.arcs.push_back(UccArc{from, to, kind, on_critical});
  };
  std::vector<bool> on_path(graph.arcs.size(), false);
  for (std::uint32_t a : path.arcs) on_path[a] = true;
  for (std::size_t a = 0; a < graph.arcs.size(); ++a) {
    const UnitArc& arc = graph.arcs[a];
    if (arc.kind == ArcKind::constraint && !complex.count(arc.construct)) {
      add_arc(drawn[arc.from], drawn[arc.to], trace.construct_name(arc.construct), on_path[a]);
    } else if (arc.kind == ArcKind::same_vp) {
      add_arc(drawn[arc.from], drawn[arc.to], "same VP", on_path[a]);
    } else if (arc.kind == ArcKind::constraint && on_path[a]) {
      // A complex constraint the critical path goes through: drawn too, so the path stays unbroken.
      add_arc(drawn[arc.from], drawn[arc.to], "critical " + trace.construct_name(arc.construct), true);
    }
  }
  // Complex constraints: a node per group, in from every source, out to every sink, placed
  // just below the deepest of its sources.
  std::unordered_map<std::uint64_t, std::size_t> group_index;  // group id -> trace.groups
  for (std::size_t i = 0; i < trace.groups.size(); ++i) group_index[trace.groups[i].id] = i;
  std::vector<double> group_top(trace.groups.size(), 0);
  std::vector<std::uint64_t> group_depth(trace.groups.size(), 0);
  std::vector<std::size_t> sources(trace.groups.size(), 0), sinks(trace.groups.size(), 0);
  for (const auto& m : trace.group_members) {
    auto g = group_index.find(m.record.group);
    if (g == group_index.end()) continue;
    const std::size_t i = g->second;
    ++(m.record.role == 1 ? sources : sinks)[i];
    const std::uint32_t n = graph.node_of(m.record.unit);
    if (m.record.role != 1 || n == UINT32_MAX) continue;
    group_depth[i] = std::max(group_depth[i], rows.start[n] + 1);
    group_top[i] = std::max(group_top[i], options.weighted ? top_of(n) + height_of(n) + 2
                                                           : static_cast<double>(rows.start[n] + 1) * kRowHeight -
                                                                 (kRowHeight - kCircle) / 2 - kGroupSize / 2);
  }
  std::unordered_map<std::uint64_t, std::size_t> group_node;  // group id -> layout.nodes
  for (std::size_t i = 0; i < trace.groups.size(); ++i) {
    const trace::Trace::Group& g = trace.groups[i];
    if (group_depth[i] >= kMaxRows) continue;
    group_node[g.id] = layout.nodes.size();
    layout.nodes.push_back(UccNode{UccNodeKind::group, g.id, 0, group_depth[i], 0, 0, group_top[i], kGroupSize,
                                   kGroupSize, false, "",
                                   trace.construct_name(g.construct) + ": " + g.name + "\\n" + std::to_string(sources[i]) +
                                       " sources (units whose call affects it), " + std::to_string(sinks[i]) +
                                       " sinks (units it constrains)"});
  }
  for (const auto& m : trace.group_members) {
    auto g = group_node.find(m.record.group);
    const std::uint32_t n = graph.node_of(m.record.unit);
    if (g == group_node.end() || n == UINT32_MAX || drawn[n] == kNone) continue;
    const std::size_t unit_node = drawn[n];
    if (m.record.role == 1) {
      add_arc(unit_node, g->second, "group in");
    } else {
      add_arc(g->second, unit_node, "group out");
    }
  }
  place_columns(layout.nodes);
  return layout;
}

void render_ucc(const UccLayout& layout, const std::string& format, const std::string& path) {
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
      set(edge, "color", default_arc_color(arc.kind));
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
  legend += row("&#9671;", "complex constraint (typed-send group,<br align='left'/>singleton): lines in from the units whose<br align='left'/>"
                "call affects it (<font color='goldenrod'>gold</font>), out to the units<br align='left'/>it constrains (<font color='darkorange3'>orange</font>)<br align='left'/>");
  std::set<std::string> shown;
  for (const UccArc& arc : layout.arcs) {
    if (arc.kind != "same VP" && arc.kind != "group in" && arc.kind != "group out" && arc.kind.rfind("critical ", 0) != 0) {
      shown.insert(arc.kind);
    }
  }
  for (const std::string& kind : shown) {
    legend += "<tr><td bgcolor='" + default_arc_color(kind) + "'> </td><td align='left'>" + kind + "</td></tr>";
  }
  if (layout.merged_units) {
    legend += row("<font color='steelblue'>[ ]</font>", std::to_string(layout.merged_units) + " units merged: a row shows " +
                  std::to_string(kRowWidth) + " units");
  }
  if (layout.omitted_units) {
    legend += row("", std::to_string(layout.omitted_units) + " units deeper than " + std::to_string(kMaxRows) + " rows not drawn");
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

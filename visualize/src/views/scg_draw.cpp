// The SCG drawn: a laid-out SCG built as a pinned cgraph graph and rendered by gvc.
#include "moirai/visualize/views/scg.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <unordered_map>

#include "moirai/trace/number_text.h"
#include "moirai/visualize/model/run_span.h"
#include "moirai/visualize/views/pinned_graph.h"
#include "output/construct_views.h"
#include "output/text_format.h"

namespace moirai::visualize {

namespace {

constexpr double kArrow = 4.0;  // points: arrowhead length

// Overhead kinds in detail mode, in the order they are stacked from the top of a block.
struct OverheadKind {
  const char* name;
  const char* color;
};
constexpr OverheadKind kDecide{"assigner + switch", "grey45"};
constexpr OverheadKind kCommunicate{"state-update communication", "grey65"};
constexpr OverheadKind kLock{"runtime-lock wait", "grey20"};
constexpr OverheadKind kUpdate{"constraint update", "grey85"};
constexpr OverheadKind kCreate{"create meta-unit", "rosybrown"};
// Chores after the lock, inside the decision span: drawn after the assigner, before the work.
constexpr OverheadKind kWake{"waking cores (a chore after the lock)", "deeppink"};
constexpr OverheadKind kShell{"VP shell for the next creation (a chore after the lock)", "rosybrown"};
// The runtime's work a front-end estimated inside the unit (libomp's per task), at the end of the
// decision span: a grey of the runtime's own.
constexpr OverheadKind kEstimated{"the runtime's work inside the unit, estimated", "grey55"};
// Not overhead: time inside a work span when the core's thread did not run. Its own colour, so
// a preempted unit is not read as a long one.
constexpr OverheadKind kTaken{"taken by the OS", "#ffd700c0"};  // gold, the label shows through

std::string fmt(double value, const char* format = "%.2f") { return trace::number_text(value, format); }

// VpNames renders "VP 3 'worker'" without a search per unit.
class VpNames {
 public:
  explicit VpNames(const trace::Trace& trace) {
    for (const auto& vp : trace.vps) names_[vp.id] = &vp;
  }
  std::string operator()(std::uint64_t id) const {
    auto found = names_.find(id);
    return "VP " + std::to_string(id) + (found == names_.end() ? "" : " '" + found->second->name + "'");
  }
  const trace::Trace::Vp* find(std::uint64_t id) const {
    auto found = names_.find(id);
    return found == names_.end() ? nullptr : found->second;
  }

 private:
  std::unordered_map<std::uint64_t, const trace::Trace::Vp*> names_;
};

}  // namespace

std::string miss_color(double rate, double min, double max) {
  const double t = max > min ? std::clamp((rate - min) / (max - min), 0.0, 1.0) : 0.0;
  char text[8];
  std::snprintf(text, sizeof text, "#%02x00%02x", static_cast<int>(std::lround(255 * t)),
                static_cast<int>(std::lround(255 * (1 - t))));
  return text;
}

namespace {

// block_tooltip is what hovering a block shows. It is written while drawing, not kept in the
// layout: a large graph would otherwise hold every text twice (ours and Graphviz's copy).
std::string block_tooltip(const ScgLayout& layout, const trace::Trace& trace, const VpNames& vps, const ScgBlock& block) {
  if (block.merged > 1 || block.first == nullptr) {
    return std::to_string(block.merged) + " units merged (each below one point), from unit " + std::to_string(block.unit);
  }
  const trace::UnitRecord& r = block.first->record;
  std::string began;
  if (block.previous != nullptr) {
    began = trace.construct_name(block.previous->ended_by) + " at " + trace.site_name(block.previous->site);
  } else {
    const trace::Trace::Vp* vp = vps.find(r.vp);
    began = "created at " + (vp ? trace.site_name(vp->site) : std::string("?"));
  }
  std::string text = "unit " + std::to_string(r.unit) + ", " + vps(r.vp) + ", core " + std::to_string(block.core) +
                     "\\nbegan after " + began + "\\nended by " + trace.construct_name(r.ended_by) + " at " +
                     trace.site_name(r.site) + "\\ncycles " + std::to_string(block.ticks) + ": work " +
                     std::to_string(block.work_ticks) +
                     (block.taken_ticks ? " (of which taken by the OS " + std::to_string(block.taken_ticks) + ")" : std::string()) +
                     ", decide " + std::to_string(block.decide_ticks) +
                     (block.wake_ticks ? ", waking cores " + std::to_string(block.wake_ticks) : std::string()) +
                     (block.shell_ticks ? ", VP shell " + std::to_string(block.shell_ticks) : std::string()) +
                     (block.estimated_ticks ? ", runtime work (estimated) " + std::to_string(block.estimated_ticks) : std::string()) +
                     ", communicate " + std::to_string(r.handler - r.end) + " (lock " + std::to_string(block.lock_ticks) +
                     "), " + (block.created ? "create " : "update ") + std::to_string(block.update_ticks);
  for (std::size_t i = 0; i < block.first->counters.size() && i < trace.counters.size(); ++i) {
    text += "\\n" + trace.counters[i] + " " + std::to_string(block.first->counters[i]);
  }
  if (block.miss_rate >= 0) text += "\\nmisses per " + layout.miss_denominator + " " + fmt(block.miss_rate, "%.4g");
  return text;
}

}  // namespace

namespace {

// ScgDrawing is what drawing the SCG's parts shares: the layout, the trace, the graph being
// built and the words and colours every part uses alike.
struct ScgDrawing {
  const ScgLayout& layout;
  const trace::Trace& trace;
  detail::PinnedGraph& pinned;
  Agraph_t* graph;
  detail::ArcColours colour_of;
  std::string unit_word;  // what a tick is: cycles, ns or ticks
  std::size_t overlays = 0;

  ScgDrawing(const ScgLayout& drawn, const trace::Trace& read, detail::PinnedGraph& built)
      : layout(drawn), trace(read), pinned(built), graph(built.graph()), colour_of(read) {
    const bool tsc = trace.metadata.count("clock_source") && trace.metadata.at("clock_source") == "tsc";
    // TSC ticks are cycles; a 1 GHz clock (monotonic, or the simulated machine's default) counts
    // nanoseconds; any other simulated clock counts plain ticks.
    unit_word = tsc ? "cycles" : trace.clock_hz == 1e9 ? "ns" : "ticks";
  }

  std::string work_color(const ScgBlock& block) const {
    if (block.merged > 1) return std::string("lightsteelblue");
    if (layout.miss_counter.empty() || block.miss_rate < 0) return std::string("steelblue");
    return miss_color(block.miss_rate, layout.miss_min, layout.miss_max);
  }

  // overlay draws one segment of a block's life-line (or the OS's share) over the block.
  void overlay(const ScgBlock& block, const std::string& tooltip, double y, double height, const OverheadKind& kind) {
    if (height < 0.3) return;  // invisible at this scale
    const auto set = detail::set_attribute;
    Agnode_t* node = agnode(graph, const_cast<char*>(("o" + std::to_string(overlays++)).c_str()), 1);
    set(node, "shape", "box");
    set(node, "style", "filled");
    set(node, "fixedsize", "true");
    set(node, "penwidth", "0");
    set(node, "label", "");
    set(node, "fillcolor", kind.color);
    set(node, "width", fmt(layout.column_width / 72.0, "%.4f"));
    set(node, "height", fmt(height / 72.0, "%.4f"));
    set(node, "pos", fmt(layout.x_of(block.core) + layout.column_width / 2) + "," + fmt(-(y + height / 2)) + "!");
    set(node, "tooltip", std::string(kind.name) + " (" + tooltip + ")");
    set(node, "class", std::string("scgoverhead ") + kind.name);
  }

  // overlays_of draws a block's life-line in detail and what the OS took from its work.
  void overlays_of(const ScgBlock& block, const std::string& tooltip) {
    if (layout.overhead_detail && block.merged == 1 && block.ticks > 0) {
      // The life-line in time order, each segment as tall as its share of the block: decision to
      // animate, the work (the block's own fill shows through), then the lock wait, the rest of
      // the state-update communication and the constraint update.
      const double per_tick = block.height / static_cast<double>(block.ticks);
      double top = block.y;
      for (const auto& [ticks, kind] : {std::pair{block.decide_ticks, &kDecide}, std::pair{block.wake_ticks, &kWake},
                                        std::pair{block.shell_ticks, &kShell}, std::pair{block.estimated_ticks, &kEstimated},
                                        std::pair<std::uint64_t, const OverheadKind*>{block.work_ticks, nullptr},
                                        std::pair{block.lock_ticks, &kLock}, std::pair{block.communicate_ticks, &kCommunicate},
                                        std::pair{block.update_ticks, block.created ? &kCreate : &kUpdate}}) {
        const double h = static_cast<double>(ticks) * per_tick;
        if (kind != nullptr) overlay(block, tooltip, top, h, *kind);
        top += h;
      }
    }
    if (block.merged == 1 && block.taken_ticks > 0 && block.ticks > 0) {
      // The trace says how much of the work span the OS took, not when: drawn at the span's end.
      const double per_tick = block.height / static_cast<double>(block.ticks);
      const double work_end =
          block.y +
          static_cast<double>(block.decide_ticks + block.wake_ticks + block.shell_ticks + block.estimated_ticks + block.work_ticks) *
              per_tick;
      const double h = static_cast<double>(block.taken_ticks) * per_tick;
      overlay(block, tooltip, work_end - h, h, kTaken);
    }
  }

  // blocks draws a node per block, overhead over work, and returns them in the layout's order.
  std::vector<Agnode_t*> blocks() {
    const auto set = detail::set_attribute;
    const VpNames vps(trace);
    std::vector<Agnode_t*> nodes(layout.blocks.size());
    for (std::size_t i = 0; i < layout.blocks.size(); ++i) {
      const ScgBlock& block = layout.blocks[i];
      Agnode_t* node = agnode(graph, const_cast<char*>(("b" + std::to_string(i)).c_str()), 1);
      nodes[i] = node;
      const double height = std::max(block.height, 0.5);
      const double x = layout.x_of(block.core) + layout.column_width / 2;
      const double y = -(block.y + height / 2);
      set(node, "shape", "box");
      set(node, "style", "filled");
      set(node, "fixedsize", "true");
      set(node, "penwidth", "0.3");
      set(node, "width", fmt(layout.column_width / 72.0, "%.4f"));
      set(node, "height", fmt(height / 72.0, "%.4f"));
      set(node, "pos", fmt(x) + "," + fmt(y) + "!");
      const double overhead = block.ticks ? 1.0 - static_cast<double>(block.work_ticks) / static_cast<double>(block.ticks) : 0;
      if (layout.overhead_detail || block.merged > 1) {
        set(node, "fillcolor", work_color(block));
      } else {
        // Overhead (grey) over work; the two-stop gradient with a weight draws a sharp edge.
        set(node, "fillcolor", "grey70;" + fmt(std::clamp(overhead, 0.001, 0.999), "%.3f") + ":" + work_color(block));
        set(node, "gradientangle", "270");
      }
      set(node, "label", height >= 10 ? (block.merged > 1 ? std::to_string(block.merged) + " units" : std::to_string(block.unit)) : "");
      set(node, "fontsize", fmt(std::min(8.0, layout.column_width / 3), "%.1f"));
      const std::string tooltip = block_tooltip(layout, trace, vps, block);
      set(node, "tooltip", tooltip);
      set(node, "class", block.merged > 1 ? "scgmerged" : "scgunit");
      overlays_of(block, tooltip);
      if (block.critical) {
        set(node, "color", "black");  // not red: red lines are creations
        set(node, "penwidth", "2.5");
        set(node, "class", std::string(block.merged > 1 ? "scgmerged" : "scgunit") + " scgcritical");
      }
    }
    return nodes;
  }

  // arcs take the positions the layout gave them (nop2 keeps an edge's pos): from the freeing
  // point on the side of its column that faces the freed block, to the top of the freed block.
  void arcs(const std::vector<Agnode_t*>& nodes) const {
    const auto set = detail::set_attribute;
    for (const ScgArc& arc : layout.arcs) {
      const ScgBlock& tail = layout.blocks[arc.from];
      const ScgBlock& head = layout.blocks[arc.to];
      const double head_x = layout.x_of(head.core) + layout.column_width / 2;
      double tail_x = layout.x_of(tail.core) + layout.column_width / 2;
      if (head.core != tail.core) tail_x += (layout.x_of(head.core) > layout.x_of(tail.core) ? 0.5 : -0.5) * layout.column_width;
      const double x0 = tail_x, y0 = -arc.from_y, x3 = head_x, y3 = -arc.to_y;
      const double length = std::max(std::hypot(x3 - x0, y3 - y0), kArrow * 2);
      const double xe = x3 - (x3 - x0) * kArrow / length, ye = y3 - (y3 - y0) * kArrow / length;
      Agedge_t* edge = agedge(graph, nodes[arc.from], nodes[arc.to], nullptr, 1);
      set(edge, "pos", "e," + fmt(x3) + "," + fmt(y3) + " " + fmt(x0) + "," + fmt(y0) + " " + fmt(x0 + (xe - x0) / 3) +
                           "," + fmt(y0 + (ye - y0) / 3) + " " + fmt(x0 + 2 * (xe - x0) / 3) + "," +
                           fmt(y0 + 2 * (ye - y0) / 3) + " " + fmt(xe) + "," + fmt(ye));
      set(edge, "color", colour_of(arc.kind));
      set(edge, "arrowsize", "0.4");
      set(edge, "penwidth", arc.kind == kCoreSuccessionArc ? "0.4" : arc.kind == kCriticalPathArc ? "2.2" : "0.8");
      if (arc.kind == kCriticalPathArc) set(edge, "style", "dashed");
      set(edge, "class", "scgarc " + arc.kind);
      set(edge, "tooltip", arc.note.empty() ? arc.kind : arc.kind + ": " + arc.note);
    }
  }

  // axes draws the column heads and a time axis, counted from the run's start.
  void axes() const {
    const auto set = detail::set_attribute;
    for (std::uint32_t core : layout.cores) {
      Agnode_t* head = agnode(graph, const_cast<char*>(("core" + std::to_string(core)).c_str()), 1);
      set(head, "shape", "plaintext");
      set(head, "label", (layout.column_width >= 40 ? "core " : "") + std::to_string(core));
      set(head, "fontsize", layout.column_width >= 40 ? "14" : "7");
      set(head, "pos", fmt(layout.x_of(core) + layout.column_width / 2) + ",14!");
    }
    // A band above each node's columns, named after the node.
    for (std::size_t first = 0, last = 0; first < layout.nodes.size(); first = last) {
      while (last < layout.nodes.size() && layout.nodes[last] == layout.nodes[first]) ++last;
      const double left = layout.x_of(layout.cores[first]), right = layout.x_of(layout.cores[last - 1]) + layout.column_width;
      Agnode_t* band = agnode(graph, const_cast<char*>(("node" + std::to_string(first)).c_str()), 1);
      set(band, "shape", "box");
      set(band, "style", "filled");
      set(band, "fillcolor", "grey92");
      set(band, "class", "scgnode");
      set(band, "label", layout.nodes[first]);
      set(band, "tooltip", "node " + layout.nodes[first]);
      set(band, "fontsize", "10");
      set(band, "width", fmt((right - left) / 72.0, "%.4f"));
      set(band, "height", fmt(16 / 72.0, "%.4f"));
      set(band, "fixedsize", "true");
      set(band, "pos", fmt((left + right) / 2) + ",36!");
    }
    const double height_points = static_cast<double>(layout.makespan) / layout.cycles_per_point;
    const double offset = static_cast<double>(layout.origin - layout.run_start);
    for (int tick = 0; tick <= 10; ++tick) {
      Agnode_t* label = agnode(graph, const_cast<char*>(("t" + std::to_string(tick)).c_str()), 1);
      set(label, "shape", "plaintext");
      set(label, "fontsize", "8");
      const double ticks = offset + height_points * tick / 10 * layout.cycles_per_point;
      set(label, "label", fmt(ticks, "%.3g") + " " + unit_word + " (" + fmt(ticks * 1e3 / trace.clock_hz, "%.4g") + " ms) -");
      set(label, "pos", "-60," + fmt(-height_points * tick / 10) + "!");
    }
  }

  // legend_table is the legend's HTML table: the colours and lines this SCG uses, its window and scale.
  std::string legend_table() const {
    std::string legend = "<table border='0' cellborder='1' cellspacing='0' cellpadding='3'>"
                         "<tr><td colspan='2'><b>legend</b></td></tr>";
    if (layout.overhead_detail) {
      const auto row = [&](const OverheadKind& kind) {
        legend += "<tr><td bgcolor='" + std::string(kind.color) + "'> </td><td align='left'>overhead: " + kind.name + "</td></tr>";
      };
      for (const OverheadKind& kind : {kDecide, kCommunicate, kLock, kUpdate, kCreate}) row(kind);
      if (layout.chores_any) {
        row(kWake);
        row(kShell);
      }
      if (layout.estimated_any) row(kEstimated);
    } else {
      legend += "<tr><td bgcolor='grey70'> </td><td align='left'>runtime overhead of a unit</td></tr>";
    }
    if (layout.miss_counter.empty()) {
      legend += "<tr><td bgcolor='steelblue'> </td><td align='left'>work (no cache-miss counter in this trace: neutral colour)</td></tr>";
    } else {
      legend += "<tr><td bgcolor='#0000ff:#ff0000'> </td><td align='left'>work, by " + layout.miss_counter + " per " +
                layout.miss_denominator + ": blue " + fmt(layout.miss_min, "%.3g") + " to red " + fmt(layout.miss_max, "%.3g") +
                "</td></tr>";
    }
    std::set<std::string> shown;
    for (const ScgArc& arc : layout.arcs) shown.insert(arc.kind);
    for (const std::string& kind : shown) {
      legend += "<tr><td bgcolor='" + colour_of(kind) + "'> </td><td align='left'>" + kind + "</td></tr>";
    }
    if (layout.critical_units) {
      legend += "<tr><td><b>[ ]</b></td><td align='left'>black rim, bold dashed lines: the critical path, " +
                detail::plural(layout.critical_units, "unit") + " with " + std::to_string(layout.critical_work) + " " + unit_word +
                " of work; the run can be no shorter: split them</td></tr>";
    }
    if (layout.merged_any) legend += "<tr><td bgcolor='lightsteelblue'> </td><td align='left'>units below a point, merged per core</td></tr>";
    if (layout.taken_any) {
      legend += "<tr><td bgcolor='" + std::string(kTaken.color) + "'> </td><td align='left'>" + kTaken.name +
                ": inside a unit's work span its core's thread did not run (how much is recorded, not when: drawn at the span's end)</td></tr>";
    }
    const double offset = static_cast<double>(layout.origin - layout.run_start);
    if (layout.origin != layout.run_start || layout.makespan != run_span(trace).length()) {
      legend += "<tr><td colspan='2' align='left'>window: " + fmt(offset, "%.6g") + " to " +
                fmt(offset + static_cast<double>(layout.makespan), "%.6g") + " " + unit_word + "</td></tr>";
    }
    legend += "<tr><td colspan='2' align='left'>scale: " + fmt(layout.cycles_per_point, "%.4g") + " " + unit_word + " per point</td></tr></table>";
    return legend;
  }

  // legend places the legend a gap right of the last column, as wide as its longest line.
  void legend() const {
    const std::string table = legend_table();
    Agnode_t* key = agnode(graph, const_cast<char*>("legend"), 1);
    detail::set_attribute(key, "shape", "plaintext");
    pinned.html_label(key, table);
    std::size_t longest = 0, line = 0;
    for (std::size_t i = 0; i < table.size(); ++i) {
      if (table[i] == '<') {
        const std::size_t close = table.find('>', i);
        if (table.compare(i, 4, "<tr>") == 0) line = 0;
        i = close == std::string::npos ? table.size() : close;
      } else {
        longest = std::max(longest, ++line);
      }
    }
    const double right = layout.cores.empty() ? 0 : layout.x_of(layout.cores.back()) + layout.column_width;
    detail::set_attribute(key, "pos", fmt(right + 40 + 3.8 * static_cast<double>(longest)) + ",-100!");
  }
};

}  // namespace

void render_scg(const ScgLayout& layout, const trace::Trace& trace, const std::string& format,
                const std::string& path) {
  scg_graph(layout, trace)->render(format, path);
}

std::unique_ptr<detail::PinnedGraph> scg_graph(const ScgLayout& layout, const trace::Trace& trace) {
  auto built = std::make_unique<detail::PinnedGraph>("scg");
  ScgDrawing drawing(layout, trace, *built);
  const auto set = detail::set_attribute;
  set(drawing.graph, "outputorder", "nodesfirst");  // arcs cross the blocks, as in the paper
  set(drawing.graph, "label", layout.title);
  set(drawing.graph, "labelloc", "t");
  drawing.arcs(drawing.blocks());
  drawing.axes();
  drawing.legend();
  return built;
}

}  // namespace moirai::visualize

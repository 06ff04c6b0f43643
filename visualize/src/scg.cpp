#include "moirai/visualize/scg.h"

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <stdexcept>
#include <unordered_map>

namespace moirai::visualize {

namespace {

// The paper's default SCG shows creation, direct and typed sends and singleton dependencies;
// the receivers' crossing dependencies back to the senders are there on request.
const std::set<std::string> kDefaultKinds = {"create_vp",  "send_from_to",  "send_of_type_to",
                                             "send_of_type", "singleton", "singleton end"};
constexpr double kFitHeight = 1600;  // points, when no scale is given
constexpr double kMinBlock = 1.0;    // points: smaller units merge with their neighbours

std::string fmt(double value, const char* format = "%.2f") {
  char text[64];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

}  // namespace

std::string default_arc_color(const std::string& construct) {
  static const std::map<std::string, std::string> colors = {
      {"create_vp", "red"},           {"send_of_type_to", "green3"}, {"singleton", "orange"},
      {"singleton end", "orange"},    {"send_from_to", "blue"},      {"send_of_type", "purple"},
      {"receive_from_to", "skyblue"}, {"receive_of_type_to", "palegreen"},
      {"receive_of_type", "plum"}};
  auto found = colors.find(construct);
  return found == colors.end() ? "gray40" : found->second;
}

double ScgLayout::x_of(std::uint32_t core) const {
  const auto at = std::find(cores.begin(), cores.end(), core) - cores.begin();
  return static_cast<double>(at) * (column_width + column_gap);
}

ScgLayout layout_scg(const trace::Trace& trace, const ScgOptions& options) {
  if (options.cycles_per_point < 0) throw std::invalid_argument("the scale must be positive");
  ScgLayout layout;
  layout.cores = options.cores;
  if (layout.cores.empty()) {
    for (std::uint32_t k = 0; k < trace.core_count; ++k) layout.cores.push_back(k);
  }
  for (std::uint32_t core : layout.cores) {
    if (core >= trace.core_count) {
      throw std::invalid_argument("core " + std::to_string(core) + " does not exist: the trace has " +
                                  std::to_string(trace.core_count) + " cores (0.." +
                                  std::to_string(trace.core_count - 1) + ")");
    }
  }
  auto cmd = trace.metadata.find("command_line");
  layout.title = "Scheduling Consequence Graph: " + (cmd == trace.metadata.end() ? std::string("?") : cmd->second);

  // Units per core in time order; the run's extent.
  std::map<std::uint32_t, std::vector<const trace::Unit*>> per_core;
  std::uint64_t first = UINT64_MAX, last = 0;
  for (const trace::Unit& unit : trace.units) {
    first = std::min(first, unit.record.assign);
    last = std::max(last, unit.record.handler_end);
    per_core[unit.core].push_back(&unit);
  }
  for (const trace::Span& idle : trace.idle) {
    first = std::min(first, idle.begin);
    last = std::max(last, idle.end);
  }
  if (first == UINT64_MAX) first = last = 0;
  layout.origin = first;
  layout.makespan = last - first;
  layout.cycles_per_point = options.cycles_per_point > 0
                                ? options.cycles_per_point
                                : std::max(1.0, static_cast<double>(layout.makespan) / kFitHeight);

  std::unordered_map<std::uint64_t, std::size_t> block_of_unit;
  // VPs by id: a scan per block made a million-unit trace quadratic.
  std::unordered_map<std::uint64_t, const trace::Trace::Vp*> vp_by_id;
  for (const trace::Trace::Vp& v : trace.vps) vp_by_id.emplace(v.id, &v);
  for (std::uint32_t core : layout.cores) {
    auto& units = per_core[core];
    std::sort(units.begin(), units.end(),
              [](const trace::Unit* a, const trace::Unit* b) { return a->record.assign < b->record.assign; });
    for (const trace::Unit* unit : units) {
      const trace::UnitRecord& r = unit->record;
      const double y = static_cast<double>(r.assign - layout.origin) / layout.cycles_per_point;
      const double height = static_cast<double>(r.handler_end - r.assign) / layout.cycles_per_point;
      // A unit below a point joins the previous block on its core when that one is small too.
      if (height < kMinBlock && !layout.blocks.empty() && layout.blocks.back().core == core &&
          layout.blocks.back().height < kMinBlock &&
          layout.blocks.back().y + layout.blocks.back().height + kMinBlock >= y) {
        ScgBlock& block = layout.blocks.back();
        block.height = y + height - block.y;
        block.ticks += r.handler_end - r.assign;
        block.work_ticks += r.end - r.begin;
        ++block.merged;
        layout.merged_any = true;
        block.tooltip = std::to_string(block.merged) + " units merged (each below one point), from unit " +
                        std::to_string(block.unit);
        block_of_unit[r.unit] = layout.blocks.size() - 1;
        continue;
      }
      ScgBlock block;
      block.core = core;
      block.unit = r.unit;
      block.y = y;
      block.height = height;
      block.ticks = r.handler_end - r.assign;
      block.work_ticks = r.end - r.begin;
      const std::string vp = [&] {
        auto found = vp_by_id.find(r.vp);
        if (found != vp_by_id.end()) return "VP " + std::to_string(r.vp) + " '" + found->second->name + "'";
        return "VP " + std::to_string(r.vp);
      }();
      block.tooltip = "unit " + std::to_string(r.unit) + ", " + vp + ", core " + std::to_string(core) +
                      "\\nended by " + trace.construct_name(r.ended_by) + " at " + trace.site_name(r.site) +
                      "\\ncycles " + std::to_string(block.ticks) + ": work " + std::to_string(r.end - r.begin) +
                      ", decide " + std::to_string(r.begin - r.assign) + ", communicate " +
                      std::to_string(r.handler - r.end) + " (lock " + std::to_string(r.locked - r.end) +
                      "), update " + std::to_string(r.handler_end - r.handler);
      for (std::size_t i = 0; i < unit->counters.size() && i < trace.counters.size(); ++i) {
        block.tooltip += "\\n" + trace.counters[i] + " " + std::to_string(unit->counters[i]);
      }
      block_of_unit[r.unit] = layout.blocks.size();
      layout.blocks.push_back(std::move(block));
    }
  }

  const std::set<std::string>& kinds = options.arc_kinds.empty() ? kDefaultKinds : options.arc_kinds;
  for (const trace::ConstraintRecord& c : trace.constraints) {
    const std::string kind = trace.construct_name(c.construct);
    if (!kinds.count(kind)) continue;
    auto from = block_of_unit.find(c.from);
    auto to = block_of_unit.find(c.to);
    if (from == block_of_unit.end() || to == block_of_unit.end()) continue;  // a core not drawn
    if (!options.same_core_arcs && layout.blocks[from->second].core == layout.blocks[to->second].core) continue;
    layout.arcs.push_back(ScgArc{from->second, to->second, kind});
  }
  return layout;
}

void render_scg(const ScgLayout& layout, const trace::Trace& trace, const std::string& format,
                const std::string& path) {
  if (format != "svg" && format != "png" && format != "dot") {
    throw std::runtime_error("unknown output format '" + format + "' (svg, png or dot)");
  }
  Agraph_t* graph = agopen(const_cast<char*>("scg"), Agdirected, nullptr);
  auto set = [](void* object, const char* name, const std::string& value) {
    agsafeset(object, const_cast<char*>(name), const_cast<char*>(value.c_str()), const_cast<char*>(""));
  };
  set(graph, "splines", "line");
  set(graph, "outputorder", "edgesfirst");
  set(graph, "label", layout.title);
  set(graph, "labelloc", "t");
  set(graph, "fontname", "Helvetica");
  const bool tsc = trace.metadata.count("clock_source") && trace.metadata.at("clock_source") == "tsc";
  const std::string unit_word = tsc ? "cycles" : "ns";

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
    // Overhead (grey) over work; without a cache-miss counter the work region is neutral.
    set(node, "fillcolor", block.merged > 1 ? "lightsteelblue" : "grey70;" + fmt(std::clamp(overhead, 0.001, 0.999), "%.3f") + ":steelblue");
    set(node, "gradientangle", "270");
    set(node, "label", height >= 10 ? (block.merged > 1 ? std::to_string(block.merged) + " units" : std::to_string(block.unit)) : "");
    set(node, "fontsize", "8");
    set(node, "tooltip", block.tooltip);
    set(node, "class", block.merged > 1 ? "scgmerged" : "scgunit");
  }
  for (const ScgArc& arc : layout.arcs) {
    Agedge_t* edge = agedge(graph, nodes[arc.from], nodes[arc.to], nullptr, 1);
    set(edge, "color", default_arc_color(arc.kind));
    set(edge, "arrowsize", "0.4");
    set(edge, "penwidth", "0.8");
    set(edge, "class", "scgarc " + arc.kind);
    set(edge, "tooltip", arc.kind);
    // From the end of the freeing unit to the start of the freed one, as the paper draws them.
    set(edge, "tailport", "s");
    set(edge, "headport", "n");
  }
  // Column heads and a time axis, at the graph's own scale.
  for (std::uint32_t core : layout.cores) {
    Agnode_t* head = agnode(graph, const_cast<char*>(("core" + std::to_string(core)).c_str()), 1);
    set(head, "shape", "plaintext");
    set(head, "label", "core " + std::to_string(core));
    set(head, "pos", fmt(layout.x_of(core) + layout.column_width / 2) + ",14!");
  }
  const double height_points = static_cast<double>(layout.makespan) / layout.cycles_per_point;
  for (int tick = 0; tick <= 10; ++tick) {
    Agnode_t* label = agnode(graph, const_cast<char*>(("t" + std::to_string(tick)).c_str()), 1);
    set(label, "shape", "plaintext");
    set(label, "fontsize", "8");
    set(label, "label", fmt(height_points * tick / 10 * layout.cycles_per_point, "%.3g") + " " + unit_word + " -");
    set(label, "pos", "-40," + fmt(-height_points * tick / 10) + "!");
  }
  // Legend.
  std::string legend = "<table border='0' cellborder='1' cellspacing='0' cellpadding='3'>"
                       "<tr><td colspan='2'><b>legend</b></td></tr>"
                       "<tr><td bgcolor='grey70'> </td><td align='left'>runtime overhead of a unit</td></tr>"
                       "<tr><td bgcolor='steelblue'> </td><td align='left'>work (no cache-miss counter in this trace: neutral colour)</td></tr>";
  std::set<std::string> shown;
  for (const ScgArc& arc : layout.arcs) shown.insert(arc.kind);
  for (const std::string& kind : shown) {
    legend += "<tr><td bgcolor='" + default_arc_color(kind) + "'> </td><td align='left'>" + kind + "</td></tr>";
  }
  if (layout.merged_any) legend += "<tr><td bgcolor='lightsteelblue'> </td><td align='left'>units below a point, merged per core</td></tr>";
  legend += "<tr><td colspan='2' align='left'>scale: " + fmt(layout.cycles_per_point, "%.4g") + " " + unit_word + " per point</td></tr></table>";
  Agnode_t* key = agnode(graph, const_cast<char*>("legend"), 1);
  set(key, "shape", "plaintext");
  agsafeset(key, const_cast<char*>("label"), agstrdup_html(graph, const_cast<char*>(legend.c_str())), const_cast<char*>(""));
  const double right = layout.cores.empty() ? 0 : layout.x_of(layout.cores.back()) + layout.column_width;
  set(key, "pos", fmt(right + 220) + ",-100!");

  GVC_t* context = gvContext();
  int failed = gvLayout(context, graph, "nop2");
  if (failed == 0) failed = gvRenderFilename(context, graph, format.c_str(), path.c_str());
  gvFreeLayout(context, graph);
  agclose(graph);
  gvFreeContext(context);
  if (failed != 0) throw std::runtime_error("Graphviz could not render " + path);
}

}  // namespace moirai::visualize

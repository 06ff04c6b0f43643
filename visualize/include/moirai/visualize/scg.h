// The Scheduling Consequence Graph (paper section 3.3.2): one column per core, time going
// down, a block per unit (overhead over work), lines for the constraints that placed units.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "moirai/trace/reader.h"

namespace moirai::visualize {

// ScgOptions chooses scale, zoom and which arcs to draw.
struct ScgOptions {
  double cycles_per_point = 0;        // clock ticks per point (1/72 inch); 0 = fit ~1600 points
  std::set<std::string> arc_kinds;    // constructs to draw; empty = the paper's defaults
  bool same_core_arcs = false;        // also draw arcs within one core
  std::vector<std::uint32_t> cores;   // columns to draw; empty = all
};

// ScgBlock is one drawn block: a unit, or a run of units too small to see, merged.
struct ScgBlock {
  std::uint32_t core = 0;
  std::uint64_t unit = 0;        // first unit of the block
  std::uint32_t merged = 1;      // units in the block
  double y = 0, height = 0;      // points from the top
  std::uint64_t ticks = 0, work_ticks = 0;
  std::string tooltip;
};

// ScgArc is one drawn constraint: from the block of the freeing unit to that of the freed one.
struct ScgArc {
  std::size_t from = 0, to = 0;  // indexes into ScgLayout::blocks
  std::string kind;
};

// ScgLayout is the SCG with every position fixed, before drawing.
struct ScgLayout {
  double cycles_per_point = 1;
  double column_width = 72, column_gap = 36;
  std::uint64_t origin = 0, makespan = 0;  // ticks
  std::vector<std::uint32_t> cores;
  std::vector<ScgBlock> blocks;
  std::vector<ScgArc> arcs;
  bool merged_any = false;
  std::string title;
  double x_of(std::uint32_t core) const;
};

// layout_scg places every unit of `trace`; throws std::invalid_argument for a core the trace
// lacks or a negative scale.
ScgLayout layout_scg(const trace::Trace& trace, const ScgOptions& options);
// render_scg draws the layout through Graphviz (cgraph builds, gvc renders with the nop2
// layout engine) into `path` in `format` ("svg", "png" or "dot"); throws std::runtime_error.
void render_scg(const ScgLayout& layout, const trace::Trace& trace, const std::string& format,
                const std::string& path);
// default_arc_color is the colour of a construct's arcs (the paper's: create red,
// send_of_type_to green, singleton orange).
std::string default_arc_color(const std::string& construct);

}  // namespace moirai::visualize

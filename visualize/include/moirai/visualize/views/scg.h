// The Scheduling Consequence Graph (paper section 3.3.2): one column per core, time going
// down, a block per unit (overhead over work), lines for the constraints that placed units.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "moirai/trace/reader.h"
#include "moirai/visualize/model/arc_kinds.h"
#include "moirai/visualize/views/pinned_graph.h"

namespace moirai::visualize {

// ScgOptions chooses scale, zoom, colouring and which arcs to draw.
struct ScgOptions {
  double cycles_per_point = 0;        // clock ticks per point (1/72 inch); 0 = fit_cycles_per_point
  std::set<std::string> arc_kinds;    // constructs, lock handoff, core succession, user event; empty = defaults
  bool same_core_arcs = false;        // also draw constraint arcs within one core
  std::vector<std::uint32_t> cores;   // columns to draw; empty = all
  bool overhead_detail = false;       // split the overhead region into its life-line kinds
  std::optional<double> miss_min, miss_max;  // work colour range (misses per instruction); default: the data's
  std::optional<std::uint64_t> from, to;     // zoom: ticks since the run's first reading
  bool critical_path = false;         // rim the critical path's blocks and join them in order
};

// ScgBlock is one drawn block: a unit, or a run of units too small to see, merged.
struct ScgBlock {
  std::uint32_t core = 0;
  std::uint64_t unit = 0;        // first unit of the block
  std::uint32_t merged = 1;      // units in the block
  double y = 0, height = 0;      // points from the top
  std::uint64_t ticks = 0, work_ticks = 0;
  std::uint64_t taken_ticks = 0;  // of the work span, what the OS gave to something else
  // The overhead split by life-line segment (ticks): decision to animate (assigner and switch),
  // state-update communication without the lock wait, the lock wait, and the constraint update
  // (create meta-unit when the unit ended by creating a VP).
  std::uint64_t decide_ticks = 0, communicate_ticks = 0, lock_ticks = 0, update_ticks = 0;
  // The chores inside the decision span (trace format 3.2), taken out of decide_ticks: waking the
  // cores this core made work for, and making its next creation's VP shell.
  std::uint64_t wake_ticks = 0, shell_ticks = 0;
  // The runtime's work a front-end estimated at the unit's start (format 3.5), at the end of the
  // decision span, taken out of decide_ticks.
  std::uint64_t estimated_ticks = 0;
  bool created = false;          // the unit ended by creating a VP
  bool critical = false;         // holds a unit of the critical path (ScgOptions::critical_path)
  double miss_rate = -1;         // cache misses per instruction (or per work tick), -1 = unknown
  const trace::Unit* first = nullptr;             // its first unit, in the trace laid out
  const trace::UnitRecord* previous = nullptr;    // the unit of the same VP before it (began it)
};

// ScgArc is one drawn arc: from the point where the freeing unit acted to the start of the freed
// unit's block.
struct ScgArc {
  std::size_t from = 0, to = 0;  // indexes into ScgLayout::blocks
  std::string kind;
  double from_y = 0, to_y = 0;   // points from the top
  std::string note{};            // shown on hover besides the kind (a phase's name)
};

// ScgLayout is the SCG with every position fixed, before drawing. Its blocks point into the
// trace it was laid out from, which must outlive it.
struct ScgLayout {
  double cycles_per_point = 1;
  double column_width = 72, column_gap = 36;
  std::uint64_t origin = 0, makespan = 0;  // ticks: the drawn window's start and length
  std::uint64_t run_start = 0;             // ticks: the run's first reading (axis labels count from it)
  std::vector<std::uint32_t> cores;
  // nodes is the node of each drawn column (the trace's core_nodes, in `cores` order; empty when
  // the trace does not say): a node's columns stand together under its name, a gap between nodes.
  std::vector<std::string> nodes;
  std::vector<ScgBlock> blocks;
  std::vector<ScgArc> arcs;
  bool merged_any = false;
  bool taken_any = false;                  // some block's work span lost time to the OS
  bool chores_any = false;                 // some block's decision span holds a wake-up or VP shell
  bool estimated_any = false;              // ... or estimated runtime work
  bool overhead_detail = false;
  std::string miss_counter;                // the counter behind the work colour; empty = none
  std::string miss_denominator;            // "instruction" or "work tick"
  double miss_min = 0, miss_max = 0;       // the colour range used
  std::string title;
  std::size_t critical_units = 0;          // units of the critical path (when drawn)
  std::uint64_t critical_work = 0;         // ticks of work on it
  double x_of(std::uint32_t core) const;
};

// fit_cycles_per_point is the scale the SCG of `trace` gets when none is given (about 1600
// points for the whole run); drawing another trace at this scale makes the two comparable.
double fit_cycles_per_point(const trace::Trace& trace);
// layout_scg places every unit of `trace`; throws std::invalid_argument for a core the trace
// lacks, a negative scale, an empty zoom window or an inverted colour range.
ScgLayout layout_scg(const trace::Trace& trace, const ScgOptions& options);
// render_scg draws the layout through Graphviz (cgraph builds, gvc renders with the nop2
// layout engine) into `path` in `format` ("svg", "png" or "dot"); throws std::runtime_error.
void render_scg(const ScgLayout& layout, const trace::Trace& trace, const std::string& format,
                const std::string& path);
// scg_graph builds the cgraph graph render_scg draws, every position pinned; the graph holds
// copies of everything it needs, so a caller may free the layout and the trace before it renders
// (`->render(format, path)`), when Graphviz's own memory peaks.
std::unique_ptr<detail::PinnedGraph> scg_graph(const ScgLayout& layout, const trace::Trace& trace);
// miss_color is the work colour of a miss rate within [min, max]: blue (few) to red (many).
std::string miss_color(double rate, double min, double max);

}  // namespace moirai::visualize

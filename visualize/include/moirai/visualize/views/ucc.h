// The Unit & Constraint Collection (paper sections 3.3.1 and 5.4.1): the units of a run placed
// top to bottom by their depth in the program's dependencies, the constraints between them as
// lines, so the parallelism the program allows is visible.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "moirai/trace/reader.h"

namespace moirai::visualize {

// UccOptions chooses between the two pictures of the paper's figure 1.
struct UccOptions {
  bool weighted = false;  // boxes as tall as the unit's instructions, instead of circles
};

// UccNodeKind says what a drawn node stands for.
enum class UccNodeKind : std::uint8_t {
  unit,    // one unit
  group,   // a complex constraint: a typed-send group or a singleton's predecessors and successors
  merged,  // the units of one row beyond what a row shows
};

// UccNode is one drawn node with its pinned position, in points, y growing downward.
struct UccNode {
  UccNodeKind kind = UccNodeKind::unit;
  std::uint64_t id = 0;        // unit id, group id, or the row of a merged node
  std::uint32_t units = 1;     // units the node stands for
  std::uint64_t depth = 0;     // its row (units above it, groups between sources and sinks) or weight above it
  std::uint64_t weight = 0;    // instructions, or cycles of work without an instruction counter
  double x = 0, y = 0;         // centre x, top y
  double width = 0, height = 0;
  bool critical = false;       // on the critical path
  std::string label, tooltip;
};

// UccArc is one drawn line; kind is a construct name, "same VP", "group in", "group out", or
// "critical " + a complex construct's name (an arc of the critical path through a group).
struct UccArc {
  std::size_t from = 0, to = 0;  // indexes into UccLayout::nodes
  std::string kind;
  bool critical = false;         // on the critical path
};

// UccLayout is the UCC with every position fixed, before drawing.
struct UccLayout {
  bool weighted = false;
  std::string weight_name;       // what the weight counts, said in the legend
  double weight_per_point = 1;   // weighted: weight per point of height
  std::vector<UccNode> nodes;
  std::vector<UccArc> arcs;
  std::size_t merged_units = 0;  // units drawn inside merged nodes
  std::size_t omitted_units = 0; // units below the last row drawn
  std::size_t cyclic_group_lines = 0;  // group lines out that point up: the sink leads back to a source
  double parallelism = 0;        // total work / critical-path work
  std::string title;
  std::string note;              // shown when there is nothing to draw
  std::map<std::string, std::string> arc_colours;  // by arc kind, from the trace's constructs
  std::string group_kinds;       // the constructs that form complex constraints, for the legend
};

// layout_ucc places every unit and group of `trace`.
UccLayout layout_ucc(const trace::Trace& trace, const UccOptions& options);
// render_ucc draws the layout through Graphviz (pinned positions, nop2) into `path` in `format`
// ("svg", "png" or "dot"); throws std::runtime_error.
void render_ucc(const UccLayout& layout, const std::string& format, const std::string& path);

}  // namespace moirai::visualize

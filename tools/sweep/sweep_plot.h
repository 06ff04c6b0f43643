// The sweep's plot: makespan and runtime-overhead share against the parameter, drawn through
// Graphviz with every position pinned (cgraph builds, gvc renders with nop2), like the SCG.
#pragma once

#include <string>
#include <vector>

namespace moirai::sweep {

// PlotPoint is one value on the x axis; a failed value gets a marked tick and no points.
struct PlotPoint {
  std::string label;
  bool ok = false;
  double makespan_ms = 0;
  double overhead_pct = 0;
  bool best = false;
};

// plot_sweep draws the points, in the order given and evenly spaced, into `path` as SVG (or
// PNG/DOT by the extension); throws std::runtime_error when Graphviz cannot render.
void plot_sweep(const std::vector<PlotPoint>& points, const std::string& name, const std::string& subtitle,
                const std::string& path);

// nice_axis_max is the smallest 5 x {1, 2, 2.5, 5} x 10^k at or above `max`, so that five
// ticks of a round step span it (1 for max <= 0).
double nice_axis_max(double max);

}  // namespace moirai::sweep

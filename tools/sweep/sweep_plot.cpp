#include "sweep_plot.h"

#include <graphviz/cgraph.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "moirai/trace/number_text.h"
#include "moirai/visualize/views/pinned_graph.h"

namespace moirai::sweep {

namespace {

using trace::number_text;

constexpr double kMinWidth = 480, kHeight = 300;  // the plot area, points
constexpr double kPerValue = 48;                   // x-axis room per value, so labels do not collide
constexpr int kTicks = 5;                      // both y axes: their grid lines coincide
const char* const kMakespanColor = "#1f4e99";
const char* const kOverheadColor = "#d0421b";

std::string number(double value, const char* format = "%.2f") { return number_text(value, format); }

// Plot pins nodes at plot coordinates on visualize's PinnedGraph; edges are straight lines.
class Plot {
 public:
  Plot() : graph_("sweep") {
    set(graph_.graph(), "pad", "0.2");
    set(graph_.graph(), "labelloc", "t");
    agattr(graph_.graph(), AGNODE, const_cast<char*>("fontname"), const_cast<char*>("Helvetica"));
    agattr(graph_.graph(), AGEDGE, const_cast<char*>("dir"), const_cast<char*>("none"));
  }

  static void set(void* object, const char* name, const std::string& value) {
    visualize::detail::set_attribute(object, name, value);
  }
  visualize::detail::PinnedGraph& graph() { return graph_; }

  // point is a dot of `width` points at (x, y); `shape` is point, box, ...
  Agnode_t* point(double x, double y, const std::string& color, double width = 0.5, const std::string& shape = "point") {
    Agnode_t* node = add(x, y);
    set(node, "shape", shape);
    set(node, "style", "filled");
    set(node, "fixedsize", "true");
    set(node, "width", number(width / 72, "%.4f"));
    set(node, "height", number(width / 72, "%.4f"));
    set(node, "color", color);
    set(node, "fillcolor", color);
    set(node, "label", "");
    return node;
  }
  // text is a label centred at (x, y).
  Agnode_t* text(double x, double y, const std::string& label, double size = 10, const std::string& color = "black") {
    Agnode_t* node = add(x, y);
    set(node, "shape", "plaintext");
    set(node, "margin", "0");
    set(node, "width", "0");
    set(node, "height", "0");
    set(node, "fontsize", number(size, "%.0f"));
    set(node, "fontcolor", color);
    set(node, "label", label);
    return node;
  }
  // line joins two nodes.
  void line(Agnode_t* from, Agnode_t* to, const std::string& color, double width = 1) {
    Agedge_t* edge = agedge(graph_.graph(), from, to, nullptr, 1);
    set(edge, "color", color);
    set(edge, "penwidth", number(width, "%.2f"));
  }
  // segment draws a line between two places through tiny invisible end points.
  void segment(double x0, double y0, double x1, double y1, const std::string& color, double width = 1) {
    line(end_point(x0, y0), end_point(x1, y1), color, width);
  }

 private:
  Agnode_t* add(double x, double y) {
    Agnode_t* node = graph_.node("n" + std::to_string(count_++));
    set(node, "pos", visualize::detail::point(x, y));
    return node;
  }
  Agnode_t* end_point(double x, double y) {
    Agnode_t* node = add(x, y);
    set(node, "shape", "point");
    set(node, "width", "0.001");
    set(node, "height", "0.001");
    set(node, "style", "invis");
    return node;
  }
  visualize::detail::PinnedGraph graph_;
  int count_ = 0;
};

}  // namespace

double nice_axis_max(double max) {
  if (!(max > 0)) return 1;
  const double raw = max / kTicks;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  for (double step : {1.0, 2.0, 2.5, 5.0, 10.0}) {
    // A hair of tolerance, so 5 x 0.2 is not pushed to the next step by rounding.
    if (step * magnitude * kTicks >= max * (1 - 1e-12)) return step * magnitude * kTicks;
  }
  return 10 * magnitude * kTicks;
}

void plot_sweep(const std::vector<PlotPoint>& points, const std::string& name, const std::string& subtitle,
                const std::string& path) {
  double makespan_max = 0, overhead_max = 0;
  for (const PlotPoint& p : points) {
    if (!p.ok) continue;
    makespan_max = std::max(makespan_max, p.makespan_ms);
    overhead_max = std::max(overhead_max, p.overhead_pct);
  }
  const double left_max = nice_axis_max(makespan_max), right_max = nice_axis_max(overhead_max);
  const double width = std::max(kMinWidth, kPerValue * static_cast<double>(points.size()));
  Plot plot;
  Plot::set(plot.graph().graph(), "label", "moirai sweep: makespan and runtime overhead against " + name + "\n" + subtitle);

  // Grid, axes and ticks: both y axes have kTicks steps, so one grid line serves both.
  for (int k = 0; k <= kTicks; ++k) {
    const double y = kHeight * k / kTicks;
    if (k > 0) plot.segment(0, y, width, y, "grey85", 0.6);
    plot.segment(-4, y, 0, y, kMakespanColor);
    plot.segment(width, y, width + 4, y, kOverheadColor);
    plot.text(-8 - 14, y, number(left_max * k / kTicks, "%g"), 9, kMakespanColor);
    plot.text(width + 8 + 14, y, number(right_max * k / kTicks, "%g"), 9, kOverheadColor);
  }
  plot.segment(0, 0, width, 0, "black");
  plot.segment(0, 0, 0, kHeight, kMakespanColor, 1.2);
  plot.segment(width, 0, width, kHeight, kOverheadColor, 1.2);
  plot.text(0, kHeight + 16, "makespan, ms", 10, kMakespanColor);
  plot.text(width, kHeight + 16, "runtime overhead, % of core time", 10, kOverheadColor);
  plot.text(width / 2, -34, name, 11);

  // The series: a value's points are joined to the previous value's unless it failed.
  const std::size_t n = points.size();
  Agnode_t *previous_makespan = nullptr, *previous_overhead = nullptr;
  bool any_failed = false;
  for (std::size_t i = 0; i < n; ++i) {
    const PlotPoint& p = points[i];
    const double x = width * (static_cast<double>(i) + 0.5) / static_cast<double>(n);
    plot.segment(x, 0, x, -4, "black");
    // The best value is named under the axis, where no series point can cover it.
    plot.text(x, -14, p.ok ? (p.best ? p.label + " (best)" : p.label) : p.label + " (failed)", 9,
              p.ok ? (p.best ? kMakespanColor : "black") : "red");
    if (!p.ok) {
      plot.text(x, 0, "x", 10, "red");
      any_failed = true;
      previous_makespan = previous_overhead = nullptr;
      continue;
    }
    const double y_makespan = kHeight * p.makespan_ms / left_max, y_overhead = kHeight * p.overhead_pct / right_max;
    Agnode_t* makespan = plot.point(x, y_makespan, kMakespanColor, 6);
    Plot::set(makespan, "tooltip", name + "=" + p.label + ": makespan " + number(p.makespan_ms, "%.3f") + " ms");
    Agnode_t* overhead = plot.point(x, y_overhead, kOverheadColor, 5.5, "box");
    Plot::set(overhead, "tooltip", name + "=" + p.label + ": overhead " + number(p.overhead_pct, "%.2f") + "%");
    if (previous_makespan != nullptr) plot.line(previous_makespan, makespan, kMakespanColor, 1.6);
    if (previous_overhead != nullptr) plot.line(previous_overhead, overhead, kOverheadColor, 1.6);
    previous_makespan = makespan;
    previous_overhead = overhead;
  }

  std::string legend = std::string("<table border='0' cellborder='0' cellspacing='2'>") +
                       "<tr><td><font color='" + kMakespanColor + "'>&#9679;</font></td><td align='left'>makespan (left axis)</td></tr>"
                       "<tr><td><font color='" + kOverheadColor + "'>&#9632;</font></td><td align='left'>runtime overhead (right axis)</td></tr>" +
                       (any_failed ? "<tr><td><font color='red'>x</font></td><td align='left'>a value whose run failed</td></tr>" : "") +
                       "</table>";
  Agnode_t* key = plot.text(width + 120, kHeight - 20, "", 9);
  plot.graph().html_label(key, legend);

  const std::size_t dot = path.rfind('.');
  plot.graph().render(dot == std::string::npos ? "svg" : path.substr(dot + 1), path);
}

}  // namespace moirai::sweep

// The Graphviz boilerplate the pictures share: cgraph builds a graph whose every node is pinned,
// gvc renders it with the nop2 engine and straight lines.
#pragma once

#include <graphviz/cgraph.h>

#include <string>

namespace moirai::visualize::detail {

// PinnedGraph owns one directed cgraph graph with straight-line splines.
class PinnedGraph {
 public:
  explicit PinnedGraph(const std::string& name);
  ~PinnedGraph();
  PinnedGraph(const PinnedGraph&) = delete;
  PinnedGraph& operator=(const PinnedGraph&) = delete;

  // graph is the cgraph graph, for agnode and agedge.
  Agraph_t* graph() const { return graph_; }
  // node creates (or finds) the node called `name`.
  Agnode_t* node(const std::string& name);
  // html_label gives an object an HTML-like label.
  void html_label(void* object, const std::string& html);
  // render lays the pinned graph out with nop2 and writes `path` in `format` (svg, png, pdf or dot);
  // throws std::runtime_error for another format or when Graphviz fails.
  void render(const std::string& format, const std::string& path);

 private:
  Agraph_t* graph_;
};

// set_attribute sets an attribute of a graph, node or edge, declaring it with an empty default.
void set_attribute(void* object, const char* name, const std::string& value);
// point renders an x,y position pinned in points ("x,y!").
std::string point(double x, double y);

}  // namespace moirai::visualize::detail

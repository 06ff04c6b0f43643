#include "moirai/visualize/views/pinned_graph.h"

#include <graphviz/gvc.h>

#include <cstdio>
#include <stdexcept>

#include "moirai/visualize/output/output_file.h"
#include "output/text_format.h"

namespace moirai::visualize::detail {

namespace {

// context is the one Graphviz context of the process, never freed: Graphviz's pango plugin
// keeps a pointer to the last font name it measured, which the context owns, so a second
// context would make it read freed memory (ASan shows it when two graphs render in one process).
GVC_t* context() {
  static GVC_t* const gvc = gvContext();
  return gvc;
}

}  // namespace

PinnedGraph::PinnedGraph(const std::string& name)
    : graph_(agopen(const_cast<char*>(name.c_str()), Agdirected, nullptr)) {
  set_attribute(graph_, "splines", "line");
  set_attribute(graph_, "outputorder", "edgesfirst");
  set_attribute(graph_, "fontname", "Helvetica");
  // Nodes without a label show nothing. The default is printed into the DOT output (cgraph
  // leaves empty defaults out unless told), so Graphviz's own tools (neato -n2, gvpr) reading
  // the file do not fall back to "\N" and show the internal node names.
  agattr(graph_, AGNODE, const_cast<char*>("label"), const_cast<char*>(""))->print = 1;
}

PinnedGraph::~PinnedGraph() { agclose(graph_); }

Agnode_t* PinnedGraph::node(const std::string& name) {
  return agnode(graph_, const_cast<char*>(name.c_str()), 1);
}

void PinnedGraph::html_label(void* object, const std::string& html) {
  const std::string shown = visible_text(html);
  agsafeset(object, const_cast<char*>("label"), agstrdup_html(graph_, const_cast<char*>(shown.c_str())),
            const_cast<char*>(""));
}

void PinnedGraph::render(const std::string& format, const std::string& path) {
  if (format != "svg" && format != "png" && format != "pdf" && format != "dot") {
    throw std::runtime_error("unknown output format '" + format + "' (svg, png, pdf or dot)");
  }
  // The picture is rendered into memory and written through an OutputFile (a temporary renamed
  // into place), so a write that fails is an error and an existing file is never left cut short.
  OutputFile file(path);
  char* data = nullptr;
  unsigned int length = 0;
  int failed = gvLayout(context(), graph_, "nop2");
  if (failed == 0) failed = gvRenderData(context(), graph_, format.c_str(), &data, &length);
  gvFreeLayout(context(), graph_);
  const std::string picture = failed == 0 && data != nullptr ? std::string(data, length) : std::string();
  gvFreeRenderData(data);
  if (failed != 0) throw std::runtime_error("Graphviz could not render " + path);
  file.write(picture);
  file.commit();
}

void set_attribute(void* object, const char* name, const std::string& value) {
  // Names from the trace (VPs, phases, call sites) reach labels and tooltips: control characters
  // and invalid UTF-8 would make the SVG invalid XML.
  const std::string shown = visible_text(value);
  agsafeset(object, const_cast<char*>(name), const_cast<char*>(shown.c_str()), const_cast<char*>(""));
}

std::string point(double x, double y) {
  char text[64];
  std::snprintf(text, sizeof text, "%.2f,%.2f!", x, y);
  return text;
}

}  // namespace moirai::visualize::detail

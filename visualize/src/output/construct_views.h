// What the views draw and say about a trace's constructs, from the roles and colours the trace
// records (internal to visualize): no view names a language's constructs itself.
#pragma once

#include <set>
#include <string>
#include <unordered_map>

#include "moirai/trace/reader.h"

namespace moirai::visualize::detail {

// ArcColours gives each arc kind of a trace its colour: a construct's from the trace, the
// runtime's own arcs (lock handoff, core succession, user event, critical path) theirs.
class ArcColours {
 public:
  explicit ArcColours(const trace::Trace& trace);
  const std::string& operator()(const std::string& kind) const;

 private:
  std::unordered_map<std::string, std::string> colours_;
  std::string fallback_ = "gray40";
};

// default_arc_kinds are the kinds an SCG draws unless told otherwise (paper 3.3.2): constructs
// that create, send, grant or end an exclusive section, or carry a dependence or a wait, and
// application phases; the receivers' lines back to their senders only on request.
std::set<std::string> default_arc_kinds(const trace::Trace& trace);

// group_kinds says which constructs of the trace form complex constraints (groups of possible
// partners), in `style`: legend (an HTML label: "typed-send group,<br/>singleton") or plural
// ("typed sends and singletons").
enum class GroupWords { legend, plural };
std::string group_kinds(const trace::Trace& trace, GroupWords style);

// exclusive_name is the name of the trace's once-only section construct ("" without one).
std::string exclusive_name(const trace::Trace& trace);

}  // namespace moirai::visualize::detail

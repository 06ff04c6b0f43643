#include "output/construct_views.h"

#include <vector>

#include "moirai/visualize/model/arc_kinds.h"

namespace moirai::visualize::detail {

ArcColours::ArcColours(const trace::Trace& trace)
    : colours_{{kLockHandoffArc, "black"}, {kCoreSuccessionArc, "grey60"}, {kUserEventArc, "magenta"}, {kCriticalPathArc, "black"}} {
  for (std::uint32_t kind = 0; kind < trace.constructs.size(); ++kind) {
    if (kind < trace.construct_colours.size() && !trace.construct_colours[kind].empty()) {
      colours_.emplace(trace.constructs[kind], trace.construct_colours[kind]);
    }
  }
}

const std::string& ArcColours::operator()(const std::string& kind) const {
  auto found = colours_.find(kind);
  return found == colours_.end() ? fallback_ : found->second;
}

std::set<std::string> default_arc_kinds(const trace::Trace& trace) {
  std::set<std::string> kinds = {kUserEventArc};
  for (std::uint32_t kind = 0; kind < trace.constructs.size(); ++kind) {
    switch (trace.construct_role(kind)) {
      case ConstructRole::create:
      case ConstructRole::send:
      case ConstructRole::exclusive:
      case ConstructRole::exclusive_end:
      case ConstructRole::dependence:
      case ConstructRole::wait: kinds.insert(trace.constructs[kind]); break;
      default: break;
    }
  }
  return kinds;
}

std::string exclusive_name(const trace::Trace& trace) {
  const std::vector<std::uint32_t> kinds = trace.constructs_of(ConstructRole::exclusive);
  return kinds.empty() ? std::string() : trace.construct_name(kinds.front());
}

std::string group_kinds(const trace::Trace& trace, GroupWords style) {
  // A send that forms a group has its partner matched at run time: a typed send.
  std::vector<std::string> words;
  if (!trace.constructs_of(ConstructRole::send).empty()) words.push_back(style == GroupWords::legend ? "typed-send group" : "typed sends");
  for (ConstructRole role : {ConstructRole::exclusive, ConstructRole::wait}) {
    for (std::uint32_t kind : trace.constructs_of(role)) {
      const std::string& name = trace.constructs[kind];
      words.push_back(style == GroupWords::legend ? (role == ConstructRole::wait ? name + " group" : name) : name + "s");
    }
  }
  std::string text;
  for (std::size_t i = 0; i < words.size(); ++i) {
    // The legend's lines are short: each kind after the first starts a line of its own.
    const char* comma = style == GroupWords::legend ? ",<br align='left'/>" : ", ";
    text += (i == 0 ? "" : style == GroupWords::plural && i + 1 == words.size() ? " and " : comma) + words[i];
  }
  return text;
}

}  // namespace moirai::visualize::detail

// What a language construct does to scheduling, in words every view understands: the views find
// a language's creations, sends and exclusive sections by role, never by construct name.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace moirai {

// ConstructRole is a construct's part in scheduling (recorded with its name in the trace).
enum class ConstructRole : std::uint16_t {
  other = 0,          // none of these (and every construct of a trace that predates roles)
  end = 1,            // a VP or task ended
  create = 2,         // made a new VP or task, which may run once its creator's call returns
  send = 3,           // one unit freed one partner (a rendezvous, a message)
  receive = 4,        // the receiving side's line back to the sender, drawn on request
  exclusive = 5,      // granted a once-only section (a singleton): its body runs next
  exclusive_end = 6,  // the end of that section freed those that waited for it
  dependence = 7,     // a data dependence: a writer or reader freed a task that waited on it
  wait = 8,           // a wait for a set of units (a taskwait): freed by the last of them
};
inline constexpr std::uint16_t kConstructRoles = 9;

// role_name is the role's name in docs, JSON and `moirai stats`.
constexpr std::string_view role_name(ConstructRole role) {
  constexpr std::string_view names[] = {"other",     "end",           "create",     "send", "receive",
                                        "exclusive", "exclusive_end", "dependence", "wait"};
  const auto index = static_cast<std::uint16_t>(role);
  return index < kConstructRoles ? names[index] : "other";
}

// ConstructInfo is how a trace describes one construct kind.
struct ConstructInfo {
  std::string name;    // display name
  ConstructRole role = ConstructRole::other;
  std::string colour;  // Graphviz colour of its lines ("" lets the views choose)
};

}  // namespace moirai

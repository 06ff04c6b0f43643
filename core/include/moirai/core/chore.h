// The runtime's chores: work a core does for the runtime outside any unit and outside the
// runtime lock, recorded so that the views do not count it as the assigner's; and the runtime
// work a front-end estimates inside what would otherwise be a unit's work.
#pragma once

#include <cstdint>
#include <string_view>

namespace moirai {

// Chore is what the runtime did on a core outside its lock (value = trace field).
enum class Chore : std::uint16_t {
  wake_up = 1,   // woke the cores it had made work for (a parked core costs its waker a kernel call)
  vp_shell = 2,  // made the VP shell (stack and fiber) that the core's next creation will use
  // The runtime's own work that no event bounds, estimated (trace format 3.5): a front-end that
  // records a runtime it did not write (OMPT and libomp) books the runtime's known cost per call
  // out of the unit's work, at the unit's start.
  estimated = 3,
};

// chore_name is the chore's name in reports, exports and docs.
constexpr std::string_view chore_name(Chore chore) {
  switch (chore) {
    case Chore::wake_up: return "wake-up";
    case Chore::vp_shell: return "VP shell";
    case Chore::estimated: return "runtime work (estimated)";
  }
  return "chore";
}

}  // namespace moirai

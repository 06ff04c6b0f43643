// The runtime's chores: work a core does for the runtime outside any unit and outside the
// runtime lock, recorded so that the views do not count it as the assigner's.
#pragma once

#include <cstdint>
#include <string_view>

namespace moirai {

// Chore is what the runtime did on a core after it released the lock (value = trace field).
enum class Chore : std::uint16_t {
  wake_up = 1,   // woke the cores it had made work for (a parked core costs its waker a kernel call)
  vp_shell = 2,  // made the VP shell (stack and fiber) that the core's next creation will use
};

// chore_name is the chore's name in reports, exports and docs.
constexpr std::string_view chore_name(Chore chore) {
  return chore == Chore::wake_up ? "wake-up" : chore == Chore::vp_shell ? "VP shell" : "chore";
}

}  // namespace moirai

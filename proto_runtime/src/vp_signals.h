// Exceptions the runtime throws through a VP's stack to unwind it; application code must let
// them pass (a catch (...) that swallows them keeps the VP alive).
#pragma once

namespace moirai::proto::detail {

// VpExit unwinds a VP that ended itself.
struct VpExit {};
// VpCancelled unwinds a VP left suspended when the run stopped on a deadlock or a failure.
struct VpCancelled {};

}  // namespace moirai::proto::detail

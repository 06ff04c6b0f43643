// The arc kinds the views draw besides the constructs a trace names: the runtime's own and the
// hardware's causality, application phases and the critical path (part of the model, so every
// view and analysis names them alike without including another view).
#pragma once

namespace moirai::visualize {

// kLockHandoffArc joins the unit that released the runtime lock to the one that waited for it.
inline constexpr const char* kLockHandoffArc = "lock handoff";
// kCoreSuccessionArc joins consecutive units on one core.
inline constexpr const char* kCoreSuccessionArc = "core succession";
// kUserEventArc joins the begin and the end of an application phase (ctx.phase_begin/end).
inline constexpr const char* kUserEventArc = "user event";
// kCriticalPathArc joins consecutive units of the critical path (`moirai scg --critical-path`).
inline constexpr const char* kCriticalPathArc = "critical path";

}  // namespace moirai::visualize

// VpHost: what a running VP calls in the runtime that animates it.
#pragma once

#include <boost/context/fiber.hpp>

#include "exec_context.h"
#include "moirai/proto_runtime/virtual_processor.h"

namespace moirai::proto::detail {

// VpHost is the runtime seen from a VP's own stack. The runtime runs its scheduler step right
// there: handler, assigner, and a switch straight to the next VP, because a detour through the
// core's own stack would cost a second switch per construct.
class VpHost {
 public:
  virtual ~VpHost() = default;
  // arrived completes a switch into `self`: it stores the continuation of the context that
  // switched here (`from`, empty if that context ended) and tells ASan.
  virtual void arrived(ExecContext& self, boost::context::fiber&& from) = 0;
  // leave ends `vp`'s unit with its pending request and animates what comes next on its core;
  // it returns once `vp` runs again (possibly on another core).
  virtual void leave(VirtualProcessor& vp) = 0;
  // retire is called when `vp`'s function has returned: it handles the end of the VP and, when
  // the runtime keeps the VP as a hull for a later creation, parks it and returns true once a
  // creation has given it a new function to run. false: the fiber is to end (finish).
  virtual bool retire(VirtualProcessor& vp) = 0;
  // finish ends `vp`'s fiber (its end already handled, or the run unwinding it): it returns the
  // continuation to switch to; the VP is destroyed after the switch.
  virtual boost::context::fiber finish(VirtualProcessor& vp) = 0;
  // charge_work declares `ticks` of work for `vp`'s current unit to the machine.
  virtual void charge_work(VirtualProcessor& vp, std::uint64_t ticks) noexcept = 0;
  // mark_phase reports an application phase of `vp`'s current unit to the observer.
  virtual void mark_phase(VirtualProcessor& vp, const char* name, bool begin) = 0;

 protected:
  // Access to a VP's internals for the runtime that hosts it.
  static ExecContext& context_of(VirtualProcessor& vp) noexcept { return vp.context(); }
};

}  // namespace moirai::proto::detail

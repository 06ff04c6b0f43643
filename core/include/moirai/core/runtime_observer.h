// The proto-runtime's instrumentation points, as an observer interface recorders implement.
#pragma once

#include <cstdint>
#include <cstddef>
#include <string>
#include <vector>

#include "moirai/core/chore.h"
#include "moirai/core/ids.h"
#include "moirai/core/language_info.h"
#include "moirai/core/time_source.h"

namespace moirai {

// RuntimeObserver receives every instrumentation point of the proto-runtime. Each call happens on
// the thread animating the core it names, so an implementation may keep per-core state without
// locks. The defaults do nothing; with no observer installed the runtime pays one load and a
// predictable branch per point.
class RuntimeObserver {
 public:
  virtual ~RuntimeObserver() = default;

  // use_time_source is called before run_start by a machine that keeps its own time (a
  // simulation): from then on, read `time` instead of the host clock, during the run only
  // (`time` may be gone after the last core_stop).
  virtual void use_time_source(const TimeSource& /*time*/) {}
  // run_start describes the run before any core starts: the language (its name, each construct
  // kind's name, role and colour, its words and placement) and the number of cores.
  virtual void run_start(const LanguageInfo& /*language*/, std::size_t /*core_count*/) {}
  // language_names_domains says, before run_start, that the language names lock domains: its
  // handlers of different domains run at once and its assigner takes no shared lock.
  virtual void language_names_domains() {}
  // core_start is called on a core's thread before anything else happens on that core, and
  // core_stop after the last thing (per-thread resources such as counter sets live between).
  virtual void core_start(CoreId /*core*/) {}
  virtual void core_stop(CoreId /*core*/) {}
  // vp_created defines a VP for the trace (under the runtime lock, on the creating core).
  virtual void vp_created(CoreId /*core*/, VpId /*vp*/, const std::string& /*name*/,
                          const CallSite& /*created_at*/, CoreId /*home_core*/) {}
  // constraint says that `from`'s construct call satisfied a constraint on `to`, recorded by the
  // language's handler; both ends of one matched pair carry the same `match` id (0: none).
  virtual void constraint(CoreId /*core*/, ConstructKind /*kind*/, UnitId /*from*/,
                          UnitId /*to*/, std::uint64_t /*match*/) {}
  // user_event marks the begin (or end) of an application phase `name` (a string with static
  // storage) inside `unit`, on the core animating it.
  virtual void user_event(CoreId /*core*/, UnitId /*unit*/, const char* /*name*/, bool /*begin*/) {}
  // work_declared says that the unit running on `core` declared `ticks` more of its own work
  // (charge_work): real-core traces keep it beside the measured work, to fit a machine model.
  virtual void work_declared(CoreId /*core*/, std::uint64_t /*ticks*/) {}
  // group_member puts `unit` into the group of possible partners `group` (named once by
  // group_defined) in `role`, for non-deterministic constructs.
  virtual void group_defined(CoreId /*core*/, std::uint64_t /*group*/, ConstructKind /*kind*/,
                             const std::string& /*name*/) {}
  virtual void group_member(CoreId /*core*/, std::uint64_t /*group*/, std::uint16_t /*role*/,
                            UnitId /*unit*/) {}

  // unit_begin is called just before the core switches into `vp` to animate `unit`.
  virtual void unit_begin(CoreId /*core*/, VpId /*vp*/, UnitId /*unit*/) {}
  // unit_end is called just after `vp` switched back to the runtime, ending `unit` with a request
  // for construct `ended_by` made at `site`.
  virtual void unit_end(CoreId /*core*/, VpId /*vp*/, UnitId /*unit*/, ConstructKind /*ended_by*/,
                        const CallSite& /*site*/) {}
  // handler_enter / handler_exit bracket the language's request handler for `kind`, called on
  // behalf of `requesting_unit` (the unit that ended by making the request).
  virtual void handler_enter(CoreId /*core*/, ConstructKind /*kind*/, UnitId /*requesting_unit*/) {}
  virtual void handler_exit(CoreId /*core*/, ConstructKind /*kind*/, UnitId /*requesting_unit*/) {}
  // assigner_enter / assigner_exit bracket the language's assigner; `chosen` is the unit it picked
  // for this core, or 0 when it had nothing.
  virtual void assigner_enter(CoreId /*core*/) {}
  virtual void assigner_exit(CoreId /*core*/, UnitId /*chosen*/) {}
  // handler_domains names, before handler_enter, the lock domains the handler will hold (none:
  // it takes no lock; kWholeLanguage among them: all); only for a language that names domains.
  virtual void handler_domains(CoreId /*core*/, const LockDomain* /*keys*/, std::size_t /*count*/) {}
  // lock_wait_begin / lock_wait_end bracket a wait for a runtime lock (only when it was taken);
  // `released_by` is the core whose release let this one acquire it (runtime-internal causality)
  // and `domain` the lock domain waited for (kWholeLanguage: the one lock of a language that
  // names no domains).
  virtual void lock_wait_begin(CoreId /*core*/) {}
  virtual void lock_wait_end(CoreId /*core*/, CoreId /*released_by*/, LockDomain /*domain*/) {}
  // lock_domain_named gives `domain` its name in the program's words, before the first
  // lock_wait_end on it from `core` (each core names the domains it waits for once).
  virtual void lock_domain_named(CoreId /*core*/, LockDomain /*domain*/, const std::string& /*name*/) {}
  // idle_begin / idle_end bracket a period in which the core had nothing to animate.
  virtual void idle_begin(CoreId /*core*/) {}
  virtual void idle_end(CoreId /*core*/) {}
  // chore_begin / chore_end bracket a chore the core did after releasing the runtime lock, for
  // `cores` cores (wake-up) or one (VP shell); it lies inside a decision or idle span.
  virtual void chore_begin(CoreId /*core*/) {}
  virtual void chore_end(CoreId /*core*/, Chore /*chore*/, std::uint32_t /*cores*/) {}
};

}  // namespace moirai

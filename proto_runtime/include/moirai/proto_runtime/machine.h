// The machine under the runtime: real cores, or a simulated machine in virtual time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "moirai/core/ids.h"
#include "moirai/core/runtime_observer.h"

namespace moirai::proto {

struct CostModel;

// CoreScheduler is one step of a core's scheduler loop; the runtime implements it, the machine
// drives it.
class CoreScheduler {
 public:
  enum class Step { animated, idle, finished };
  virtual ~CoreScheduler() = default;
  // step asks the assigner for the core's next VP and animates it; the VPs then hand the core on
  // to each other until none is left for it (or, if the machine returns after each unit, for one
  // unit). Returns idle when the core has nothing to animate, finished when the run is over.
  virtual Step step(CoreId core) = 0;
  // handed_work tells, without the lock, whether a VP was handed to the idle `core` to animate
  // next: an idle loop that polls it needs no other signal for that VP while it spins.
  virtual bool handed_work(CoreId /*core*/) const noexcept { return false; }
};

// Machine runs the scheduler loop of each core and wakes idle cores when work arrives.
class Machine {
 public:
  virtual ~Machine() = default;
  // core_count is how many cores the machine offers the run.
  virtual std::size_t core_count() const = 0;
  // drive steps every core until each one's step returned finished.
  virtual void drive(CoreScheduler& scheduler) = 0;
  // notify_work tells an idle `core` (kAnyCore: every core) that it may have work.
  virtual void notify_work(CoreId core) = 0;
  // notify_handed tells an idle `core` that a VP was handed to it (CoreScheduler::handed_work
  // says so until the core takes it). A machine whose idle loop polls handed_work wakes the
  // core only if it sleeps, so that a spinning core's wake-up word does not move between caches.
  virtual void notify_handed(CoreId core) { notify_work(core); }
  // describe_core names a core in the machine's terms, for messages.
  virtual std::string describe_core(CoreId core) const = 0;
  // returns_after_each_unit asks the runtime to come back to the machine after every unit
  // (a simulation advancing virtual time per unit) instead of switching from one VP straight
  // to the next on the same core.
  virtual bool returns_after_each_unit() const { return false; }
  // observe returns the observer the runtime reports to: `observer` itself (maybe nullptr), or
  // a machine's own observer wrapping it (a simulation keeps its clocks there: it is called with
  // nullptr when there is no user's observer, and with recording compiled out it hears only the
  // clock points).
  virtual RuntimeObserver* observe(RuntimeObserver* observer) {
    return observer;
  }
  // charge_work adds `ticks` of declared work to the unit running on `core`; real cores
  // measure their work, so only a simulated machine counts it.
  virtual void charge_work(CoreId /*core*/, std::uint64_t /*ticks*/) noexcept {}
  // use_language_costs hands the machine, before a run starts, the default costs of the language
  // it runs (LanguageTable::costs): a simulated machine may price its constructs with them.
  virtual void use_language_costs(const CostModel& /*costs*/) {}
  // use_lock_domains tells the machine, before a run starts, whether the language names lock
  // domains (the observer then hears handler_domains before each handler) and how it names one
  // (an empty function: it names none): a simulated machine models each domain's lock, and the
  // assigner outside them.
  virtual void use_lock_domains(std::function<std::string(LockDomain)> /*name*/) {}
};

}  // namespace moirai::proto

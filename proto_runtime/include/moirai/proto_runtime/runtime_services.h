// What the proto-runtime offers a language's request handlers.
#pragma once

#include <cstddef>
#include <string>

#include <cstdint>

#include "moirai/core/ids.h"
#include "moirai/core/runtime_observer.h"
#include "moirai/proto_runtime/request.h"
#include "moirai/proto_runtime/virtual_processor.h"

namespace moirai::proto {

class Runtime;

// RuntimeServices is handed to each request handler; it is valid only during that call, which
// runs under the runtime lock.
class RuntimeServices {
 public:
  // create_vp makes a new VP (its first unit's meta-unit); it is not ready until make_ready.
  // Throws UsageError (without a call site) for a core the run lacks, a stack below
  // kMinStackSize or one that cannot be allocated.
  VirtualProcessor& create_vp(VpFunction fn, VpOptions options, const CallSite& created_at);
  // make_ready hands a suspended or new VP to the assigner, so some core will animate it.
  void make_ready(VirtualProcessor& vp);
  // fail makes the construct of `request` throw UsageError with `message` in its VP; the handler
  // must still make that VP ready.
  void fail(Request& request, std::string message);
  // recording says whether an observer records the run (to skip building names otherwise).
  bool recording() const noexcept { return observer_ != nullptr; }
  // record_constraint tells the recorder that `from`'s construct call freed unit `to`; both
  // ends of one matched pair pass the same `match` (from new_match).
  void record_constraint(ConstructKind kind, UnitId from, UnitId to, std::uint64_t match = 0) {
    if (observer_ != nullptr) observer_->constraint(core_, kind, from, to, match);
  }
  // new_match numbers a matched pair of constructs (0 when nothing records).
  std::uint64_t new_match() noexcept;
  // define_group names a group of possible partners (UCC) once; record_group_member adds a unit.
  void define_group(std::uint64_t group, ConstructKind kind, const std::string& name) {
    if (observer_ != nullptr) observer_->group_defined(core_, group, kind, name);
  }
  void record_group_member(std::uint64_t group, std::uint16_t role, UnitId unit) {
    if (observer_ != nullptr) observer_->group_member(core_, group, role, unit);
  }
  // core is the core running this handler.
  CoreId core() const noexcept { return core_; }
  // core_count is the number of cores of the run.
  std::size_t core_count() const noexcept;

 private:
  friend class Runtime;
  RuntimeServices(Runtime& runtime, CoreId core, RuntimeObserver* observer)
      : runtime_(runtime), core_(core), observer_(observer) {}
  Runtime& runtime_;
  CoreId core_;
  RuntimeObserver* observer_;
};

}  // namespace moirai::proto

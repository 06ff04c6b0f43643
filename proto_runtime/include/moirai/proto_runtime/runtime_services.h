// What the proto-runtime offers a language's request handlers.
#pragma once

#include <cstddef>
#include <string>

#include "moirai/instrument/ids.h"
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
  // core is the core running this handler.
  CoreId core() const noexcept { return core_; }
  // core_count is the number of cores of the run.
  std::size_t core_count() const noexcept;

 private:
  friend class Runtime;
  RuntimeServices(Runtime& runtime, CoreId core) : runtime_(runtime), core_(core) {}
  Runtime& runtime_;
  CoreId core_;
};

}  // namespace moirai::proto

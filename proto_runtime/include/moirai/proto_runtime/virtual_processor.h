// A virtual processor (VP): a suspendable sequential thread of application code on its own stack.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <string>

#include "moirai/core/ids.h"
#include "moirai/proto_runtime/request.h"
#include "moirai/proto_runtime/unique_function.h"

namespace moirai::proto {

class VirtualProcessor;
namespace detail {
class StackPool;
class VpHost;
struct ExecContext;
}

// VpFunction is the code a VP animates; it receives its own VP. It owns its callable, which may
// be move-only; 64 bytes inline hold a language's wrapper around a user's body (SSR's: a VpBody
// and the core count) without an allocation per VP.
using VpFunction = UniqueFunction<void(VirtualProcessor&), 64>;

// Body<Context> is a VP's code as a language hands it to programs: any callable taking the VP's
// Context (the language's handle on its constructs), move-only ones included.
template <class Context>
using Body = UniqueFunction<void(Context&)>;

// VpOptions chooses a new VP's name, the core it is pinned to and its stack size.
struct VpOptions {
  std::string name;               // for reports; defaults to "vp<id>"
  CoreId core = kAnyCore;         // pin to this core, or leave the choice to the assigner
  std::size_t stack_size = 0;     // bytes; 0 takes the runtime's default
};

// VirtualProcessor is a Boost.Context fiber with a guarded stack plus the runtime's meta-data
// for it. Only the runtime creates and destroys VPs; languages hold pointers to them while alive.
class VirtualProcessor {
 public:
  ~VirtualProcessor();
  VirtualProcessor(const VirtualProcessor&) = delete;
  VirtualProcessor& operator=(const VirtualProcessor&) = delete;

  // id numbers the VP from 1 in creation order.
  VpId id() const noexcept { return id_; }
  // name is the VP's display name.
  const std::string& name() const noexcept { return name_; }
  // created_at is where the VP was created.
  const CallSite& created_at() const noexcept { return created_at_; }
  // home_core is the core the VP is pinned to, or kAnyCore.
  CoreId home_core() const noexcept { return home_core_; }
  // last_core is the core that animated the VP last, or kAnyCore before its first unit.
  CoreId last_core() const noexcept { return last_core_; }
  // unit is the VP's current unit: the one it is animating, or the one it will animate next.
  UnitId unit() const noexcept { return unit_; }
  // pending_request is the request the VP is suspended in, or nullptr (running, or not started).
  const Request* pending_request() const noexcept { return pending_; }

  // call_runtime is called from inside this VP: it ends the current unit, hands `request` to the
  // language's handler and returns true when a handler made the VP ready again. Throws UsageError
  // when the handler failed the request. Returns false, doing nothing, only when the run was
  // stopped and this VP's stack is being unwound (a destructor calling a construct); the caller
  // must then not expect the construct's result.
  [[nodiscard]] bool call_runtime(Request& request);
  // mark_phase is called from inside this VP: it records the begin (or end) of the application
  // phase `name` (a string literal) in the current unit, when the run is recorded.
  void mark_phase(const char* name, bool begin);
  // charge_work is called from inside this VP: it declares `ticks` of work for the current unit,
  // which a simulated machine counts as the unit's duration (real cores ignore it).
  void charge_work(std::uint64_t ticks) noexcept;
  // end_self is called from inside this VP: it unwinds the VP's stack and ends it.
  [[noreturn]] void end_self(const CallSite& site);

  // language_slot is per-VP storage owned by the language plugin (touched by its handlers only).
  void* language_slot = nullptr;
  // assigner_link is a link the language's assigner may use to queue a ready VP without
  // allocating (touched by the assigner only).
  VirtualProcessor* assigner_link = nullptr;

 private:
  friend class Runtime;
  friend class detail::VpHost;
  struct Fiber;  // the Boost.Context fiber, its stack and its execution context

  VirtualProcessor(VpId id, std::string name, CallSite created_at, CoreId home_core,
                   detail::VpHost* host, detail::StackPool* pool, std::size_t stack_size,
                   VpFunction fn);
  // A shell: the stack and the fiber without the VP's identity and code, made ahead of a
  // creation so that the creation itself, under the runtime lock, maps no stack.
  VirtualProcessor(detail::VpHost* host, detail::StackPool* pool, std::size_t stack_size);
  // become gives a shell, or a hull (a VP that ended, its fiber kept), its identity and code.
  void become(VpId id, std::string name, CallSite created_at, CoreId home_core, VpFunction fn);
  detail::ExecContext& context() noexcept;

  VpId id_ = 0;
  std::string name_;
  CallSite created_at_;
  CoreId home_core_ = kAnyCore;
  CoreId last_core_ = kAnyCore;
  UnitId unit_ = 0;
  detail::VpHost* host_;
  VpFunction fn_;
  Request* pending_ = nullptr;
  Request end_request_;
  bool finished_ = false;
  bool cancelled_ = false;
  std::exception_ptr error_;
  std::unique_ptr<Fiber> fiber_;
  std::size_t owned_index_ = 0;  // position in the runtime's list of the VPs it owns
  VirtualProcessor* next_hull_ = nullptr;  // the next in the runtime's list of hulls
  std::size_t stack_size_ = 0;  // bytes asked for its stack
};

}  // namespace moirai::proto

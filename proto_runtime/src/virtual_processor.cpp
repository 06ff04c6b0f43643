#include "moirai/proto_runtime/virtual_processor.h"

#include <boost/context/fiber.hpp>
#include <boost/context/preallocated.hpp>
#include <exception>
#include <memory>
#include <new>
#include <utility>

#include "exec_context.h"
#include "fiber_stack.h"
#include "moirai/proto_runtime/errors.h"
#include "vp_host.h"
#include "vp_signals.h"

namespace moirai::proto {

namespace ctx = boost::context;

struct VirtualProcessor::Fiber {
  detail::ExecContext context;
  ctx::stack_context stack{};
  detail::GuardedStack source;
};

namespace {

constexpr std::size_t kLine = 64;
constexpr std::size_t line_up(std::size_t bytes) { return (bytes + kLine - 1) & ~(kLine - 1); }

// LentStack is the fiber's stack allocator: the stack belongs to the VP, whose object lives on
// it, so the fiber's end must not free it; VirtualProcessor::destroy does after the object.
struct LentStack {
  ctx::stack_context allocate() { return {}; }
  void deallocate(ctx::stack_context&) noexcept {}
};

}  // namespace

VirtualProcessor* VirtualProcessor::make(VpId id, std::string name, CallSite created_at,
                                         CoreId home_core, detail::VpHost* host,
                                         detail::StackPool* pool, std::size_t stack_size,
                                         VpFunction fn) {
  detail::GuardedStack source(pool, stack_size);
  ctx::stack_context stack = source.allocate();
  char* const top = static_cast<char*>(stack.sp);  // page-aligned: so is every line below
  void* const object = top - line_up(sizeof(VirtualProcessor));
  auto* const fiber = ::new (static_cast<char*>(object) - line_up(sizeof(Fiber))) Fiber{{}, stack, source};
  try {
    return ::new (object) VirtualProcessor(id, std::move(name), created_at, home_core, host, fiber,
                                           std::move(fn));
  } catch (...) {
    fiber->~Fiber();
    source.deallocate(stack);
    throw;
  }
}

void VirtualProcessor::destroy(VirtualProcessor* vp) noexcept {
  Fiber* const fiber = vp->fiber_;
  ctx::stack_context stack = fiber->stack;
  detail::GuardedStack source = fiber->source;
  vp->~VirtualProcessor();
  fiber->~Fiber();
  source.deallocate(stack);
}

VirtualProcessor::VirtualProcessor(VpId id, std::string name, CallSite created_at,
                                   CoreId home_core, detail::VpHost* host, Fiber* fiber,
                                   VpFunction fn)
    : id_(id),
      host_(host),
      home_core_(home_core),
      fiber_(fiber),
      name_(std::move(name)),
      created_at_(created_at),
      fn_(std::move(fn)) {
  end_request_.kind = kEndVp;
  end_request_.site = created_at_;
  end_request_.requester = this;
  // The fiber's stack ends below the VP's object and its Fiber record.
  const std::size_t usable = static_cast<std::size_t>(reinterpret_cast<char*>(fiber_) -
                                                      (static_cast<char*>(fiber_->stack.sp) - fiber_->stack.size));
  fiber_->context.fiber = ctx::fiber(
      std::allocator_arg, ctx::preallocated(fiber_, usable, fiber_->stack), LentStack{},
      [this](ctx::fiber&& from) {
        host_->arrived(fiber_->context, std::move(from));
        if (!cancelled_) {
          try {
            fn_(*this);
          } catch (const detail::VpExit&) {
            // end_self: the stack is unwound, the VP ends normally
          } catch (const detail::VpCancelled&) {
            // the run stopped (deadlock or failure elsewhere): unwinding only
          } catch (...) {
            error_ = std::current_exception();
          }
        }
        finished_ = true;
        pending_ = nullptr;
        return host_->finish(*this);
      });
  fiber_->context.stack_bottom = static_cast<const char*>(fiber_->stack.sp) - fiber_->stack.size;
  fiber_->context.stack_size = fiber_->stack.size;
}

VirtualProcessor::~VirtualProcessor() = default;

detail::ExecContext& VirtualProcessor::context() noexcept { return fiber_->context; }

bool VirtualProcessor::call_runtime(Request& request) {
  if (cancelled_) {
    // A destructor may call a construct while the stop unwinds this stack: throwing again would
    // terminate the process, so the construct is skipped instead.
    if (std::uncaught_exceptions() > 0) return false;
    throw detail::VpCancelled{};
  }
  request.requester = this;
  pending_ = &request;
  host_->leave(*this);
  pending_ = nullptr;
  if (cancelled_) throw detail::VpCancelled{};
  if (!refusal_.empty()) {
    std::string refusal = std::move(refusal_);
    refusal_.clear();
    throw UsageError(format_site(request.site) + ": " + refusal);
  }
  return true;
}

void VirtualProcessor::mark_phase(const char* name, bool begin) { host_->mark_phase(*this, name, begin); }

void VirtualProcessor::charge_work(std::uint64_t ticks) noexcept { host_->charge_work(*this, ticks); }

void VirtualProcessor::end_self(const CallSite& site) {
  end_request_.site = site;
  throw detail::VpExit{};
}

}  // namespace moirai::proto

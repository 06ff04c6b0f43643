#include "moirai/proto_runtime/virtual_processor.h"

#include <boost/context/fiber.hpp>
#include <memory>
#include <utility>

#include "fiber_stack.h"
#include "moirai/proto_runtime/errors.h"
#include "sanitizer_fiber.h"
#include "vp_signals.h"

namespace moirai::proto {

namespace ctx = boost::context;

struct VirtualProcessor::Fiber {
  ctx::fiber vp_side;        // the VP's context while it is suspended
  ctx::fiber runtime_side;   // the animating core's context while the VP runs
  ctx::stack_context stack{};
  detail::SanitizerFiber sanitizer;
};

VirtualProcessor::VirtualProcessor(VpId id, std::string name, CallSite created_at,
                                   CoreId home_core, detail::StackPool* pool,
                                   std::size_t stack_size, VpFunction fn)
    : id_(id),
      name_(std::move(name)),
      created_at_(created_at),
      home_core_(home_core),
      fn_(std::move(fn)),
      fiber_(std::make_unique<Fiber>()) {
  end_request_.kind = kEndVp;
  end_request_.site = created_at_;
  end_request_.requester = this;
  fiber_->vp_side = ctx::fiber(std::allocator_arg,
                               detail::GuardedStack(pool, stack_size, &fiber_->stack),
                               [this](ctx::fiber&& core) {
                                 fiber_->runtime_side = std::move(core);
                                 entry();
                                 return std::move(fiber_->runtime_side);
                               });
}

VirtualProcessor::~VirtualProcessor() = default;

void VirtualProcessor::entry() {
  fiber_->sanitizer.arrived();
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
  fiber_->sanitizer.leave(/*final=*/true);
}

void VirtualProcessor::switch_in(CoreId core) {
  last_core_ = core;
  const auto* bottom = static_cast<const char*>(fiber_->stack.sp) - fiber_->stack.size;
  void* save = detail::SanitizerFiber::enter(bottom, fiber_->stack.size);
  fiber_->vp_side = std::move(fiber_->vp_side).resume();
  detail::SanitizerFiber::entered_back(save);
}

void VirtualProcessor::switch_out() {
  fiber_->sanitizer.leave(/*final=*/false);
  fiber_->runtime_side = std::move(fiber_->runtime_side).resume();
  fiber_->sanitizer.arrived();
}

bool VirtualProcessor::call_runtime(Request& request) {
  if (cancelled_) {
    // A destructor may call a construct while the stop unwinds this stack: throwing again would
    // terminate the process, so the construct is skipped instead.
    if (std::uncaught_exceptions() > 0) return false;
    throw detail::VpCancelled{};
  }
  request.requester = this;
  request.error.clear();
  pending_ = &request;
  switch_out();
  pending_ = nullptr;
  if (cancelled_) throw detail::VpCancelled{};
  if (!request.error.empty()) {
    throw UsageError(format_site(request.site) + ": " + request.error);
  }
  return true;
}

void VirtualProcessor::end_self(const CallSite& site) {
  end_request_.site = site;
  throw detail::VpExit{};
}

}  // namespace moirai::proto

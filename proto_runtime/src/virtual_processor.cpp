#include "moirai/proto_runtime/virtual_processor.h"

#include <boost/context/fiber.hpp>
#include <exception>
#include <memory>
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
};

VirtualProcessor::VirtualProcessor(VpId id, std::string name, CallSite created_at,
                                   CoreId home_core, detail::VpHost* host,
                                   detail::StackPool* pool, std::size_t stack_size, VpFunction fn)
    : VirtualProcessor(host, pool, stack_size) {
  become(id, std::move(name), created_at, home_core, std::move(fn));
}

void VirtualProcessor::become(VpId id, std::string name, CallSite created_at, CoreId home_core,
                              VpFunction fn) {
  id_ = id;
  name_ = std::move(name);
  created_at_ = created_at;
  home_core_ = home_core;
  fn_ = std::move(fn);
  end_request_.site = created_at_;
  end_request_.error.clear();
  // What a hull kept from the VP it animated before.
  last_core_ = kAnyCore;
  pending_ = nullptr;
  finished_ = false;
  error_ = nullptr;
  language_slot = nullptr;
  assigner_link = nullptr;
}

VirtualProcessor::VirtualProcessor(detail::VpHost* host, detail::StackPool* pool,
                                   std::size_t stack_size)
    : host_(host), fiber_(std::make_unique<Fiber>()), stack_size_(stack_size) {
  end_request_.kind = kEndVp;
  end_request_.requester = this;
  fiber_->context.fiber = ctx::fiber(
      std::allocator_arg, detail::GuardedStack(pool, stack_size, &fiber_->stack, this),
      [this](ctx::fiber&& from) {
        host_->arrived(fiber_->context, std::move(from));
        // One fiber animates one VP after another: a VP that ended is kept as a hull, which a
        // later creation gives a new identity and function (retire), so that a short-lived VP
        // costs neither a fiber, a stack nor an allocation.
        do {
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
          fn_ = nullptr;  // the body's captures go here, on the VP's own stack
          finished_ = true;
          pending_ = nullptr;
        } while (host_->retire(*this));
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
  request.error.clear();
  pending_ = &request;
  host_->leave(*this);
  pending_ = nullptr;
  if (cancelled_) throw detail::VpCancelled{};
  if (!request.error.empty()) {
    throw UsageError(format_site(request.site) + ": " + request.error);
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

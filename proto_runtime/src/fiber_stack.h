// The stack allocator behind every VP: Boost.Context's guard-paged stack, remembered for ASan.
#pragma once

#include <boost/context/protected_fixedsize_stack.hpp>
#include <boost/context/stack_context.hpp>

namespace moirai::proto::detail {

// GuardedStack allocates a protected_fixedsize_stack (a PROT_NONE page below the stack, so an
// overflow faults instead of corrupting memory) and reports where it lives, because the
// AddressSanitizer fiber-switch annotations need the stack's bounds.
class GuardedStack {
 public:
  GuardedStack(std::size_t size, boost::context::stack_context* placed) noexcept
      : inner_(size), placed_(placed) {}

  boost::context::stack_context allocate() {
    boost::context::stack_context stack = inner_.allocate();
    *placed_ = stack;
    return stack;
  }
  void deallocate(boost::context::stack_context& stack) noexcept { inner_.deallocate(stack); }

 private:
  boost::context::protected_fixedsize_stack inner_;
  boost::context::stack_context* placed_;
};

}  // namespace moirai::proto::detail

// AddressSanitizer annotations for stack switches; empty unless built with -fsanitize=address.
#pragma once

#include <cstddef>

#include "exec_context.h"

// GCC says -fsanitize=address by __SANITIZE_ADDRESS__; clang (16 at least) only by __has_feature.
#if defined(__SANITIZE_ADDRESS__)
#define MOIRAI_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MOIRAI_ASAN 1
#endif
#endif
#if MOIRAI_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

namespace moirai::proto::detail {

// Boost.Context's fcontext backend does not tell ASan that execution moved to another stack;
// without these calls ASan takes a VP stack for an overflow of the thread stack.
struct SanitizerFiber {
  // leave: about to switch to the stack [bottom, bottom + size); `fake` keeps this stack's
  // fake frames (nullptr when this stack goes away). The simulated machine's switches use it too.
  static void leave(void** fake, const void* bottom, std::size_t size) noexcept {
#if MOIRAI_ASAN
    __sanitizer_start_switch_fiber(fake, bottom, size);
#else
    (void)fake, (void)bottom, (void)size;
#endif
  }
  // arrive: now running on the stack whose fake frames are `fake`; the stack left behind is
  // reported in `bottom` and `size`.
  static void arrive(void* fake, const void** bottom, std::size_t* size) noexcept {
#if MOIRAI_ASAN
    __sanitizer_finish_switch_fiber(fake, bottom, size);
#else
    (void)fake, (void)bottom, (void)size;
#endif
  }
  // before_switch: about to leave `from` for `to`; `from_ends` when `from`'s stack goes away.
  static void before_switch(ExecContext& from, const ExecContext& to, bool from_ends) noexcept {
    leave(from_ends ? nullptr : &from.fake_stack, to.stack_bottom, to.stack_size);
  }
  // after_switch: now running on `self`'s stack, having come from `from` (nullptr if it ended);
  // a core's own stack learns its bounds here the first time it is left.
  static void after_switch(ExecContext& self, ExecContext* from) noexcept {
    const void* bottom = nullptr;
    std::size_t size = 0;
    arrive(self.fake_stack, &bottom, &size);
    if (from != nullptr && from->stack_bottom == nullptr) {
      from->stack_bottom = bottom;
      from->stack_size = size;
    }
  }
  // forget_stack clears ASan's view of a VP stack that is about to be reused.
  static void forget_stack(const void* bottom, std::size_t size) noexcept {
#if MOIRAI_ASAN
    __asan_unpoison_memory_region(bottom, size);
#else
    (void)bottom, (void)size;
#endif
  }
};

}  // namespace moirai::proto::detail

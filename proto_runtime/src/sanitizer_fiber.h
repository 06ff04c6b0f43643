// AddressSanitizer annotations for stack switches; empty unless built with -fsanitize=address.
#pragma once

#include <cstddef>

#if defined(__SANITIZE_ADDRESS__)
#define MOIRAI_ASAN 1
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

namespace moirai::proto::detail {

// SanitizerFiber keeps what ASan must be told when execution moves between the core thread's
// stack and a VP's stack: Boost.Context's fcontext backend does not tell it, and without these
// calls ASan mistakes the VP stack for an overflow of the thread stack.
struct SanitizerFiber {
#if MOIRAI_ASAN
  void* fake_stack = nullptr;       // the VP side's fake stack while it is switched out
  const void* caller_bottom = nullptr;  // the stack of the core thread that animates the VP
  std::size_t caller_size = 0;
#endif

  // forget_stack clears ASan's view of a VP stack that is about to be reused.
  static void forget_stack(const void* bottom, std::size_t size) noexcept {
#if MOIRAI_ASAN
    __asan_unpoison_memory_region(bottom, size);
#else
    (void)bottom, (void)size;
#endif
  }
  // Runtime side: about to switch into the VP whose stack is [bottom, bottom + size).
  static void* enter(const void* bottom, std::size_t size) noexcept {
#if MOIRAI_ASAN
    void* save = nullptr;
    __sanitizer_start_switch_fiber(&save, bottom, size);
    return save;
#else
    (void)bottom, (void)size;
    return nullptr;
#endif
  }
  // Runtime side: back from the VP.
  static void entered_back(void* save) noexcept {
#if MOIRAI_ASAN
    __sanitizer_finish_switch_fiber(save, nullptr, nullptr);
#else
    (void)save;
#endif
  }
  // VP side: now running on the VP stack (at entry and after every resume).
  void arrived() noexcept {
#if MOIRAI_ASAN
    __sanitizer_finish_switch_fiber(fake_stack, &caller_bottom, &caller_size);
#endif
  }
  // VP side: about to switch back to the core; `final` when the VP's stack is about to go away.
  void leave(bool final) noexcept {
#if MOIRAI_ASAN
    __sanitizer_start_switch_fiber(final ? nullptr : &fake_stack, caller_bottom, caller_size);
#else
    (void)final;
#endif
  }
};

}  // namespace moirai::proto::detail

// An execution context: a stack the runtime can switch away from and back to (a VP's stack, or
// a core thread's own stack), with what the switch needs to hand over and tell ASan.
#pragma once

#include <atomic>
#include <boost/context/fiber.hpp>
#include <cstddef>

#include "moirai/core/ids.h"

namespace moirai::proto::detail {

struct ExecContext {
  boost::context::fiber fiber;        // the suspended continuation (empty while it runs)
  std::atomic<bool> parked{true};     // `fiber` holds the continuation: safe to resume
  CoreId core = 0;                    // the core it runs on (set by whoever resumes it)
  const void* stack_bottom = nullptr;  // for ASan; a core's own stack is learned on first switch
  std::size_t stack_size = 0;
  void* fake_stack = nullptr;         // ASan's fake stack while switched out
};

}  // namespace moirai::proto::detail

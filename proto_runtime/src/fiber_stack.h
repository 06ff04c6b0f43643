// The stacks behind VPs: Boost.Context's guard-paged stacks, kept for reuse, with their bounds
// remembered for ASan.
#pragma once

#include <boost/context/protected_fixedsize_stack.hpp>
#include <algorithm>
#include <boost/context/stack_context.hpp>
#include <cstddef>
#include <mutex>
#include <vector>

#include "runtime_lock.h"
#include "sanitizer_fiber.h"

namespace moirai::proto::detail {

// StackPool keeps up to 64 MiB of stacks of one size that ended VPs gave back, because mapping a
// fresh guard-paged stack costs three system calls (mmap, mprotect, munmap) and a page fault per
// VP, which dominates creating and ending short-lived VPs. Stacks return from whichever core ran
// the VP's last unit, outside the runtime lock, while the creating core takes them: a spin lock
// around a few loads and stores, since a contended std::mutex costs a futex call on each side.
class alignas(64) StackPool {
 public:
  explicit StackPool(std::size_t size)
      : size_(size), kept_limit_(std::max<std::size_t>(16, kKeptBytes / size)) {
    kept_.reserve(kept_limit_);
  }
  // shared is the process's pool for `size`: like glibc's cache of thread stacks, it outlives
  // runs, so a program that runs the runtime again (or many times) maps no stack twice.
  static StackPool& shared(std::size_t size);
  ~StackPool() {
    for (boost::context::stack_context& stack : kept_) allocator().deallocate(stack);
  }
  StackPool(const StackPool&) = delete;
  StackPool& operator=(const StackPool&) = delete;

  // size is the stack size this pool keeps.
  std::size_t size() const noexcept { return size_; }

  boost::context::stack_context take() {
    {
      std::lock_guard<RuntimeLock> hold(lock_);
      if (!kept_.empty()) {
        boost::context::stack_context stack = kept_.back();
        kept_.pop_back();
        return stack;
      }
    }
    return allocator().allocate();
  }

  void give(boost::context::stack_context& stack) noexcept {
    {
      std::lock_guard<RuntimeLock> hold(lock_);
      if (kept_.size() < kept_limit_) {
        kept_.push_back(stack);
        return;
      }
    }
    allocator().deallocate(stack);
  }

 private:
  static constexpr std::size_t kKeptBytes = std::size_t{64} << 20;
  boost::context::protected_fixedsize_stack allocator() const { return {size_}; }

  std::size_t size_;
  std::size_t kept_limit_;
  RuntimeLock lock_;
  std::vector<boost::context::stack_context> kept_;
};

// GuardedStack hands out the stack a VP lives on: a protected_fixedsize_stack (a PROT_NONE page
// below the stack, so an overflow faults instead of corrupting memory), taken from the pool when
// it has the right size. The VP's own object sits at the top of that stack (VirtualProcessor::
// make), so the stack goes back only once the object is destroyed, not when the fiber ends.
class GuardedStack {
 public:
  GuardedStack(StackPool* pool, std::size_t size) noexcept
      : pool_(pool != nullptr && pool->size() == size ? pool : nullptr), size_(size) {}

  boost::context::stack_context allocate() {
    boost::context::stack_context stack =
        pool_ != nullptr ? pool_->take() : boost::context::protected_fixedsize_stack(size_).allocate();
    // A fresh mapping may reuse a range whose shadow an earlier mapping left poisoned (a thread's
    // stack, another fiber's): the VP's object is built at the top of this one, so it starts clean.
    forget(stack);
    return stack;
  }
  void deallocate(boost::context::stack_context& stack) noexcept {
    // ASan leaves the redzones of the frames that last ran here poisoned.
    forget(stack);
    if (pool_ != nullptr) {
      pool_->give(stack);
    } else {
      boost::context::protected_fixedsize_stack(size_).deallocate(stack);
    }
  }

 private:
  static void forget(const boost::context::stack_context& stack) noexcept {
    SanitizerFiber::forget_stack(static_cast<const char*>(stack.sp) - stack.size, stack.size);
  }

  StackPool* pool_;
  std::size_t size_;
};

}  // namespace moirai::proto::detail

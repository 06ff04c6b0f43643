// The stacks behind VPs: guarded stacks (vp_stack.h), kept for reuse, with their bounds remembered
// for ASan.
#pragma once

#include <boost/context/stack_context.hpp>
#include <cstddef>
#include <map>
#include <mutex>
#include <vector>

#include "sanitizer_fiber.h"
#include "vp_stack.h"

namespace moirai::proto::detail {

// StackPool keeps up to kKept stacks of one size that ended VPs gave back, because mapping a
// fresh guarded stack costs system calls (mmap, mprotect, munmap) and its first page faults per
// VP, which dominates creating and ending short-lived VPs. kKept is large enough for a
// creator that runs ahead of the cores ending its VPs (hundreds alive at once); a kept stack
// costs address space and only the few pages its VP touched. Stacks return from whichever core
// ran the VP's last unit, outside the runtime lock, hence the mutex (uncontended in practice).
class StackPool {
 public:
  // (The room for kKept stacks is taken now: give, which must not fail, then never allocates.)
  explicit StackPool(std::size_t size) : size_(size) { kept_.reserve(kKept); }

  // shared is the process's pool for stacks of `size` bytes: the runs of one process share it, so
  // a program (or a test, or a benchmark) that runs more than once maps its stacks once, not per
  // run. It lives as long as the process.
  static StackPool& shared(std::size_t size) {
    static std::mutex mutex;
    static auto* pools = new std::map<std::size_t, StackPool>();  // never destroyed: runs may end late
    std::lock_guard<std::mutex> hold(mutex);
    return pools->try_emplace(size, size).first->second;
  }
  ~StackPool() {
    for (boost::context::stack_context& stack : kept_) unmap_vp_stack(stack);
  }
  StackPool(const StackPool&) = delete;
  StackPool& operator=(const StackPool&) = delete;

  // size is the stack size this pool keeps.
  std::size_t size() const noexcept { return size_; }

  boost::context::stack_context take() {
    {
      std::lock_guard<std::mutex> hold(mutex_);
      if (!kept_.empty()) {
        boost::context::stack_context stack = kept_.back();
        kept_.pop_back();
        return stack;
      }
    }
    return map_vp_stack(size_);
  }

  void give(boost::context::stack_context& stack) noexcept {
    // ASan leaves the redzones of the frames that last ran here poisoned; a new VP starts clean.
    SanitizerFiber::forget_stack(static_cast<char*>(stack.sp) - stack.size, stack.size);
    {
      std::lock_guard<std::mutex> hold(mutex_);
      if (kept_.size() < kKept) {
        kept_.push_back(stack);
        return;
      }
    }
    unmap_vp_stack(stack);
  }

 private:
  static constexpr std::size_t kKept = 1024;

  std::size_t size_;
  std::mutex mutex_;
  std::vector<boost::context::stack_context> kept_;
};

// GuardedStack is the StackAllocator a VP's fiber is created with: a stack with kGuardSpan bytes
// of guard below it (map_vp_stack), so an overflow faults and is reported naming `owner` instead
// of corrupting memory; taken from the pool when it has the right size, and reporting where it
// lives for ASan.
class GuardedStack {
 public:
  GuardedStack(StackPool* pool, std::size_t size, boost::context::stack_context* placed,
               const VirtualProcessor* owner) noexcept
      : pool_(pool != nullptr && pool->size() == size ? pool : nullptr),
        size_(size),
        placed_(placed),
        owner_(owner) {}

  boost::context::stack_context allocate() {
    boost::context::stack_context stack = pool_ != nullptr ? pool_->take() : map_vp_stack(size_);
    set_stack_owner(stack, owner_);
    *placed_ = stack;
    return stack;
  }
  void deallocate(boost::context::stack_context& stack) noexcept {
    if (pool_ != nullptr) {
      pool_->give(stack);
    } else {
      unmap_vp_stack(stack);
    }
  }

 private:
  StackPool* pool_;
  std::size_t size_;
  boost::context::stack_context* placed_;
  const VirtualProcessor* owner_;
};

}  // namespace moirai::proto::detail

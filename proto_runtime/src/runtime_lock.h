// The runtime lock: one core at a time touches language state, as in the paper's VMS.
#pragma once

#include <atomic>
#include <thread>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define MOIRAI_CPU_RELAX() _mm_pause()
#else
#define MOIRAI_CPU_RELAX() std::atomic_signal_fence(std::memory_order_seq_cst)
#endif

namespace moirai::proto::detail {

// RuntimeLock is a test-and-test-and-set spin lock. Critical sections are one handler plus one
// assigner call (well under a microsecond), so spinning beats sleeping in the kernel; after a
// while the waiter yields so that on an over-subscribed machine the holder can run.
class RuntimeLock {
 public:
  // try_lock takes the lock if it is free.
  bool try_lock() noexcept {
    return !held_.load(std::memory_order_relaxed) &&
           !held_.exchange(true, std::memory_order_acquire);
  }
  // lock waits until it holds the lock.
  void lock() noexcept {
    for (unsigned spins = 0; !try_lock(); ++spins) {
      if (spins < 4096) {
        MOIRAI_CPU_RELAX();
      } else {
        std::this_thread::yield();
      }
    }
  }
  void unlock() noexcept { held_.store(false, std::memory_order_release); }

 private:
  std::atomic<bool> held_{false};
};

}  // namespace moirai::proto::detail

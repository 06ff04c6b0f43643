// SpinLock: the lock of the runtime's short critical sections, and of a language's own.
#pragma once

#include <atomic>
#include <thread>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace moirai::proto {

// cpu_relax tells the CPU that the caller spins (a pause on x86).
inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#else
  std::atomic_signal_fence(std::memory_order_seq_cst);
#endif
}

// SpinLock is a test-and-test-and-set spin lock. The critical sections it guards are a handler,
// an assigner call or a queue operation (well under a microsecond), so spinning beats sleeping in
// the kernel; after a while the waiter yields so that on an over-subscribed machine the holder
// can run. Languages that name lock domains use it for their assigners' per-core queues.
class SpinLock {
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
        cpu_relax();
      } else {
        std::this_thread::yield();
      }
    }
  }
  void unlock() noexcept { held_.store(false, std::memory_order_release); }

 private:
  std::atomic<bool> held_{false};
};

}  // namespace moirai::proto

// A single-producer single-consumer ring of pointers: how a core hands buffers to the writer
// (and the writer hands them back) without a lock shared with other cores.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>

namespace moirai::instrument::detail {

template <class T, std::size_t Capacity>
class SpscRing {
 public:
  // push is called by the producer only; false when the ring is full.
  bool push(T* item) noexcept {
    const std::size_t tail = tail_.load(std::memory_order_relaxed);
    if (tail - head_.load(std::memory_order_acquire) == Capacity) return false;
    slots_[tail % Capacity] = item;
    tail_.store(tail + 1, std::memory_order_release);
    return true;
  }
  // pop is called by the consumer only; nullptr when the ring is empty.
  T* pop() noexcept {
    const std::size_t head = head_.load(std::memory_order_relaxed);
    if (head == tail_.load(std::memory_order_acquire)) return nullptr;
    T* item = slots_[head % Capacity];
    head_.store(head + 1, std::memory_order_release);
    return item;
  }
  // empty says whether a pop now would find nothing; asked by the producer, it may be stale (the
  // consumer may have popped since), which only delays what the producer does about it.
  bool empty() const noexcept {
    return head_.load(std::memory_order_relaxed) == tail_.load(std::memory_order_acquire);
  }

 private:
  std::array<T*, Capacity> slots_{};
  alignas(64) std::atomic<std::size_t> head_{0};
  alignas(64) std::atomic<std::size_t> tail_{0};
};

}  // namespace moirai::instrument::detail

// SSR's default assigner: a FIFO ready queue per core.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>

#include "moirai/proto_runtime/assigner.h"
#include "moirai/proto_runtime/spin_lock.h"
#include "moirai/proto_runtime/virtual_processor.h"

namespace moirai::ssr {

// FifoAssigner queues a ready VP on the core it is pinned to, else the core it last ran on, else
// (a new unpinned VP) the next core round-robin; a core animates its queue in order. There is no
// stealing, which is what lets the tool show the paper's creator starvation (section 3.4.1).
// Each queue has a lock of its own on a line of its own: handlers of different lock domains make
// VPs ready at the same time, and no core takes a lock that every core takes.
class FifoAssigner final : public proto::Assigner {
 public:
  explicit FifoAssigner(std::size_t core_count)
      : queues_(std::make_unique<Queue[]>(core_count)), core_count_(core_count) {}

  CoreId on_ready(proto::VirtualProcessor& vp) override {
    CoreId core = vp.home_core();
    if (core == kAnyCore) core = vp.last_core();
    if (core == kAnyCore) {
      core = static_cast<CoreId>(next_core_.fetch_add(1, std::memory_order_relaxed) % core_count_);
    }
    Queue& queue = queues_[core];
    vp.assigner_link = nullptr;
    std::lock_guard guard(queue.lock);
    if (queue.tail != nullptr) {
      queue.tail->assigner_link = &vp;
    } else {
      queue.head = &vp;
    }
    queue.tail = &vp;
    return core;
  }

  proto::VirtualProcessor* next_for(CoreId core) override {
    Queue& queue = queues_[core];
    std::lock_guard guard(queue.lock);
    proto::VirtualProcessor* vp = queue.head;
    if (vp == nullptr) return nullptr;
    queue.head = vp->assigner_link;
    if (queue.head == nullptr) queue.tail = nullptr;
    return vp;
  }

 private:
  // Queue is one core's FIFO, linked through VirtualProcessor::assigner_link: a construct makes
  // one or two VPs ready, and this keeps that free of allocation.
  struct alignas(64) Queue {
    proto::SpinLock lock;
    proto::VirtualProcessor* head = nullptr;
    proto::VirtualProcessor* tail = nullptr;
  };
  std::unique_ptr<Queue[]> queues_;
  std::size_t core_count_;
  std::atomic<std::size_t> next_core_{0};
};

}  // namespace moirai::ssr

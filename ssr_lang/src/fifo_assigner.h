// SSR's default assigner: a FIFO ready queue per core.
#pragma once

#include <cstddef>
#include <vector>

#include "moirai/proto_runtime/assigner.h"
#include "moirai/proto_runtime/virtual_processor.h"

namespace moirai::ssr {

// FifoAssigner queues a ready VP on the core it is pinned to, else the core it last ran on, else
// (a new unpinned VP) the next core round-robin; a core animates its queue in order. There is no
// stealing, which is what lets the tool show the paper's creator starvation (section 3.4.1).
class FifoAssigner final : public proto::Assigner {
 public:
  explicit FifoAssigner(std::size_t core_count) : queues_(core_count) {}

  CoreId on_ready(proto::VirtualProcessor& vp) override {
    CoreId core = vp.home_core();
    if (core == kAnyCore) core = vp.last_core();
    if (core == kAnyCore) {
      core = static_cast<CoreId>(next_core_);
      next_core_ = (next_core_ + 1) % queues_.size();
    }
    Queue& queue = queues_[core];
    vp.assigner_link = nullptr;
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
    proto::VirtualProcessor* vp = queue.head;
    if (vp == nullptr) return nullptr;
    queue.head = vp->assigner_link;
    if (queue.head == nullptr) queue.tail = nullptr;
    return vp;
  }

 private:
  // Queue is one core's FIFO, linked through VirtualProcessor::assigner_link: a construct makes
  // one or two VPs ready, and this keeps that free of allocation.
  struct Queue {
    proto::VirtualProcessor* head = nullptr;
    proto::VirtualProcessor* tail = nullptr;
  };
  std::vector<Queue> queues_;
  std::size_t next_core_ = 0;
};

}  // namespace moirai::ssr

// The replay's assigner state: one FIFO ready queue per core and one that any core takes from.
#pragma once

#include <cstddef>
#include <deque>
#include <vector>

#include "moirai/core/ids.h"
#include "moirai/proto_runtime/virtual_processor.h"

namespace moirai::replay::detail {

// ReadyQueues holds ready VPs: a VP queued for a core runs there; one queued for kAnyCore runs on
// whichever core asks first. A core serves its own queue before the shared one.
class ReadyQueues {
 public:
  explicit ReadyQueues(std::size_t cores) : own_(cores) {}

  // push queues `vp` for `core` (kAnyCore: the shared queue), at the front when `first`, and
  // returns `core`.
  CoreId push(proto::VirtualProcessor& vp, CoreId core, bool first = false) {
    std::deque<proto::VirtualProcessor*>& queue = core == kAnyCore ? shared_ : own_[core];
    if (first) {
      queue.push_front(&vp);
    } else {
      queue.push_back(&vp);
    }
    return core;
  }
  // pop takes the next VP for `core`, or nullptr when it has none.
  proto::VirtualProcessor* pop(CoreId core) {
    for (std::deque<proto::VirtualProcessor*>* queue : {&own_[core], &shared_}) {
      if (!queue->empty()) {
        proto::VirtualProcessor* vp = queue->front();
        queue->pop_front();
        return vp;
      }
    }
    return nullptr;
  }

 private:
  std::vector<std::deque<proto::VirtualProcessor*>> own_;
  std::deque<proto::VirtualProcessor*> shared_;
};

}  // namespace moirai::replay::detail

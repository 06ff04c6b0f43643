#include "locality_assigner.h"

#include <algorithm>
#include <mutex>
#include <utility>

#include "task.h"

namespace moirai::vss::detail {

namespace {
Task& task_of(const proto::VirtualProcessor& vp) { return *static_cast<Task*>(vp.language_slot); }

bool never_ran(const proto::VirtualProcessor* vp) {
  return vp->home_core() == kAnyCore && vp->last_core() == kAnyCore;
}
bool unpinned(const proto::VirtualProcessor* vp) { return vp->home_core() == kAnyCore; }

// bump adds one to (or takes one from) a count that only its queue's lock holder writes.
void bump(std::atomic<std::size_t>& count, bool added) noexcept {
  const std::size_t now = count.load(std::memory_order_relaxed);
  count.store(added ? now + 1 : now - 1, std::memory_order_relaxed);
}
}  // namespace

std::size_t LocalityAssigner::stealable() const noexcept {
  std::size_t total = 0;
  for (std::size_t core = 0; core < core_count_; ++core) {
    total += queues_[core].stealable.load(std::memory_order_relaxed);
  }
  return total;
}

void LocalityAssigner::count(Queue& queue, const proto::VirtualProcessor& vp, bool added) noexcept {
  if (!unpinned(&vp)) {
    bump(queue.pinned, added);
    return;
  }
  bump(queue.stealable, added);
  if (never_ran(&vp)) bump(queue.fresh, added);
}

void LocalityAssigner::push(CoreId core, proto::VirtualProcessor& vp, bool front) {
  Queue& queue = queues_[core];
  const std::lock_guard guard(queue.lock);
  if (front) {
    queue.vps.push_front(&vp);
  } else {
    queue.vps.push_back(&vp);
  }
  count(queue, vp, /*added=*/true);
  queue.idle.store(false, std::memory_order_relaxed);  // it is woken, or is the core running this handler
}

CoreId LocalityAssigner::on_ready(proto::VirtualProcessor& vp) {
  const Task::Resume resume = std::exchange(task_of(vp).resume, Task::Resume::placed);
  if (vp.home_core() != kAnyCore) {
    push(vp.home_core(), vp, resume == Task::Resume::front);
    return vp.home_core();
  }
  if (resume != Task::Resume::placed) {  // it runs this handler's core, which looks next
    push(vp.last_core(), vp, resume == Task::Resume::front);
    return vp.last_core();
  }
  const CoreId preferred = vp.last_core() != kAnyCore ? vp.last_core() : task_of(vp).affinity;
  CoreId core = preferred;
  if (core == kAnyCore || !queues_[core].idle.load(std::memory_order_relaxed)) {
    CoreId free = kAnyCore;
    for (std::size_t c = 0; c < core_count_ && free == kAnyCore; ++c) {
      if (queues_[c].idle.load(std::memory_order_relaxed)) free = static_cast<CoreId>(c);
    }
    if (free != kAnyCore) {
      core = free;
    } else if (core == kAnyCore) {
      core = static_cast<CoreId>(next_core_.fetch_add(1, std::memory_order_relaxed) % core_count_);
    }
  }
  push(core, vp, /*front=*/false);
  return core;
}

proto::VirtualProcessor* LocalityAssigner::next_for(CoreId core) {
  Queue& own = queues_[core];
  {
    const std::lock_guard guard(own.lock);
    if (!own.vps.empty()) {
      proto::VirtualProcessor* vp = own.vps.front();
      own.vps.pop_front();
      count(own, *vp, /*added=*/false);
      own.idle.store(false, std::memory_order_relaxed);
      return vp;
    }
    // Idle from here unless the steal finds work: a push meanwhile clears it again.
    own.idle.store(true, std::memory_order_relaxed);
  }
  proto::VirtualProcessor* vp = steal(core);
  if (vp != nullptr) own.idle.store(false, std::memory_order_relaxed);
  return vp;
}

proto::VirtualProcessor* LocalityAssigner::steal(CoreId thief) {
  for (;;) {
    // A task that never ran leaves nothing behind in its core's cache: take one of those first.
    Queue* victim = nullptr;
    std::size_t victim_size = 0;
    for (std::size_t c = 0; c < core_count_; ++c) {
      Queue& queue = queues_[c];
      if (c == thief || queue.fresh.load(std::memory_order_relaxed) == 0) continue;
      const std::size_t size = queue.stealable.load(std::memory_order_relaxed) +
                               queue.pinned.load(std::memory_order_relaxed);
      if (victim != nullptr && size <= victim_size) continue;
      victim = &queue;
      victim_size = size;
    }
    const bool fresh = victim != nullptr;
    if (!fresh) {
      std::size_t most = 0;
      for (std::size_t c = 0; c < core_count_; ++c) {
        const std::size_t stealable = queues_[c].stealable.load(std::memory_order_relaxed);
        if (c == thief || stealable <= most) continue;
        most = stealable;
        victim = &queues_[c];
      }
      if (victim == nullptr) return nullptr;
    }
    const std::lock_guard guard(victim->lock);
    const auto found = std::find_if(victim->vps.begin(), victim->vps.end(), fresh ? never_ran : unpinned);
    if (found == victim->vps.end()) continue;  // taken since the counts were read: choose again
    proto::VirtualProcessor* vp = *found;
    victim->vps.erase(found);
    count(*victim, *vp, /*added=*/false);
    return vp;
  }
}

}  // namespace moirai::vss::detail

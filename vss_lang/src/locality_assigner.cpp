#include "locality_assigner.h"

#include <algorithm>

#include "task.h"

namespace moirai::vss::detail {

namespace {
Task& task_of(const proto::VirtualProcessor& vp) { return *static_cast<Task*>(vp.language_slot); }
}  // namespace

void LocalityAssigner::push(CoreId core, proto::VirtualProcessor& vp, bool front) {
  if (front) {
    queues_[core].push_front(&vp);
  } else {
    queues_[core].push_back(&vp);
  }
  if (vp.home_core() == kAnyCore) {
    ++stealable_[core];
    ++stealable_total_;
  }
  idle_[core] = false;  // it is woken, or is the core running this handler
}

CoreId LocalityAssigner::on_ready(proto::VirtualProcessor& vp) {
  Task& task = task_of(vp);
  const Task::Resume resume = task.resume;
  task.resume = Task::Resume::placed;
  if (vp.home_core() != kAnyCore) {
    push(vp.home_core(), vp, resume == Task::Resume::front);
    return vp.home_core();
  }
  if (resume != Task::Resume::placed) {  // it runs this handler's core, which looks next
    push(vp.last_core(), vp, resume == Task::Resume::front);
    return vp.last_core();
  }
  const CoreId preferred = vp.last_core() != kAnyCore ? vp.last_core() : task.affinity;
  CoreId core = preferred;
  if (core == kAnyCore || !idle_[core]) {
    const auto free = std::find(idle_.begin(), idle_.end(), true);
    if (free != idle_.end()) {
      core = static_cast<CoreId>(free - idle_.begin());
    } else if (core == kAnyCore) {
      core = static_cast<CoreId>(next_core_);
      next_core_ = (next_core_ + 1) % queues_.size();
    }
  }
  push(core, vp, /*front=*/false);
  return core;
}

proto::VirtualProcessor* LocalityAssigner::next_for(CoreId core) {
  std::deque<proto::VirtualProcessor*>& queue = queues_[core];
  proto::VirtualProcessor* vp = nullptr;
  if (!queue.empty()) {
    vp = queue.front();
    queue.pop_front();
    if (vp->home_core() == kAnyCore) {
      --stealable_[core];
      --stealable_total_;
    }
  } else {
    vp = steal();
  }
  idle_[core] = vp == nullptr;
  return vp;
}

proto::VirtualProcessor* LocalityAssigner::steal() {
  if (stealable_total_ == 0) return nullptr;
  // A task that never ran leaves nothing behind in its core's cache: take one of those first.
  const auto never_ran = [](const proto::VirtualProcessor* vp) {
    return vp->home_core() == kAnyCore && vp->last_core() == kAnyCore;
  };
  const auto unpinned = [](const proto::VirtualProcessor* vp) { return vp->home_core() == kAnyCore; };
  std::deque<proto::VirtualProcessor*>* victim = nullptr;
  std::deque<proto::VirtualProcessor*>::iterator found;
  for (std::deque<proto::VirtualProcessor*>& queue : queues_) {
    if (victim != nullptr && queue.size() <= victim->size()) continue;
    const auto fresh = std::find_if(queue.begin(), queue.end(), never_ran);
    if (fresh == queue.end()) continue;
    victim = &queue;
    found = fresh;
  }
  if (victim == nullptr) {
    const auto longest = std::max_element(stealable_.begin(), stealable_.end());
    victim = &queues_[static_cast<std::size_t>(longest - stealable_.begin())];
    found = std::find_if(victim->begin(), victim->end(), unpinned);
  }
  proto::VirtualProcessor* vp = *found;  // stealable_ counts it, so it is there
  victim->erase(found);
  const auto core = static_cast<std::size_t>(victim - queues_.data());
  --stealable_[core];
  --stealable_total_;
  return vp;
}

}  // namespace moirai::vss::detail

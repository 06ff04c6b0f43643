// VSs's assigner: a task goes where its inputs were written, unless that leaves a core idle.
#pragma once

#include <atomic>
#include <cstddef>
#include <deque>
#include <memory>

#include "moirai/proto_runtime/assigner.h"
#include "moirai/proto_runtime/spin_lock.h"
#include "moirai/proto_runtime/virtual_processor.h"

namespace moirai::vss::detail {

// LocalityAssigner keeps a FIFO ready queue per core and knows which cores are idle (a core is
// idle from a next_for that found nothing until work is routed to it). A ready task goes to
//   - its pinned core, if pinned (other cores never take it);
//   - the front of its own core's queue, if it just submitted a task: the submitter goes on
//     producing tasks (help first), so the task graph unfolds before the cores run dry; the
//     back of that queue instead when the language throttles submission;
//   - the core that last wrote most of its inputs, or the core it last ran on, if that core is
//     idle: the data is still in that core's cache;
//   - else any idle core: a free core beats locality, since waiting is all it could do;
//   - else the preferred core's queue (round-robin when there is none).
// A core whose queue is empty steals the oldest unpinned task that never ran from the longest
// queue holding one (else the oldest unpinned VP of the queue with the most unpinned ones), so a
// task queued behind a long unit on a busy core still runs as soon as any core is free, and a
// submitter going on keeps its core.
//
// VSs names lock domains, so the runtime calls the assigner from any core at the same time: each
// queue has a lock of its own on a line of its own, held for one push, pop or steal, and a core
// never holds two (a thief chooses its victim from counts read without locks, then locks that
// queue alone and chooses again if it changed meanwhile). The counts and the idle flags are
// atomics read without locks, so the choices they feed (idle cores, victims, the language's
// windows) may be a step behind a push or pop on another core: they place work, they never lose
// it.
class LocalityAssigner final : public proto::Assigner {
 public:
  explicit LocalityAssigner(std::size_t core_count)
      : queues_(std::make_unique<Queue[]>(core_count)), core_count_(core_count) {}

  CoreId on_ready(proto::VirtualProcessor& vp) override;
  proto::VirtualProcessor* next_for(CoreId core) override;

  // freed tells the assigner that `core`, whose task ended or blocked in this handler, looks
  // for work right after: it counts as idle, so a task made ready now may stay there, with its
  // data.
  void freed(CoreId core) noexcept { queues_[core].idle.store(true, std::memory_order_relaxed); }
  // stealable counts the queued VPs that any core may take.
  std::size_t stealable() const noexcept;
  // pinned counts the queued VPs pinned to `core`.
  std::size_t pinned(CoreId core) const noexcept {
    return queues_[core].pinned.load(std::memory_order_relaxed);
  }

 private:
  // Queue is one core's FIFO; its counts are written under its lock with the deque.
  struct alignas(64) Queue {
    proto::SpinLock lock;
    std::deque<proto::VirtualProcessor*> vps;
    std::atomic<std::size_t> stealable{0};  // unpinned VPs
    std::atomic<std::size_t> fresh{0};      // unpinned VPs that never ran
    std::atomic<std::size_t> pinned{0};     // VPs pinned to this core
    std::atomic<bool> idle{true};
  };
  void push(CoreId core, proto::VirtualProcessor& vp, bool front);
  // count adds `vp` to (or removes it from) `queue`'s counts, under its lock.
  static void count(Queue& queue, const proto::VirtualProcessor& vp, bool added) noexcept;
  proto::VirtualProcessor* steal(CoreId thief);

  std::unique_ptr<Queue[]> queues_;
  std::size_t core_count_;
  std::atomic<std::size_t> next_core_{0};  // round-robin for tasks with no preference
};

}  // namespace moirai::vss::detail

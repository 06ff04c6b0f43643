// VSs's assigner: a task goes where its inputs were written, unless that leaves a core idle.
#pragma once

#include <cstddef>
#include <deque>
#include <vector>

#include "moirai/proto_runtime/assigner.h"
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
// queue holding one (else the oldest unpinned VP of the longest queue), so a task queued behind
// a long unit on a busy core still runs as soon as any core is free, and a submitter going on
// keeps its core.
class LocalityAssigner final : public proto::Assigner {
 public:
  explicit LocalityAssigner(std::size_t core_count)
      : queues_(core_count), stealable_(core_count, 0), idle_(core_count, true) {}

  CoreId on_ready(proto::VirtualProcessor& vp) override;
  proto::VirtualProcessor* next_for(CoreId core) override;

  // freed tells the assigner that `core`, whose task ended or blocked in this handler, looks
  // for work right after: it counts as idle, so a task made ready now may stay there, with its
  // data.
  void freed(CoreId core) noexcept { idle_[core] = true; }
  // stealable counts the queued VPs that any core may take.
  std::size_t stealable() const noexcept { return stealable_total_; }
  // pinned counts the queued VPs pinned to `core`.
  std::size_t pinned(CoreId core) const noexcept { return queues_[core].size() - stealable_[core]; }

 private:
  void push(CoreId core, proto::VirtualProcessor& vp, bool front);
  proto::VirtualProcessor* steal();

  std::vector<std::deque<proto::VirtualProcessor*>> queues_;
  std::vector<std::size_t> stealable_;  // unpinned VPs in each queue
  std::size_t stealable_total_ = 0;
  std::vector<bool> idle_;
  std::size_t next_core_ = 0;  // round-robin for tasks with no preference
};

}  // namespace moirai::vss::detail

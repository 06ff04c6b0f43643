// What the tool keeps per OpenMP task and per parallel region, to turn OMPT's events into units
// and constraints: which unit a task runs next, whom its completion frees, who arrived last.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <vector>

#include "moirai/core/ids.h"

namespace moirai::ompt {

struct Region;

// Task is one OpenMP task (explicit, implicit or the initial one), a VP of the trace. It lives
// until its last holder lets go: itself until it completes, each child until the child
// completes, each predecessor until it has recorded the dependence.
struct Task {
  VpId vp = 0;
  UnitId next_unit = 0;    // the id its next unit gets (allocated early when a constraint names it)
  UnitId first_unit = 0;   // an explicit task's first unit: what creation and dependences free
  UnitId last_unit = 0;    // the unit it ran last
  UnitId detached_unit = 0;  // a detached task's last unit, ended before its event is fulfilled
  CallSite created_at{"?", 0, ""};  // the task construct
  Task* parent = nullptr;  // the creating task (held), for taskwait's "last child to complete"
  Region* region = nullptr;  // the parallel region it belongs to (held)
  ConstructKind in_sync = 0;  // the construct (taskwait, barrier, ...) it waits in; 0: none
  bool explicit_task = false;  // created by a task construct (not implicit, initial or a stand-in)
  bool has_depend = false;     // it had depend clauses (libomp releases them at its completion)
  std::uint64_t barrier_epoch = 0;  // an implicit task's barrier being waited for
  std::mutex children_mutex;  // children end one at a time, so the last to tell is the last to end
  std::atomic<UnitId> last_child_done{0};  // the last unit of the child that completed last
  std::atomic<int> holders{1};
  // When the task became ready to run, as a ticket of the tool's order: stamped at creation, 0
  // while unknown (an implicit task), UINT64_MAX once a dependence made it wait (its release
  // is not stamped: a thread's wait for it stays idle).
  std::atomic<std::uint64_t> ready_ticket{0};

  std::mutex successors_mutex;  // guards the three below: a dependence may be linked while this completes
  bool completed = false;
  UnitId final_unit = 0;
  std::vector<Task*> successors;  // tasks whose dependence on this one is still pending (held)
  std::vector<Task*> predecessors;  // this task's, as linked (not held: only compared)
};

// Region is one parallel region: its fork, its team's barriers and the latest task completion
// in it (a barrier ends when the last thread arrives and the last task is done).
struct Region {
  UnitId fork_unit = 0;   // the encountering task's unit that ended at the fork
  CallSite site{"?", 0, ""};  // the parallel construct: names the region's barriers the runtime placed
  unsigned team = 1;
  std::atomic<int> holders{1};

  std::mutex mutex;  // guards the barrier bookkeeping
  std::uint64_t arrivals = 0;  // every arrival at any barrier of the region, in order
  static constexpr std::size_t kSlots = 4;  // a thread is at most one barrier ahead of another
  UnitId last_arrival[kSlots] = {};
  std::uint64_t last_arrival_ticket[kSlots] = {};
  UnitId last_done = 0;  // the last unit of the region's task that completed last
  std::uint64_t last_done_ticket = 0;
};

// hold and let_go count the holders of a task or region; the last one deletes it.
template <typename T>
void hold(T* object) {
  if (object != nullptr) object->holders.fetch_add(1, std::memory_order_relaxed);
}
template <typename T>
void let_go(T* object) {
  if (object != nullptr && object->holders.fetch_sub(1, std::memory_order_acq_rel) == 1) delete object;
}

}  // namespace moirai::ompt

// How OMPT's events become units: a unit of a task ends at each scheduling point the task
// reaches (creating a task, taskwait, a barrier, entering or leaving a critical section or lock,
// a loop chunk, its completion) and the next begins where the task goes on. What frees a unit is
// recorded as a constraint from the unit that freed it; time a thread spends waiting (in a
// barrier, taskwait or lock wait, or between parallel regions) is idle.
#include "openmp_recording.h"

#include <sched.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "moirai/instrument/clock.h"
#include "openmp_constructs.h"

namespace moirai::ompt {

namespace {

const CallSite kUnknownSite{"?", 0, ""};

Task* task_of(const ompt_data_t* data) { return data != nullptr ? static_cast<Task*>(data->ptr) : nullptr; }
Region* region_of(const ompt_data_t* data) { return data != nullptr ? static_cast<Region*>(data->ptr) : nullptr; }

bool is_barrier(ompt_sync_region_t kind) {
  switch (kind) {
    case ompt_sync_region_taskwait:
    case ompt_sync_region_taskgroup:
    case ompt_sync_region_reduction:
      return false;
    default:
      return true;
  }
}

ConstructKind sync_construct(ompt_sync_region_t kind) {
  if (kind == ompt_sync_region_taskwait) return kTaskwait;
  if (kind == ompt_sync_region_taskgroup) return kTaskgroup;
  return kBarrier;
}

bool is_lock(ompt_mutex_t kind) {
  return kind == ompt_mutex_lock || kind == ompt_mutex_test_lock || kind == ompt_mutex_nest_lock ||
         kind == ompt_mutex_test_nest_lock;
}
bool is_exclusive(ompt_mutex_t kind) { return is_lock(kind) || kind == ompt_mutex_critical || kind == ompt_mutex_ordered; }
bool is_test(ompt_mutex_t kind) { return kind == ompt_mutex_test_lock || kind == ompt_mutex_test_nest_lock; }

// binding says which PU the calling thread may run on: one PU ("pu3"), or "unbound (N PUs)".
std::string binding() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return "unknown";
  const int count = CPU_COUNT(&set);
  if (count == 1) {
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
      if (CPU_ISSET(cpu, &set)) return "pu" + std::to_string(cpu);
    }
  }
  return "unbound (" + std::to_string(count) + " PUs)";
}

}  // namespace

struct OpenMpRecording::Thread {
  CoreId core = kAnyCore;
  bool recorded = false;
  Task* running = nullptr;  // the task whose unit this core animates
  UnitId unit = 0;
  bool idle = false;
  std::uint64_t idle_ticket = 0;  // the tool's ticket when this thread went idle
  int waiting = 0;          // inside a sync region's wait
  CallSite work_site = kUnknownSite;  // the work-sharing construct its chunks belong to
  UnitId work_ended_in = 0;  // the unit in which the last work-sharing construct ended
  VpId implicit_vp = 0;     // one VP holds this thread's implicit tasks
  Task* acquiring = nullptr;  // the task whose unit ended asking for a lock or critical section
  // Where each held lock or critical section was entered: libomp 16 reports a critical section's
  // release with the master thread's return address (OMPT_LOAD_RETURN_ADDRESS(0) in
  // __kmpc_end_critical), null or stale on the other threads, so a section's end is named by
  // the line that entered it.
  std::unordered_map<ompt_wait_id_t, CallSite> entered;
  std::unordered_map<const void*, CallSite> sites;  // before the shared, locked table
  Task* just_created = nullptr;  // the task whose creation this thread's running unit goes on after
};

OpenMpRecording::TaskTicks OpenMpRecording::ticks_of(const std::optional<TaskCost>& cost) {
  if (!cost) return {};
  const double per_ns = instrument::Clock::info().hz / 1e9;
  const auto ticks = [per_ns](double ns) { return static_cast<std::uint64_t>(std::llround(std::max(0.0, ns) * per_ns)); };
  return {ticks(cost->create), ticks(cost->create_dep - cost->create), ticks(cost->end), ticks(cost->end_dep)};
}

OpenMpRecording::OpenMpRecording(instrument::TraceRecorder& recorder, std::size_t cores, const std::optional<TaskCost>& task_cost)
    : recorder_(recorder), cores_(cores), task_ticks_(ticks_of(task_cost)), binding_(cores) {}

OpenMpRecording::~OpenMpRecording() = default;

OpenMpRecording::Thread& OpenMpRecording::thread() {
  static thread_local Thread current;
  if (finished_.load(std::memory_order_relaxed)) current.recorded = false;  // the trace is written
  return current;
}

CallSite OpenMpRecording::site(const void* ra) {
  if (ra == nullptr) return kUnknownSite;
  Thread& t = thread();
  auto cached = t.sites.find(ra);
  if (cached != t.sites.end()) return cached->second;
  const CallSite found = symbols_.call_site(ra);
  t.sites.emplace(ra, found);
  return found;
}

VpId OpenMpRecording::define_vp(Thread& t, const std::string& name, const CallSite& at) {
  const VpId vp = next_vp_.fetch_add(1, std::memory_order_relaxed);
  if (t.recorded) recorder_.vp_created(t.core, vp, name, at, kAnyCore);
  return vp;
}

void OpenMpRecording::book_estimate(Thread& t, std::uint64_t ticks) {
  if (t.recorded && ticks != 0 && t.running != nullptr) recorder_.runtime_work_estimated(t.core, ticks);
}

UnitId OpenMpRecording::unit_for(Task& task) {
  if (task.next_unit == 0) task.next_unit = next_unit_.fetch_add(1, std::memory_order_relaxed);
  return task.next_unit;
}

void OpenMpRecording::begin_unit(Thread& t, Task& task) {
  // A task that was ready before this thread went idle was queued all along: the gap was
  // libomp handing it over (a steal, a dispatch), the runtime's overhead, not a wait.
  const std::uint64_t ready = task.ready_ticket.load(std::memory_order_relaxed);
  stop_idle(t, t.idle && unit_for(task) == task.first_unit && ready != 0 && ready < t.idle_ticket);
  t.running = &task;
  t.unit = unit_for(task);
  task.next_unit = 0;
  if (t.recorded) recorder_.unit_begin(t.core, task.vp, t.unit);
}

template <typename Constraints>
UnitId OpenMpRecording::end_unit(Thread& t, ConstructKind kind, const CallSite& at, Constraints&& constraints) {
  const UnitId unit = t.unit;
  Task* task = t.running;
  task->last_unit = unit;
  t.running = nullptr;
  t.unit = 0;
  if (t.recorded) {
    recorder_.unit_end(t.core, task->vp, unit, kind, at);
    recorder_.handler_enter(t.core, kind, unit);
  }
  constraints(unit);
  if (t.recorded) recorder_.handler_exit(t.core, kind, unit);
  return t.recorded ? unit : 0;  // an unrecorded thread's unit frees nobody in the trace
}

UnitId OpenMpRecording::end_unit(Thread& t, ConstructKind kind, const CallSite& at) {
  return end_unit(t, kind, at, [](UnitId) {});
}

void OpenMpRecording::constraint(Thread& t, ConstructKind kind, UnitId from, UnitId to) {
  if (t.recorded && from != 0 && to != 0) recorder_.constraint(t.core, kind, from, to, 0);
}

void OpenMpRecording::go_idle(Thread& t) {
  if (t.idle || t.running != nullptr) return;
  t.idle = true;
  t.idle_ticket = next_ticket_.fetch_add(1, std::memory_order_relaxed);
  if (t.recorded) recorder_.idle_begin(t.core);
}

void OpenMpRecording::stop_idle(Thread& t, bool handed_over) {
  if (!t.idle) return;
  t.idle = false;
  if (!t.recorded) return;
  if (handed_over) {
    recorder_.dispatch_end(t.core);
  } else {
    recorder_.idle_end(t.core);
  }
}

void OpenMpRecording::thread_begin(ompt_thread_t type) {
  Thread& t = thread();
  if (type == ompt_thread_other || type == ompt_thread_unknown) return;  // not an OpenMP thread
  t.core = next_core_.fetch_add(1, std::memory_order_relaxed);
  t.recorded = t.core < cores_;
  if (!t.recorded) {
    unrecorded_threads_.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  recorder_.core_start(t.core);
}

void OpenMpRecording::thread_end() {
  Thread& t = thread();
  stop_idle(t);
  if (t.running != nullptr) end_unit(t, kTaskEnd, t.running->created_at);
  if (t.recorded) recorder_.core_stop(t.core);
  t.recorded = false;
}

void OpenMpRecording::parallel_begin(ompt_data_t* encountering, ompt_data_t* parallel, unsigned requested,
                                     const void* ra) {
  Thread& t = thread();
  auto* region = new Region;
  region->team = requested == 0 ? 1 : requested;
  region->site = site(ra);
  parallel->ptr = region;
  Task* task = task_of(encountering);
  if (task != nullptr && t.running == task) region->fork_unit = end_unit(t, kParallel, region->site);
}

void OpenMpRecording::parallel_end(ompt_data_t* parallel, ompt_data_t* encountering) {
  Thread& t = thread();
  Region* region = region_of(parallel);
  Task* task = task_of(encountering);
  if (task != nullptr && t.running == nullptr) {
    std::uint64_t join = 0;  // the region's last barrier
    if (region != nullptr) {
      std::lock_guard<std::mutex> hold_region(region->mutex);
      join = region->arrivals == 0 ? 0 : (region->arrivals - 1) / region->team;
    }
    constraint(t, kBarrier, barrier_released_by(region, join), unit_for(*task));
    begin_unit(t, *task);
  }
  parallel->ptr = nullptr;
  let_go(region);
}

void OpenMpRecording::implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t* parallel, ompt_data_t* data,
                                    unsigned actual, unsigned index, int flags) {
  Thread& t = thread();
  if (endpoint == ompt_scope_begin) {
    auto* task = new Task;
    const bool initial = (flags & ompt_task_initial) != 0;
    if (initial) {
      task->vp = define_vp(t, "initial task", kUnknownSite);
      task->region = new Region;
      if (parallel != nullptr) parallel->ptr = task->region;
    } else {
      if (t.implicit_vp == 0) {
        t.implicit_vp = define_vp(t, "implicit tasks of thread " + std::to_string(t.core), kUnknownSite);
        // The runtime binds a thread (OMP_PROC_BIND, OMP_PLACES) when it first joins a team.
        if (t.recorded) {
          std::lock_guard<std::mutex> hold_binding(binding_mutex_);
          binding_[t.core] = binding();
        }
      }
      task->vp = t.implicit_vp;
      task->region = region_of(parallel);
      hold(task->region);
    }
    data->ptr = task;
    if (task->region != nullptr && actual != 0 && !initial) task->region->team = actual;
    if (task->region != nullptr) constraint(t, kParallel, task->region->fork_unit, unit_for(*task));
    begin_unit(t, *task);
    return;
  }
  Task* task = task_of(data);
  if (task == nullptr) return;
  if (t.running == task) end_unit(t, kTaskEnd, task->region != nullptr ? task->region->site : kUnknownSite);
  const bool initial = (flags & ompt_task_initial) != 0;
  data->ptr = nullptr;
  let_go(task->region);
  let_go(task);
  if (!initial && index != 0) go_idle(t);  // a worker waits for the next parallel region
}

void OpenMpRecording::task_create(ompt_data_t* encountering, ompt_data_t* created, int flags, const void* ra) {
  Thread& t = thread();
  Task* parent = task_of(encountering);
  auto* task = new Task;
  const CallSite at = site(ra);
  t.just_created = nullptr;
  if ((flags & ompt_task_taskwait) != 0) {
    // No task of the program: libomp's stand-in for a wait on dependences (`taskwait depend`,
    // or an undeferred task's depend clause). The encountering task waits in it until
    // taskwait_complete; the predecessors' completions free its next unit.
    task->parent = parent;
    hold(parent);
    created->ptr = task;
    if (parent != nullptr) {
      if (t.running == parent) end_unit(t, kTaskwait, at);
      task->first_unit = unit_for(*parent);
      parent->in_sync = kTaskwait;
    }
    ++t.waiting;
    go_idle(t);
    return;
  }
  task->created_at = at;
  task->explicit_task = true;
  task->vp = define_vp(t, "task", at);
  task->first_unit = unit_for(*task);
  task->parent = parent;
  hold(parent);
  task->region = parent != nullptr ? parent->region : nullptr;
  hold(task->region);
  created->ptr = task;
  const bool deferred = (flags & (ompt_task_undeferred | ompt_task_mergeable | ompt_task_merged)) == 0;
  if (!deferred) undeferred_tasks_.fetch_add(1, std::memory_order_relaxed);
  task->ready_ticket.store(next_ticket_.fetch_add(1, std::memory_order_relaxed), std::memory_order_relaxed);
  // Creating a task is a task scheduling point: the creator's unit ends there.
  if (parent != nullptr && t.running == parent) {
    end_unit(t, kTask, at, [&](UnitId unit) { constraint(t, kTask, unit, task->first_unit); });
    begin_unit(t, *parent);
    // libomp queues a deferred task after this callback returns, in the unit that goes on (and
    // allocated it before, in the unit that ended): its measured cost is the runtime's, booked
    // from that unit's start (an undeferred task is not queued: nothing is booked).
    if (deferred) {
      book_estimate(t, task_ticks_.create);
      t.just_created = task;
    }
  }
}

void OpenMpRecording::dependences(ompt_data_t* data, int count) {
  Thread& t = thread();
  Task* task = task_of(data);
  if (task == nullptr || count <= 0) return;
  task->has_depend = true;
  // libomp matches the dependences of the task just created after this callback, in the
  // creator's unit that went on at the creation: what a depend clause adds is booked there too.
  if (task == t.just_created) book_estimate(t, task_ticks_.create_dep_extra);
  t.just_created = nullptr;
}

void OpenMpRecording::task_dependence(ompt_data_t* source, ompt_data_t* sink) {
  Thread& t = thread();
  Task* from = nullptr;
  {
    std::lock_guard<std::mutex> alive(stripe_of(source));
    from = task_of(source);
    hold(from);  // it may complete, and be let go, on another thread meanwhile
  }
  struct Release {
    Task* task;
    ~Release() { let_go(task); }
  } release{from};
  Task* to = task_of(sink);
  if (from == nullptr || to == nullptr) return;
  for (const Task* known : to->predecessors) {
    if (known == from) return;  // two dependences on one predecessor make one constraint
  }
  to->predecessors.push_back(from);
  to->ready_ticket.store(UINT64_MAX, std::memory_order_relaxed);
  std::unique_lock<std::mutex> hold_from(from->successors_mutex);
  if (!from->completed) {
    hold(to);
    from->successors.push_back(to);
    return;
  }
  const UnitId done = from->final_unit;
  hold_from.unlock();
  constraint(t, kDepend, done, to->first_unit);
}

void OpenMpRecording::complete(Thread& t, Task& task, UnitId last_unit) {
  std::vector<Task*> freed;
  {
    std::lock_guard<std::mutex> hold_task(task.successors_mutex);
    task.completed = true;
    task.final_unit = last_unit;
    freed.swap(task.successors);
  }
  for (Task* successor : freed) {
    constraint(t, kDepend, last_unit, successor->first_unit);
    let_go(successor);
  }
  if (Region* region = task.region) {
    std::lock_guard<std::mutex> hold_region(region->mutex);
    region->last_done = last_unit;
    region->last_done_ticket = next_ticket_.fetch_add(1, std::memory_order_relaxed);
  }
}

void OpenMpRecording::task_schedule(ompt_data_t* prior_data, ompt_task_status_t status, ompt_data_t* next_data) {
  Thread& t = thread();
  Task* prior = task_of(prior_data);
  Task* next = task_of(next_data);
  // An early fulfilment (the event fulfilled while the task runs) is no scheduling point: the
  // task completes when its body ends. A cancelled task completes too.
  if (status == ompt_task_early_fulfill) return;
  if (status == ompt_taskwait_complete) {
    if (prior == nullptr) return;
    if (t.waiting > 0) --t.waiting;
    if (Task* waiter = prior->parent) {
      waiter->in_sync = 0;
      if (t.running == nullptr) begin_unit(t, *waiter);
      let_go(waiter);
    }
    {
      std::lock_guard<std::mutex> alive(stripe_of(prior_data));
      prior_data->ptr = nullptr;
    }
    let_go(prior);
    return;
  }
  const bool completed = status == ompt_task_complete || status == ompt_task_late_fulfill || status == ompt_task_cancel;
  // libomp completes an explicit task after this callback returns (releases its dependences,
  // frees it): in the unit that goes on here, if one does, its measured cost is the runtime's.
  const std::uint64_t completion = prior == nullptr || !completed || !prior->explicit_task ? 0
                                   : prior->has_depend                                    ? task_ticks_.end_dep
                                                                                          : task_ticks_.end;
  if (prior != nullptr) {
    if (completed) {
      if (status == ompt_task_cancel && t.running != prior && prior->first_unit != 0 &&
          prior->next_unit == prior->first_unit) {
        // Cancelled before it ran: the runtime discards it here. An empty unit keeps its
        // creation's constraint on a recorded unit.
        if (t.running != nullptr) {
          switches_.fetch_add(1, std::memory_order_relaxed);
          end_unit(t, kTaskSwitch, kUnknownSite);
        }
        begin_unit(t, *prior);
      }
      // Siblings end in the order they tell their parent: the last child to complete (what
      // frees a taskwait) is then also the one whose unit ended last.
      std::unique_lock<std::mutex> in_order;
      if (prior->parent != nullptr) in_order = std::unique_lock<std::mutex>(prior->parent->children_mutex);
      auto done = [&](UnitId unit) {
        if (prior->parent != nullptr) {
          prior->parent->last_child_done.store(unit, std::memory_order_relaxed);
          in_order.unlock();
        }
        complete(t, *prior, unit);
      };
      if (t.running == prior) {
        end_unit(t, kTaskEnd, prior->created_at, done);
      } else {
        done(prior->detached_unit != 0 ? prior->detached_unit : prior->last_unit);  // fulfilled after its body
      }
      let_go(prior->parent);
      let_go(prior->region);
      {
        std::lock_guard<std::mutex> alive(stripe_of(prior_data));
        prior_data->ptr = nullptr;
      }
      let_go(prior);
    } else if (t.running == prior && status == ompt_task_detach) {
      // A detached task's body has ended: its last unit ends here, and its completion (the
      // late fulfilment, on any thread) frees its successors from that unit.
      prior->detached_unit = end_unit(t, kTaskEnd, prior->created_at);
    } else if (t.running == prior) {  // a yield, a switch to an undeferred task
      switches_.fetch_add(1, std::memory_order_relaxed);
      end_unit(t, kTaskSwitch, kUnknownSite);
    }
  }
  if (next != nullptr && next->in_sync == 0 && t.running == nullptr) {
    begin_unit(t, *next);
    book_estimate(t, completion);
  } else if (t.waiting > 0) {
    go_idle(t);
  }
}

void OpenMpRecording::arrive(Task& task, UnitId unit) {
  Region* region = task.region;
  if (region == nullptr) return;
  const std::uint64_t epoch = region->arrivals / region->team;
  ++region->arrivals;
  task.barrier_epoch = epoch;
  const std::size_t slot = epoch % Region::kSlots;
  region->last_arrival[slot] = unit;
  region->last_arrival_ticket[slot] = next_ticket_.fetch_add(1, std::memory_order_relaxed);
}

UnitId OpenMpRecording::barrier_released_by(Region* region, std::uint64_t epoch) {
  if (region == nullptr) return 0;
  std::lock_guard<std::mutex> hold_region(region->mutex);
  const std::size_t slot = epoch % Region::kSlots;
  // A barrier also waits for the region's tasks: a task that completed after the last arrival freed it.
  if (region->last_done_ticket > region->last_arrival_ticket[slot]) return region->last_done;
  return region->last_arrival[slot];
}

void OpenMpRecording::sync_region(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t* parallel,
                                  ompt_data_t* data, const void* ra) {
  Thread& t = thread();
  Task* task = task_of(data);
  // A reduction's sync region lies inside the construct that owns it: no scheduling point.
  if (task == nullptr || kind == ompt_sync_region_reduction) return;
  const ConstructKind construct = sync_construct(kind);
  // A taskgroup's region begins where the taskgroup opens: its tasks are created inside it, and
  // the task waits only at the end (sync_region_wait).
  if (endpoint == ompt_scope_begin && kind == ompt_sync_region_taskgroup) return;
  if (endpoint == ompt_scope_begin) {
    task->in_sync = construct;
    if (!is_barrier(kind)) {
      if (t.running == task) end_unit(t, construct, site(ra));
      return;
    }
    // Arrivals are counted in the order their units end: the last arrival ended last. A barrier
    // the runtime placed (the join, a worker's) has no line of the program: it is the loop's that
    // ended in this unit (a `parallel for` waits here for its chunks), else the region's.
    CallSite at = site(ra);
    if (at.line == 0 && t.running == task && t.unit != 0 && t.work_ended_in == t.unit && t.work_site.line != 0) {
      at = t.work_site;
    } else if (at.line == 0 && task->region != nullptr) {
      at = task->region->site;
    }
    std::lock_guard<std::mutex> in_order(task->region != nullptr ? task->region->mutex : task->children_mutex);
    arrive(*task, t.running == task ? end_unit(t, construct, at) : 0);
    return;
  }
  task->in_sync = 0;
  if (parallel == nullptr && is_barrier(kind)) return;  // the region's join: the implicit task ends next
  if (t.running != nullptr) return;
  UnitId from = 0;
  if (is_barrier(kind)) {
    from = barrier_released_by(task->region, task->barrier_epoch);
  } else {
    from = task->last_child_done.exchange(0, std::memory_order_acq_rel);
  }
  constraint(t, construct, from, unit_for(*task));
  begin_unit(t, *task);
}

void OpenMpRecording::sync_region_wait(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t* data,
                                       const void* ra) {
  Thread& t = thread();
  Task* task = task_of(data);
  if (endpoint == ompt_scope_begin && kind == ompt_sync_region_taskgroup && task != nullptr) {
    task->in_sync = kTaskgroup;  // the end of the taskgroup: a scheduling point, as a taskwait
    if (t.running == task) end_unit(t, kTaskgroup, site(ra));
  }
  if (endpoint == ompt_scope_begin) {
    ++t.waiting;
    go_idle(t);
  } else {
    if (t.waiting > 0) --t.waiting;
    stop_idle(t);
  }
}

void OpenMpRecording::mutex_acquire(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void* ra) {
  if (!is_exclusive(kind) || is_test(kind)) return;  // a test may fail: its boundary is at acquired
  Thread& t = thread();
  if (t.running == nullptr) return;
  t.acquiring = t.running;
  const CallSite at = site(ra);
  t.entered[wait_id] = at;
  end_unit(t, is_lock(kind) ? kLock : kCritical, at);
  go_idle(t);  // until it is granted: a wait for the thread that holds it
}

void OpenMpRecording::mutex_acquired(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void* ra) {
  if (!is_exclusive(kind)) return;
  Thread& t = thread();
  if (is_test(kind) && t.running != nullptr) {
    t.acquiring = t.running;
    const CallSite at = site(ra);
    t.entered[wait_id] = at;
    end_unit(t, kLock, at);
  }
  Task* task = t.acquiring;
  t.acquiring = nullptr;
  if (task == nullptr || t.running != nullptr) return;
  // libomp reports a release after it made it, so the next holder may be granted the lock before
  // its previous holder has told the tool: then the release, when it is told, frees this unit.
  UnitId released_by = 0;
  const UnitId unit = unit_for(*task);
  {
    std::lock_guard<std::mutex> hold_locks(locks_mutex_);
    LockState& lock = locks_[wait_id];
    if (lock.releases == lock.acquisitions) {
      released_by = lock.last_release;
    } else {
      lock.waiting = unit;
    }
    ++lock.acquisitions;
  }
  constraint(t, is_lock(kind) ? kUnlock : kCriticalEnd, released_by, unit);
  begin_unit(t, *task);
}

void OpenMpRecording::mutex_released(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void* ra) {
  if (!is_exclusive(kind)) return;
  Thread& t = thread();
  Task* task = t.running;
  if (task == nullptr) return;
  auto entered = t.entered.find(wait_id);
  const bool named = entered != t.entered.end() && (kind == ompt_mutex_critical || ra == nullptr);
  const UnitId unit = end_unit(t, is_lock(kind) ? kUnlock : kCriticalEnd, named ? entered->second : site(ra));
  UnitId frees = 0;
  {
    std::lock_guard<std::mutex> hold_locks(locks_mutex_);
    LockState& lock = locks_[wait_id];
    lock.last_release = unit;
    ++lock.releases;
    std::swap(frees, lock.waiting);
  }
  constraint(t, is_lock(kind) ? kUnlock : kCriticalEnd, unit, frees);
  begin_unit(t, *task);
}

void OpenMpRecording::work(ompt_work_t kind, ompt_scope_endpoint_t endpoint, const void* ra) {
  (void)kind;
  Thread& t = thread();
  if (endpoint == ompt_scope_begin) {
    t.work_site = site(ra);
  } else {
    t.work_ended_in = t.unit;
  }
}

void OpenMpRecording::dispatch() {
  Thread& t = thread();
  if (t.running == nullptr) return;
  Task* task = t.running;
  end_unit(t, kLoopChunk, t.work_site);
  begin_unit(t, *task);
}

void OpenMpRecording::finish() {
  finished_.store(true, std::memory_order_relaxed);
  std::string bindings;
  {
    std::lock_guard<std::mutex> hold_binding(binding_mutex_);
    for (std::size_t core = 0; core < binding_.size(); ++core) {
      bindings += (core == 0 ? "" : ",") + std::to_string(core) + ":" +
                  (binding_[core].empty() ? "in no parallel region" : binding_[core]);
    }
  }
  recorder_.note_closing("omp_core_binding", bindings);
  recorder_.note_closing("omp_unrecorded_threads", std::to_string(unrecorded_threads_.load()));
  recorder_.note_closing("omp_undeferred_tasks", std::to_string(undeferred_tasks_.load()));
  recorder_.note_closing("omp_task_switches", std::to_string(switches_.load()));
}

}  // namespace moirai::ompt

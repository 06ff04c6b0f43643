// The OpenMP model of a trace: OMPT's events, on the thread they happen on, turned into the
// recorder's units, idle spans and constraints (docs/openmp.md says what becomes what).
#pragma once

#include <omp-tools.h>

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "code_symbols.h"
#include "moirai/instrument/trace_recorder.h"
#include "task_cost.h"
#include "task_state.h"

namespace moirai::ompt {

// OpenMpRecording receives OMPT's callbacks and records them through one TraceRecorder: each
// OpenMP thread is a core (the first `cores` threads; more are counted, not recorded), each task a
// VP, each stretch of a task between two scheduling points a unit. Given libomp's cost per task
// (task_cost), it books that much of each unit that goes on after libomp created or completed a
// task as the runtime's estimated work (TraceRecorder::runtime_work_estimated).
class OpenMpRecording {
 public:
  OpenMpRecording(instrument::TraceRecorder& recorder, std::size_t cores, const std::optional<TaskCost>& task_cost = {});
  ~OpenMpRecording();

  void thread_begin(ompt_thread_t type);
  void thread_end();
  void parallel_begin(ompt_data_t* encountering, ompt_data_t* parallel, unsigned requested, const void* ra);
  void parallel_end(ompt_data_t* parallel, ompt_data_t* encountering);
  void implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t* parallel, ompt_data_t* task,
                     unsigned actual, unsigned index, int flags);
  void task_create(ompt_data_t* encountering, ompt_data_t* created, int flags, const void* ra);
  void task_dependence(ompt_data_t* source, ompt_data_t* sink);
  void dependences(ompt_data_t* task, int count);
  void task_schedule(ompt_data_t* prior, ompt_task_status_t status, ompt_data_t* next);
  void sync_region(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t* parallel,
                   ompt_data_t* task, const void* ra);
  void sync_region_wait(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t* task, const void* ra);
  void mutex_acquire(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void* ra);
  void mutex_acquired(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void* ra);
  void mutex_released(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void* ra);
  void work(ompt_work_t kind, ompt_scope_endpoint_t endpoint, const void* ra);
  void dispatch();

  // finish adds what the run did that the trace could not hold to its closing chunk.
  void finish();

 private:
  struct Thread;
  Thread& thread();
  UnitId unit_for(Task& task);
  void begin_unit(Thread& t, Task& task);
  template <typename Constraints>
  UnitId end_unit(Thread& t, ConstructKind kind, const CallSite& site, Constraints&& constraints);
  UnitId end_unit(Thread& t, ConstructKind kind, const CallSite& site);
  void constraint(Thread& t, ConstructKind kind, UnitId from, UnitId to);
  void go_idle(Thread& t);
  // stop_idle ends the thread's idle span; handed_over: it was the runtime handing over a task
  // queued before it began, recorded as the next unit's decision (TraceRecorder::dispatch_end).
  void stop_idle(Thread& t, bool handed_over = false);
  void complete(Thread& t, Task& task, UnitId last_unit);
  void arrive(Task& task, UnitId unit);  // the region's mutex held
  UnitId barrier_released_by(Region* region, std::uint64_t epoch);  // the last arrival, or the last task done after it
  CallSite site(const void* ra);
  VpId define_vp(Thread& t, const std::string& name, const CallSite& at);
  // book_estimate books `ticks` of the thread's running unit, from its start, as libomp's work.
  void book_estimate(Thread& t, std::uint64_t ticks);

  // TaskTicks is task_cost in the recorder's clock ticks; the dependence's are what it adds.
  struct TaskTicks {
    std::uint64_t create = 0, create_dep_extra = 0, end = 0, end_dep = 0;
  };
  static TaskTicks ticks_of(const std::optional<TaskCost>& cost);

  instrument::TraceRecorder& recorder_;
  symbols::CodeSymbols symbols_;
  const std::size_t cores_;
  const TaskTicks task_ticks_;
  std::atomic<CoreId> next_core_{0};
  std::atomic<UnitId> next_unit_{1};
  std::atomic<VpId> next_vp_{1};
  std::atomic<std::uint64_t> next_ticket_{1};
  std::atomic<std::uint64_t> unrecorded_threads_{0};
  std::atomic<std::uint64_t> undeferred_tasks_{0};
  std::atomic<std::uint64_t> switches_{0};
  std::atomic<bool> finished_{false};
  std::mutex locks_mutex_;
  // A task's OMPT data is cleared under its stripe before the task is let go, and a dependence
  // reads and holds its predecessor under the same stripe: libomp reports a dependence on a
  // predecessor until it releases its dependences, after the completion the tool frees it at.
  std::array<std::mutex, 64> task_data_stripes_;
  std::mutex& stripe_of(const ompt_data_t* data) {
    return task_data_stripes_[(reinterpret_cast<std::uintptr_t>(data) >> 4) % task_data_stripes_.size()];
  }
  // LockState is what the tool knows of one lock or critical section: who left it last, and a
  // holder granted it before that release was told (the release then frees it).
  struct LockState {
    UnitId last_release = 0;
    std::uint64_t acquisitions = 0, releases = 0;
    UnitId waiting = 0;
  };
  std::unordered_map<ompt_wait_id_t, LockState> locks_;
  std::mutex binding_mutex_;
  std::vector<std::string> binding_;  // per core: the PU its thread is bound to, or "unbound (N PUs)"
};

}  // namespace moirai::ompt

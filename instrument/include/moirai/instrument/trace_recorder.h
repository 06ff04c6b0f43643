// The trace writer: records every instrumentation point of a run into a trace file.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "moirai/instrument/counters.h"
#include "moirai/core/runtime_observer.h"

namespace moirai::instrument {

// RecorderOptions configures a TraceRecorder.
struct RecorderOptions {
  std::string path;                    // the trace file to write
  std::vector<std::string> counters;   // counter names (counters.h); missing ones are reported, not faked
  std::string command_line;            // stored in the header
  std::size_t buffer_bytes = 256 * 1024;  // per-core buffer, a full one becomes one chunk;
                                          // many cores share 32 MiB (at least 16 KiB each)
  bool os_time = true;                 // on real cores, record what the OS took from each unit
  // flush_interval bounds how long a record stays only in memory: the writer writes out what
  // each core has appended so far at least this often, without the core's help, so a run
  // killed with SIGKILL loses at most its last flush_interval of records (or one chunk per
  // core, if a core fills a buffer faster). 0: at every wake of the writer (20 ms).
  std::chrono::milliseconds flush_interval{100};
  // metadata: more key=value lines for the header, from a front-end that records a runtime it
  // did not write (e.g. which OpenMP runtime, how its threads were bound); keys must be new.
  std::vector<std::pair<std::string, std::string>> metadata{};
};

// RecorderStats counts what a recorder wrote.
struct RecorderStats {
  std::uint64_t chunks = 0;
  std::uint64_t records = 0;
  std::uint64_t bytes = 0;
  std::uint64_t dropped = 0;       // always 0: cores wait for the writer instead
  std::uint64_t writer_waits = 0;
  std::string stopped;             // why the recording stopped mid-run (a write failed); empty: the trace is whole
};

// TraceRecorder is a RuntimeObserver that writes the trace format of docs/trace-format.md: each
// core appends fixed-size records to its own buffer, full buffers go to a writer thread as
// chunks, and nothing is dropped (a core whose buffers are all full waits, and records that).
// The writer also writes out what the cores have appended every flush_interval, so a killed
// run leaves a trace that holds all but its last moments. SIGINT and SIGTERM, where the
// application left them at their default, are caught while the run records: the writer writes
// every record, marks the trace interrupted and ends the process as the signal would have.
// Opening the file and choosing counters happen in the constructor, which throws
// std::runtime_error naming the file when it cannot be written.
class TraceRecorder final : public RuntimeObserver {
 public:
  explicit TraceRecorder(RecorderOptions options);
  ~TraceRecorder() override;
  TraceRecorder(const TraceRecorder&) = delete;
  TraceRecorder& operator=(const TraceRecorder&) = delete;

  // pause stops recording and resume starts it again; each core follows at its next unit
  // boundary and marks the span it did not record with a `paused` record. Any thread may call
  // them, e.g. a VP around a phase not worth recording.
  void pause() noexcept;
  void resume() noexcept;
  // counters lists every requested counter and whether it is recorded.
  const std::vector<CounterStatus>& counters() const;
  // finish writes what is left, the closing chunk and the end chunk, and gives SIGINT and
  // SIGTERM back their default action; called by the destructor if not before. Returns what was
  // written. A SIGINT or SIGTERM caught before it ends the process here, after the trace is
  // written (marked interrupted).
  RecorderStats finish();
  // note_closing adds a key=value line to the closing chunk, for what a front-end knows only at
  // the end (e.g. what its runtime did that it could not record); any thread, before finish.
  void note_closing(std::string key, std::string value);
  // dispatch_end ends an idle period (idle_begin) that was the runtime handing over a unit ready
  // before the period began (a thread stealing a queued task): the span is recorded as the next
  // unit's decision to animate, not as idle. A front-end that learns it only when the unit starts
  // calls it instead of idle_end.
  void dispatch_end(CoreId core);
  // runtime_work_estimated says that the unit open on `core` began with `ticks` of the runtime's
  // own work that no event bounds: a front-end's estimate (libomp queueing a task after OMPT's
  // callback returned, which the unit would count as work). Calls add up; at the unit's end that
  // much of its work, never more than all of it, moves into its decision span, marked by an
  // `estimated` chore (trace format 3.5), and the closing chunk's `estimated_runtime_work` says
  // how much was booked and how many units had less work than their estimate.
  void runtime_work_estimated(CoreId core, std::uint64_t ticks);

  void use_time_source(const TimeSource& time) override;
  void language_names_domains() override;
  void run_start(const LanguageInfo& language, std::size_t core_count) override;
  void core_start(CoreId core) override;
  void core_stop(CoreId core) override;
  void vp_created(CoreId core, VpId vp, const std::string& name, const CallSite& created_at,
                  CoreId home_core) override;
  void unit_begin(CoreId core, VpId vp, UnitId unit) override;
  void unit_end(CoreId core, VpId vp, UnitId unit, ConstructKind ended_by,
                const CallSite& site) override;
  void handler_enter(CoreId core, ConstructKind kind, UnitId requesting_unit) override;
  void handler_exit(CoreId core, ConstructKind kind, UnitId requesting_unit) override;
  void assigner_enter(CoreId core) override;
  void assigner_exit(CoreId core, UnitId chosen) override;
  void lock_wait_begin(CoreId core) override;
  void lock_wait_end(CoreId core, CoreId released_by, LockDomain domain) override;
  void lock_domain_named(CoreId core, LockDomain domain, const std::string& name) override;
  void idle_begin(CoreId core) override;
  void idle_end(CoreId core) override;
  void chore_begin(CoreId core) override;
  void chore_end(CoreId core, Chore chore, std::uint32_t cores) override;
  void constraint(CoreId core, ConstructKind kind, UnitId from, UnitId to,
                  std::uint64_t match) override;
  void group_defined(CoreId core, std::uint64_t group, ConstructKind kind,
                     const std::string& name) override;
  void group_member(CoreId core, std::uint64_t group, std::uint16_t role, UnitId unit) override;
  void user_event(CoreId core, UnitId unit, const char* name, bool begin) override;
  void work_declared(CoreId core, std::uint64_t ticks) override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace moirai::instrument

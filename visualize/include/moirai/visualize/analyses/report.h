// The report: what caused the lost time, ranked, with cores, times and call sites.
#pragma once

#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "moirai/trace/reader.h"
#include "moirai/visualize/analyses/run_summary.h"

namespace moirai::visualize {

// IdleCause is one cause of idle time: the construct whose satisfaction ended idle periods
// (at one call site of the freeing unit), or "nothing left to run" at the end of the run.
struct IdleCause {
  std::string construct;
  std::string site;
  std::uint64_t ticks = 0;
  std::uint64_t periods = 0;
  std::vector<std::uint32_t> cores;
};

// IdlePeriod is one stretch of a core's idle time the report counts: a recorded idle span, or the
// core's time before its first record (start of run) or after its last (end of run).
struct IdlePeriod {
  enum class Kind : std::uint8_t { idle, start_of_run, end_of_run };
  Kind kind = Kind::idle;
  std::uint32_t core = 0;
  std::uint64_t begin = 0, end = 0;  // clock readings
  std::uint64_t ticks = 0;           // end - begin less the lock wait and chores inside (what the report counts)
  std::uint32_t cause = UINT32_MAX;  // index in Report::idle_causes (UINT32_MAX: start of run, charged to no cause)
};

// idle_kind_name names a kind of idle period as the SQLite export's `idle.kind` column does.
const char* idle_kind_name(IdlePeriod::Kind kind);

// Hint is one diagnosis: a pattern of lost time the trace shows (the rules: docs/architecture.md).
struct Hint {
  std::string rule;     // creator-starvation, exclusive-late, long-serial, critical-path,
                        // lock-contention, unit-size, unused-cores, idle-tail, idle-band, idle-cause
  std::string message;  // what it found and what to try
  std::vector<std::uint32_t> cores;  // sorted
  std::uint64_t begin = 0, end = 0;  // ticks from the run's start
  std::string site;
  std::vector<std::uint64_t> units;  // the units it names for the cure (critical-path: the chain's to split;
                                     // creator-starvation: the creator's own work that kept others waiting)
  std::string construct;             // the constraint that binds it: critical-path on a chain of dependences,
                                     // the one it crosses most; idle-cause at an exclusive section, its end
  std::uint64_t lost = 0;  // core-ticks of the lost-time partition it claimed (hints are ranked by it)
};

// LostTime is the run's core time that was not work, split once by kind; no tick is in two
// hints, so `explained` never exceeds `total`.
struct LostTime {
  std::uint64_t core_time = 0;  // cores x makespan
  std::uint64_t work = 0;       // units' work, less what the OS took
  std::uint64_t total = 0;      // core_time - work
  std::map<std::string, std::uint64_t> by_kind;  // idle, lock wait, taken by the OS, ...
  std::uint64_t explained = 0;  // the hints' losses (those above the line)
};

// OverheadByKind splits the runtime overhead of all units by life-line segment, in ticks.
struct OverheadByKind {
  std::uint64_t decision = 0;       // assigner and the switch into the VP, without the lock wait
  std::uint64_t communication = 0;  // state-update communication, without the lock wait
  std::uint64_t lock_wait = 0;      // waiting for the runtime lock, before the assigner too (handoff records)
  std::uint64_t constraint_update = 0;  // request handlers other than creation
  std::uint64_t create = 0;         // create meta-unit: handlers of VP creation, and making VP shells
  std::uint64_t recording = 0;      // the probe's own cost (units x its measured cost per unit), taken out of decision
  std::uint64_t wake_up = 0;        // waking the cores given work (chores), taken out of decision and idle
  std::uint64_t estimated = 0;      // the runtime's work estimated inside units (format 3.5), taken out of their work
  std::uint64_t total() const {
    return decision + communication + lock_wait + constraint_update + create + recording + wake_up + estimated;
  }
};

// Report holds every number `moirai report` prints.
struct Report {
  static constexpr std::uint32_t kNoCause = UINT32_MAX;  // idle_span_cause of a span with no cause
  std::uint64_t makespan = 0;   // ticks from the first to the last reading
  RunSummary summary;
  std::vector<IdleCause> idle_causes;  // most idle time first
  std::vector<std::uint32_t> idle_span_cause;  // per span of Trace::idle: its index in idle_causes (kNoCause: none, a span of no time)
  std::vector<IdlePeriod> idle_periods;        // every idle period counted, core by core in time order
  std::vector<std::uint64_t> unit_size_histogram;  // units by work ticks, bucket k: [2^k, 2^(k+1))
  double overhead_per_work = 0;  // all overhead / all work
  OverheadByKind overhead;
  std::string unit_size_verdict;  // "too small", "fine" or "too big" (StarSs-style)
  std::vector<Hint> hints;       // most lost time first; empty for a run with no problem worth tuning
  std::vector<Hint> minor_hints; // causes found that cost under a few per cent of the core time
  std::vector<std::string> warnings;  // qualify every figure (a busy machine): shown first
  std::vector<std::string> notes;     // shown before the hints
  LostTime lost;

  // The critical path (unit_graph.h): the heaviest chain of program dependencies by work.
  std::uint64_t critical_path_work = 0;    // ticks of work on it
  std::uint64_t critical_path_cycles = 0;  // work + overhead of its units
  std::size_t critical_path_units = 0;
  double critical_path_share = 0;          // critical-path work / makespan
  double parallelism = 0;                  // total work / critical-path work
  std::map<std::string, std::uint64_t> critical_path_arcs;  // its arcs by construct, and "same VP"
};

// build_report analyses a trace.
Report build_report(const trace::Trace& trace);
void print_report(std::ostream& out, const trace::Trace& trace, const Report& report);
void print_report_json(std::ostream& out, const trace::Trace& trace, const Report& report);

}  // namespace moirai::visualize

// RunSummary: the per-core and per-construct accounting of one trace (what `moirai stats` shows).
#pragma once

#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "moirai/trace/reader.h"
#include "moirai/visualize/model/run_span.h"

namespace moirai::visualize {

// CoreTime is where one core's time went, in clock ticks, by life-line segment.
struct CoreTime {
  std::uint64_t units = 0;
  std::uint64_t work = 0;           // the units' work, less what the OS took from it
  std::uint64_t os_taken = 0;       // inside units' work spans, the OS ran something else
  std::uint64_t communication = 0;  // state-update communication, lock wait included
  std::uint64_t lock_wait = 0;      // the part of communication spent waiting for the lock
  std::uint64_t constraint_update = 0;
  std::uint64_t decision = 0;       // assigner and the move to the core, less the chores in it
  std::uint64_t idle = 0;           // less the chores in it
  // Chores (trace format 3.2), taken out of decision and idle: waking other cores, and making
  // the VP shell of the core's next creation; their time and how many.
  std::uint64_t wake_ups = 0, vp_shells = 0;
  std::uint64_t wake_up_count = 0, vp_shell_count = 0;
  // The runtime's work a front-end estimated and took out of the units' work (format 3.5: the
  // OpenMP tool's libomp work per task), taken out of decision; its time and how many units gave it.
  std::uint64_t estimated = 0, estimated_count = 0;
  // overhead is the runtime's share of the core's time (lock wait inside communication).
  std::uint64_t overhead() const { return decision + communication + constraint_update + wake_ups + vp_shells + estimated; }
  std::uint64_t total() const {
    return work + os_taken + communication + constraint_update + decision + idle + wake_ups + vp_shells + estimated;
  }
};

// RunSummary holds the numbers `moirai stats` reports.
struct RunSummary {
  std::uint64_t vps = 0;
  std::uint64_t units = 0;
  std::map<std::string, std::uint64_t> constraints_by_kind;
  // What the trace's message records say the messages and collective calls carried (format 3.7;
  // all 0 for a trace without them).
  std::uint64_t messages = 0, message_bytes = 0;
  std::uint64_t collective_calls = 0, collective_bytes = 0;
  std::uint64_t groups = 0;
  std::string group_kinds;  // what the groups are partners of, from the trace's construct roles
  std::vector<CoreTime> cores;
  std::vector<std::pair<std::string, std::uint64_t>> counter_totals;  // recorded counters
  double bytes_per_unit = 0;
};

// summarize computes the summary of a trace that read_trace returned.
RunSummary summarize(const trace::Trace& trace);
// print_summary writes it as text; print_summary_json as one JSON object. Both include the
// trace's header facts and its integrity (chunks, bytes, records, dropped, cut), and give each
// core's work and idle as shares of the makespan, as the report does.
void print_summary(std::ostream& out, const std::string& path, const trace::Trace& trace,
                   const RunSummary& summary);
void print_summary_json(std::ostream& out, const std::string& path, const trace::Trace& trace,
                        const RunSummary& summary);

}  // namespace moirai::visualize

// OsLoad: what the OS took from a run on real cores, per core: time its thread did not run
// inside units, the switches and migrations that came with it, and what else its CPU did.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "moirai/trace/reader.h"

namespace moirai::visualize {

// kBusyShare is the OS share of a core's time above which its figures count as inflated.
inline constexpr double kBusyShare = 0.03;

// CoreOsLoad is one core's part.
struct CoreOsLoad {
  std::uint32_t core = 0;
  std::uint64_t taken = 0;       // ticks taken from its units' work
  std::uint64_t units_hit = 0;   // units the OS took time from
  std::uint64_t switches = 0;    // involuntary context switches inside units
  std::uint64_t migrations = 0;  // CPU migrations inside units
  double share = 0;              // taken / the run's span
  int cpu = -1;                  // the CPU its thread ran on (-1: unknown)
  bool unpinned = false;         // its thread ended on another CPU than it started on
  double other_busy_ns = -1;     // other work on that CPU during the run (-1: not recorded)
  double steal_ns = -1;          // the hypervisor's steal from that CPU (-1: not recorded)
  bool per_run = false;          // `taken` was measured over the whole run (a process's run queue
                                 // wait), not per unit: no unit is known to be hit
};

// OsLoad is the whole run's.
struct OsLoad {
  bool measured = false;  // the trace measured it (real cores, recorder version 2)
  std::string method;     // how ("perf_event switch count", ...), or why not
  std::vector<CoreOsLoad> cores;
  std::uint64_t taken = 0;  // all cores
  // busy_cores are the cores whose share is above kBusyShare, most taken first.
  std::vector<std::uint32_t> busy_cores() const;
};

// os_load computes it from a trace's units and its closing figures.
OsLoad os_load(const trace::Trace& trace);

}  // namespace moirai::visualize

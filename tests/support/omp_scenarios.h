// The OpenMP scenario apps (apps/omp/omp_scenarios) recorded through libmoirai_ompt.so, and what
// the report said of each: shared by the scenario test (the claimed loss held to replay's gain)
// and bench/omp_scenarios.sh's driver (the claimed loss against the fixed variant's real gain).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <ostream>
#include <string>
#include <vector>

#include "moirai/visualize/analyses/os_load.h"
#include "moirai/visualize/analyses/report.h"
#include "support/openmp_run.h"

namespace moirai::test {

// Planted is one scenario of apps/omp/omp_scenarios.cpp and the hint it plants.
struct Planted {
  const char* name;
  const char* scale;  // shortened runs: the test stays well under a minute
  const char* rule;   // the planted cause's rule ("": the clean run, no hint)
  // rank_gap: why the cause's hint, found, need not be first even on a quiet machine ("": it must).
  const char* rank_gap = "";
  // replay_gap: why its claimed loss is not yet held within 15 % of replay's gain ("": it is).
  const char* replay_gap = "";
};

// PrintTo names a scenario in test names and messages (not its bytes).
inline void PrintTo(const Planted& planted, std::ostream* out) { *out << planted.name; }

// The replay gaps were measured 2026-11-28 on a quiet machine (bench/omp_scenarios.sh and this
// test's printed lines; issue 36's closing note).
inline const Planted kOmpScenarios[] = {
    {"producer", "0.5", "creator-starvation"},
    {"critical", "0.5", "idle-cause",
     "critical-path claims first the idle the chain of critical sections forces (parallelism 1.24 < 1.6), naming the chain's "
     "longest unit, the initial task's before the fork, not the critical section; idle-cause names the section with the rest",
     "unchain frees the whole section where the fix keeps the update inside, and what it gains varies from recording to "
     "recording: loss / replayed gain 0.74 to 1.77 on quiet runs, where loss / the fix's real gain is 0.98 to 1.03"},
    {"static_tail", "0.7", "idle-tail"},
    {"fine_tasks", "0.3", "unit-size", "",
     "the recording itself varies: on quiet runs the claim was 104 to 254 ms against a replayed gain of 186 to 204 ms (loss "
     "/ replayed gain 0.53 to 1.32), with libomp's estimated work per task booked"},
    {"clean", "4", ""},  // long enough that libomp's start (in the initial task's first unit, 31 ms under the sanitizers) stays under 5%
};

// planted_line is the line of the construct that plants scenario `name`'s cause in
// apps/omp/omp_scenarios.cpp: the first task, critical or loop pragma at or after the first
// "planted:" comment of the scenario's section ("// --- name:").
inline int planted_line(const std::string& name) {
  std::ifstream source(std::string(MOIRAI_SOURCE_DIR) + "/apps/omp/omp_scenarios.cpp");
  std::string line;
  bool in_section = false, planted = false;
  for (int number = 1; std::getline(source, line); ++number) {
    if (line.rfind("// --- ", 0) == 0) in_section = line.rfind("// --- " + name + ":", 0) == 0;
    if (!in_section) continue;
    planted = planted || line.find("planted:") != std::string::npos;
    const bool construct = line.find("#pragma omp task") != std::string::npos || line.find("#pragma omp critical") != std::string::npos ||
                           line.find("#pragma omp parallel for") != std::string::npos;
    if (planted && construct) return number;
  }
  return 0;
}

// RecordedScenario is one recorded run of a scenario and its report.
struct RecordedScenario {
  trace::Trace trace;
  visualize::Report report;
};

inline RecordedScenario record_scenario(const Planted& s, bool fixed, const std::string& tag) {
  std::vector<std::string> command = {MOIRAI_OMP_SCENARIOS, "--scenario", s.name, "--scale", s.scale};
  if (fixed) command.emplace_back("--fixed");
  RecordedScenario run{record_openmp(command, std::string(s.name) + (fixed ? "_fixed_" : "_") + tag), {}};
  run.report = visualize::build_report(run.trace);
  return run;
}

// kOtherWork is the share of the run's span other work may take on a recorded thread's CPU in a
// run called quiet: the OS may take nothing from a waiting thread's units and still keep it from
// taking up a critical section a release handed it (its wait then stretches by that; 85 % of the
// span on a machine shared with two builds). The recorder's own writer thread counts as other
// work too: about a quarter of the span for fine_tasks' 300,000 units on a quiet machine.
constexpr double kOtherWork = 0.35;

// busy says whether the report called the machine busy (the OS took much of the threads' time).
inline bool busy(const visualize::Report& report) {
  return std::any_of(report.warnings.begin(), report.warnings.end(), [](const std::string& w) { return w.rfind("machine was busy", 0) == 0; });
}

// quiet says whether a run had the machine to itself: not busy, and other work on no recorded
// thread's CPU above kOtherWork of the run's span.
inline bool quiet(const trace::Trace& trace, const visualize::Report& report) {
  if (busy(report)) return false;
  const double span_ns = static_cast<double>(report.makespan) * 1e9 / trace.clock_hz;
  const visualize::OsLoad load = visualize::os_load(trace);
  return std::none_of(load.cores.begin(), load.cores.end(), [&](const visualize::CoreOsLoad& core) { return core.other_busy_ns > kOtherWork * span_ns; });
}

// planted_hint is the hint of rule `s.rule` at the planted line, above the line or below; null
// where the report gives none.
inline const visualize::Hint* planted_hint(const Planted& s, const visualize::Report& report) {
  const std::string line = ":" + std::to_string(planted_line(s.name));
  for (const auto* list : {&report.hints, &report.minor_hints}) {
    for (const visualize::Hint& h : *list) {
      if (h.rule == s.rule && h.site.ends_with(line) && h.site.find("omp_scenarios.cpp") != std::string::npos) return &h;
    }
  }
  return nullptr;
}

inline double ms(const trace::Trace& trace, double ticks) { return ticks * 1e3 / trace.clock_hz; }

// lost_to is the report's lost time of kind `kind`, in ticks.
inline double lost_to(const visualize::Report& report, const std::string& kind) {
  auto found = report.lost.by_kind.find(kind);
  return found == report.lost.by_kind.end() ? 0 : static_cast<double>(found->second);
}

// own_makespan is a run's makespan less what the OS took from its threads and what recording
// cost them, per thread: what the program took on its own.
inline double own_makespan(const RecordedScenario& run) {
  return static_cast<double>(run.report.makespan) -
         (lost_to(run.report, "taken by the OS") + lost_to(run.report, "recording (the probe)")) /
             std::max<std::uint32_t>(run.trace.core_count, 1);
}

inline std::string hints_text(const visualize::Report& report) {
  std::string text;
  for (const visualize::Hint& h : report.hints) text += "\n  [" + h.rule + "] " + h.message + " (call site " + h.site + ")";
  return text;
}

}  // namespace moirai::test

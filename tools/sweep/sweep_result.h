// The outcome of a sweep's runs: each run's figures from its trace, the median of a value's
// repeats, and the best value.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace moirai::sweep {

// RunFigures are the numbers the sweep compares, from one trace's report.
struct RunFigures {
  std::uint64_t makespan_ticks = 0;
  double makespan_s = 0;
  double clock_hz = 0;
  std::uint32_t cores = 0;
  double work_pct = 0, overhead_pct = 0, idle_pct = 0;  // of makespan x cores; idle is the rest
  std::uint64_t units = 0;
  double mean_unit_us = 0;  // work per unit
  std::string top_hint;     // the report's first hint's rule, "-" when it has none
  std::string top_hint_message;
};

// RunResult is one run: where its files are and either its figures or why it failed.
struct RunResult {
  std::string value;
  unsigned repeat = 1;
  std::string stem, trace_path, log_path;
  bool ok = false;
  std::string failure;  // when not ok: exit status, or what was wrong with the trace
  RunFigures figures;
};

// ValueResult is a value's runs and the one chosen for it (the median makespan).
struct ValueResult {
  std::string value;
  std::vector<RunResult> runs;
  std::optional<std::size_t> chosen;  // index into runs; empty when every run failed
  std::string scg_path;               // the chosen run's SCG, once drawn
  const RunResult* chosen_run() const { return chosen ? &runs[*chosen] : nullptr; }
  std::size_t succeeded() const;
};

// measure_trace reads a trace and reports its figures; throws std::runtime_error saying why
// the trace cannot stand for a run (unreadable, cut short, no units).
RunFigures measure_trace(const std::string& path);

// median_run is the run of median makespan among those that succeeded (the lower median for
// an even count); empty when none did.
std::optional<std::size_t> median_run(const std::vector<RunResult>& runs);

// best_value is the value with the smallest makespan (the first given among equal ones);
// empty when every value failed.
std::optional<std::size_t> best_value(const std::vector<ValueResult>& values);

}  // namespace moirai::sweep

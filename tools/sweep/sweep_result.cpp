#include "sweep_result.h"

#include <algorithm>
#include <stdexcept>

#include "moirai/trace/reader.h"
#include "moirai/visualize/analyses/report.h"

namespace moirai::sweep {

std::size_t ValueResult::succeeded() const {
  return static_cast<std::size_t>(std::count_if(runs.begin(), runs.end(), [](const RunResult& r) { return r.ok; }));
}

RunFigures measure_trace(const std::string& path) {
  trace::Trace trace;
  try {
    trace = trace::read_trace(path);
  } catch (const trace::TraceError& error) {
    throw std::runtime_error(std::string("unreadable trace: ") + error.what());
  }
  if (!trace.complete) throw std::runtime_error("trace cut short: " + trace.cut);
  if (trace.units.empty()) throw std::runtime_error("the trace holds no units");
  const visualize::Report report = visualize::build_report(trace);
  RunFigures f;
  f.makespan_ticks = report.makespan;
  f.clock_hz = trace.clock_hz;
  f.makespan_s = static_cast<double>(report.makespan) / trace.clock_hz;
  f.cores = trace.core_count;
  std::uint64_t work = 0, overhead = 0;
  for (const visualize::CoreTime& core : report.summary.cores) {
    work += core.work;
    overhead += core.overhead();
  }
  const double capacity = static_cast<double>(std::max<std::uint64_t>(report.makespan, 1)) * std::max<std::uint32_t>(f.cores, 1);
  f.work_pct = 100.0 * static_cast<double>(work) / capacity;
  f.overhead_pct = 100.0 * static_cast<double>(overhead) / capacity;
  // Idle is the rest: a core's time before its first record and after its last is not in the
  // trace's idle spans, yet the core did nothing for the run then.
  f.idle_pct = std::max(0.0, 100.0 - f.work_pct - f.overhead_pct);
  f.units = trace.units.size();
  f.mean_unit_us = 1e6 * static_cast<double>(work) / static_cast<double>(f.units) / trace.clock_hz;
  f.top_hint = report.hints.empty() ? "-" : report.hints.front().rule;
  f.top_hint_message = report.hints.empty() ? "" : report.hints.front().message;
  return f;
}

std::optional<std::size_t> median_run(const std::vector<RunResult>& runs) {
  std::vector<std::size_t> ok;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (runs[i].ok) ok.push_back(i);
  }
  if (ok.empty()) return std::nullopt;
  std::stable_sort(ok.begin(), ok.end(), [&](std::size_t a, std::size_t b) {
    return runs[a].figures.makespan_s < runs[b].figures.makespan_s;
  });
  return ok[(ok.size() - 1) / 2];
}

std::optional<std::size_t> best_value(const std::vector<ValueResult>& values) {
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const RunResult* run = values[i].chosen_run();
    if (run == nullptr) continue;
    if (!best || run->figures.makespan_s < values[*best].chosen_run()->figures.makespan_s) best = i;
  }
  return best;
}

}  // namespace moirai::sweep

#include "sweep_command.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <system_error>

#include <nlohmann/json.hpp>

#include "child_process.h"
#include "moirai/trace/number_text.h"
#include "moirai/trace/reader.h"
#include "moirai/visualize/views/core_set.h"
#include "moirai/visualize/views/scg.h"
#include "progress.h"
#include "sweep_plot.h"
#include "sweep_result.h"
#include "sweep_spec.h"
#include "sweep_table.h"

namespace moirai::sweep {

namespace {

using tools::ChildStatus;
using tools::last_lines;
using tools::run_child;
using trace::number_text;

constexpr double kFitPoints = 1600;    // the longest run's SCG height when no --scale is given
constexpr std::size_t kStderrLines = 5;  // of a failed run's stderr, shown

std::string ms(double seconds) { return number_text(seconds * 1e3, "%.3f ms"); }

std::string joined(const std::vector<std::string>& words) {
  std::string text;
  for (const std::string& word : words) text += (text.empty() ? "" : " ") + word;
  return text;
}

RunResult run_once(const SweepSpec& spec, const std::string& value, unsigned repeat, Progress& progress) {
  RunResult run;
  run.value = value;
  run.repeat = repeat;
  run.stem = run_stem(spec, value, repeat);
  const std::filesystem::path dir(spec.out_dir);
  run.trace_path = (dir / (run.stem + ".mtrace")).string();
  run.log_path = (dir / (run.stem + ".log")).string();
  std::error_code ignored;
  // Files of an earlier sweep into this directory must not stand for this run.
  std::filesystem::remove(run.trace_path, ignored);
  std::filesystem::remove(dir / (run.stem + "-scg.svg"), ignored);
  const std::string label =
      spec.name + "=" + value + (spec.repeat > 1 ? " run " + std::to_string(repeat) + "/" + std::to_string(spec.repeat) : "");
  progress.started(label);
  const ChildStatus status = run_child(run_command(spec, value, run.trace_path), (dir / (run.stem + ".out")).string(),
                                       run.log_path, spec.timeout_s);
  if (!status.succeeded()) {
    run.failure = status.describe();
  } else if (!std::filesystem::exists(run.trace_path)) {
    run.failure = "exit 0 but no trace written at " + run.trace_path;
  } else {
    try {
      run.figures = measure_trace(run.trace_path);
      run.ok = true;
    } catch (const std::runtime_error& error) {
      run.failure = "exit 0 but " + std::string(error.what());
    }
  }
  if (run.ok) {
    progress.finished(label, "makespan " + ms(run.figures.makespan_s));
    return run;
  }
  progress.finished(label, "FAILED: " + run.failure);
  std::string note = "sweep: " + label + " failed: " + run.failure + "\n";
  const std::vector<std::string> tail = last_lines(run.log_path, kStderrLines);
  note += tail.empty() ? "  (its stderr, " + run.log_path + ", is empty)\n"
                       : "  last lines of its stderr (" + run.log_path + "):\n";
  for (const std::string& line : tail) note += "    " + line + "\n";
  progress.note(note);
  return run;
}

// draw_scgs draws each value's chosen run at one scale and returns that scale.
double draw_scgs(const SweepSpec& spec, std::vector<ValueResult>& values) {
  double scale = spec.cycles_per_point;
  if (scale <= 0) {
    std::uint64_t longest = 0;
    for (const ValueResult& value : values) {
      if (const RunResult* run = value.chosen_run()) longest = std::max(longest, run->figures.makespan_ticks);
    }
    scale = std::max(1.0, static_cast<double>(longest) / kFitPoints);
  }
  visualize::ScgOptions options;
  options.cycles_per_point = scale;
  for (ValueResult& value : values) {
    const RunResult* run = value.chosen_run();
    if (run == nullptr) continue;
    const std::string scg = (std::filesystem::path(spec.out_dir) / (run->stem + "-scg.svg")).string();
    try {
      const trace::Trace trace = trace::read_trace(run->trace_path);
      visualize::render_scg(visualize::layout_scg(trace, options), trace, "svg", scg);
      value.scg_path = scg;
    } catch (const std::exception& error) {
      std::cerr << "moirai: warning: sweep: no SCG for " << spec.name << "=" << value.value << ": " << error.what() << '\n';
    }
  }
  return scale;
}

// write_plot draws makespan and overhead against the parameter into `svg`; false (said on
// stderr) when it could not be written.
bool write_plot(const SweepSpec& spec, const std::vector<ValueResult>& values, std::size_t best, const std::string& svg) {
  std::vector<PlotPoint> points;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const RunResult* run = values[i].chosen_run();
    points.push_back(PlotPoint{values[i].value, run != nullptr, run ? run->figures.makespan_s * 1e3 : 0,
                               run ? run->figures.overhead_pct : 0, best == i});
  }
  // The plot names the program without its directory, so the command fits under the title.
  std::vector<std::string> shown = spec.command;
  shown.front() = std::filesystem::path(shown.front()).filename().string();
  std::string subtitle = joined(shown) + (spec.repeat > 1 ? "  (median of " + std::to_string(spec.repeat) + " runs)" : "");
  if (subtitle.size() > 110) subtitle = subtitle.substr(0, 107) + "...";
  try {
    plot_sweep(points, spec.name, subtitle, svg);
  } catch (const std::runtime_error& failure) {
    std::cerr << "moirai: error: sweep: " << failure.what() << '\n';
    return false;
  }
  return true;
}

// run_json is one run's figures; NaN and infinity become null (JSON has neither).
nlohmann::json run_json(const RunResult& run) {
  const auto number = [](double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr); };
  nlohmann::json out = {{"repeat", run.repeat}, {"ok", run.ok}, {"trace", run.trace_path}, {"log", run.log_path}};
  if (!run.ok) {
    out["failure"] = run.failure;
    return out;
  }
  const RunFigures& f = run.figures;
  out["makespan_ticks"] = f.makespan_ticks;
  out["makespan_s"] = number(f.makespan_s);
  out["cores"] = f.cores;
  out["work_pct"] = number(f.work_pct);
  out["overhead_pct"] = number(f.overhead_pct);
  out["idle_pct"] = number(f.idle_pct);
  out["units"] = f.units;
  out["mean_unit_us"] = number(f.mean_unit_us);
  out["top_hint"] = f.top_hint;
  return out;
}

// print_json is `sweep --json`: the SCGs, the CSV and the plot as in text mode, and instead of
// the table one JSON object on stdout.
int print_json(const SweepSpec& spec, std::vector<ValueResult>& values, const std::optional<std::size_t>& best) {
  const std::filesystem::path dir(spec.out_dir);
  const double scale = best ? draw_scgs(spec, values) : 0;
  const std::string csv = (dir / "sweep.csv").string();
  try {
    write_csv(csv, spec.name, values);
  } catch (const std::runtime_error& failure) {
    std::cerr << "moirai: error: sweep: " << failure.what() << '\n';
    return 1;
  }
  nlohmann::json out = {{"parameter", spec.name}, {"command", spec.command}, {"repeat", spec.repeat}, {"csv", csv}};
  nlohmann::json list = nlohmann::json::array();
  for (const ValueResult& value : values) {
    nlohmann::json entry = {{"value", value.value}, {"ok", value.chosen_run() != nullptr}};
    if (value.chosen) entry["chosen_run"] = *value.chosen;
    if (!value.scg_path.empty()) entry["scg"] = value.scg_path;
    entry["runs"] = nlohmann::json::array();
    for (const RunResult& run : value.runs) entry["runs"].push_back(run_json(run));
    list.push_back(entry);
  }
  out["values"] = list;
  out["best"] = best ? nlohmann::json(values[*best].value) : nlohmann::json(nullptr);
  if (best) {
    out["scale"] = scale;
    const std::string svg = (dir / "sweep.svg").string();
    if (!write_plot(spec, values, *best, svg)) return 1;
    out["plot"] = svg;
  }
  std::cout << out.dump() << '\n';
  return best ? 0 : 1;
}

}  // namespace

int sweep_command(const std::vector<std::string_view>& args) {
  SweepSpec spec;
  try {
    spec = parse_sweep_spec(args);
  } catch (const UsageError& error) {
    std::cerr << "moirai: error: sweep: " << error.what() << '\n' << kSweepUsage;
    return 2;
  }
  if (spec.help) {
    std::cout << kSweepUsage << kSweepHelp;
    return 0;
  }
  std::error_code error;
  std::filesystem::create_directories(spec.out_dir, error);
  if (error || !std::filesystem::is_directory(spec.out_dir)) {
    std::cerr << "moirai: error: sweep: --out " << spec.out_dir << ": cannot create the directory"
              << (error ? ": " + error.message() : std::string(": a file of that name exists")) << '\n';
    return 2;
  }

  std::filesystem::remove(std::filesystem::path(spec.out_dir) / "sweep.svg", error);
  Progress progress(std::cerr, isatty(STDERR_FILENO) == 1, spec.values.size() * spec.repeat);
  std::vector<ValueResult> values;
  for (const std::string& value : spec.values) {
    ValueResult result;
    result.value = value;
    for (unsigned k = 1; k <= spec.repeat; ++k) result.runs.push_back(run_once(spec, value, k, progress));
    result.chosen = median_run(result.runs);
    values.push_back(std::move(result));
  }
  progress.done();

  const std::optional<std::size_t> best = best_value(values);
  const std::string command = joined(spec.command);
  if (spec.json) return print_json(spec, values, best);
  std::cout << "sweep of " << spec.name << " over " << moirai::visualize::plural_text(values.size(), "value")
            << (spec.repeat > 1 ? ", each the median of " + std::to_string(spec.repeat) + " runs" : std::string()) << ": "
            << command << "\n\n";
  const double scale = best ? draw_scgs(spec, values) : 0;
  print_table(std::cout, spec.name, values);
  const std::string csv = (std::filesystem::path(spec.out_dir) / "sweep.csv").string();
  try {
    write_csv(csv, spec.name, values);
  } catch (const std::runtime_error& failure) {
    std::cerr << "moirai: error: sweep: " << failure.what() << '\n';
    return 1;
  }
  if (!best) {
    std::cout << "\nevery run failed: no best value (table: " << csv << ", logs in " << spec.out_dir << ")\n";
    return 1;
  }

  const std::string svg = (std::filesystem::path(spec.out_dir) / "sweep.svg").string();
  if (!write_plot(spec, values, *best, svg)) return 1;

  const RunResult& winner = *values[*best].chosen_run();
  std::cout << "\nbest: " << spec.name << "=" << values[*best].value << " (makespan " << ms(winner.figures.makespan_s)
            << "; the smallest makespan, the first value given among equal ones)\n";
  for (const ValueResult& value : values) {
    if (value.chosen_run() == nullptr) {
      std::cout << "failed: " << spec.name << "=" << value.value << " (" << value.runs.back().failure << "; stderr in "
                << value.runs.back().log_path << ")\n";
    }
  }
  std::cout << "SCGs: " << spec.out_dir << "/" << spec.name << "-*-scg.svg, all at " << number_text(scale, "%.6g")
            << " ticks per point\ntable: " << csv << "\nplot:  " << svg << '\n';
  return 0;
}

}  // namespace moirai::sweep

#include "fit_command.h"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <string_view>
#include <vector>

#include "fit.h"
#include "moirai/program/app_main.h"
#include "moirai/program/flags.h"
#include "moirai/ssr/cost_model.h"
#include "predict.h"
#include "trace_input.h"

namespace moirai::calibrate {

namespace {

namespace fs = std::filesystem;

// fit_arguments sorts moirai-calibrate's arguments: the words after --fit that are no flags are
// the traces, appended to `traces`; the rest (flags and their values) is returned for Flags.
std::vector<std::string_view> fit_arguments(int argc, char** argv, std::vector<std::string>& traces) {
  std::vector<std::string_view> rest;
  bool in_traces = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--fit") {
      in_traces = true;
      continue;
    }
    if (in_traces && !arg.starts_with("--")) {
      traces.emplace_back(arg);
      continue;
    }
    in_traces = false;
    rest.push_back(arg);
    if ((arg == "--output" || arg == "--rerun-dir" || arg == "--predict" || arg == "--into" || arg == "--step-cost") &&
        i + 1 < argc) {
      rest.push_back(argv[++i]);
    }
  }
  return rest;
}

}  // namespace

void write_model(const std::string& text, const std::string& output) {
  if (output.empty() || output == "-") {
    std::cout << text << std::flush;
    if (!std::cout) throw std::runtime_error("cannot write the model to standard output");
    return;
  }
  std::ofstream out(output);
  out << text;
  out.close();
  if (!out) throw program::FlagError("--output: cannot write " + output);
  std::cerr << "moirai-calibrate: wrote " << output << '\n';
}

int fit_main(int argc, char** argv) {
  FitOptions options;
  options.base = ssr::cost_model();
  std::string output;
  program::Flags flags("moirai-calibrate --fit",
                       "Fits a machine model for --cost-model from traces of real runs of a program that declares\n"
                       "its work (ctx.charge_work): the rate of declared work per call site, how work stretches\n"
                       "with other busy cores, how the cores' speeds spread, and the runtime's costs the traces\n"
                       "show (docs/cost-model.md). Usage: moirai-calibrate --fit TRACE... [--output FILE];\n"
                       "moirai-calibrate --fit TRACE... --predict MODEL [--into DIR] records what MODEL predicts.\n"
                       "Traces older than format 3.1 hold no declared work: with --rerun, each trace's command\n"
                       "line is re-run on the simulated machine (from --rerun-dir) and its units paired with the\n"
                       "real ones by VP and position. A partial trace (a killed run) is left out, said on stderr.");
  flags.text("output", output, "FILE", "write the model here (default: standard output)");
  flags.toggle("rerun", options.rerun,
               "allow running the command line a trace records (old traces' declared work, --predict); each "
               "command is printed before it runs. Without it such a trace is refused, its command shown");
  flags.text("rerun-dir", options.rerun_dir, "DIR", "run old traces' commands from here (default: .)");
  std::string statistic = "mean";
  flags.text("step-cost", statistic, "mean|median",
             "a runtime step's cost from its samples: mean (default; the total a run pays) or median");
  std::string predict_with, into = "predicted";
  flags.text("predict", predict_with, "MODEL",
             "instead of fitting, re-run each trace's command on the simulated machine with this model "
             "and record the prediction into --into");
  flags.text("into", into, "DIR", "with --predict: where the predicted traces go, named as the real ones");
  const std::vector<std::string_view> rest = fit_arguments(argc, argv, options.traces);
  try {
    const program::Flags::Outcome outcome = flags.parse(rest);
    if (outcome != program::Flags::Outcome::run) {
      std::cout << (outcome == program::Flags::Outcome::help ? flags.help() : "moirai-calibrate (Moirai) " + program::version() + "\n")
                << std::flush;
      return std::cout ? 0 : 1;
    }
    if (options.traces.empty()) throw program::FlagError("--fit: name at least one trace of a real run");
    if (statistic != "mean" && statistic != "median") {
      throw program::FlagError("--step-cost: '" + statistic + "' is neither mean nor median");
    }
    options.step_statistic = statistic == "mean" ? FitOptions::Statistic::mean : FitOptions::Statistic::median;
    for (const std::string& path : options.traces) {
      std::error_code ignored;
      if (!output.empty() && fs::equivalent(output, path, ignored)) {
        throw program::FlagError("--output " + output + ": that is the input trace " + path + "; writing it would destroy it");
      }
    }
  } catch (const program::FlagError& error) {
    std::cerr << flags.app() << ": error: " << error.what() << '\n' << flags.usage() << '\n';
    return 2;
  }
  return program::run_app("moirai-calibrate --fit", [&] {
    proto::CostModel model;
    try {
      if (!predict_with.empty()) {
        proto::CostModel::load(predict_with);  // a bad model is named here, not in each child
        predict(predict_with, options.traces, options, into, std::cerr);
        return 0;
      }
      model = fit_model(options, std::cerr);
    } catch (const tools::TraceDoesNotFit&) {
      throw;  // a failed run (exit 1), not bad input
    } catch (const std::runtime_error& error) {
      throw program::FlagError(std::string("--fit: ") + error.what());
    }
    std::string text = "# fitted by moirai-calibrate --fit from";
    for (const std::string& path : options.traces) text += " " + fs::path(path).filename().string();
    write_model(text + "\n" + model.text(), output);
    return 0;
  });
}

}  // namespace moirai::calibrate

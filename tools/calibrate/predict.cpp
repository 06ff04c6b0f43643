#include "predict.h"

#include <filesystem>
#include <stdexcept>

#include "child_process.h"
#include "rerun.h"
#include "trace_input.h"

namespace moirai::calibrate {

void predict(const std::string& model, const std::vector<std::string>& traces, const FitOptions& options,
             const std::string& into, std::ostream& log) {
  namespace fs = std::filesystem;
  fs::create_directories(into);
  for (const std::string& path : traces) {
    const trace::Trace real = tools::read_checked_trace(path, "moirai-calibrate", log);
    if (!real.complete) {
      log << "moirai-calibrate: warning: " << path << ": no prediction for a partial run\n";
      continue;
    }
    const std::string predicted = (fs::path(into) / fs::path(path).filename()).string();
    std::vector<std::string> argv = sim_command(path, real, options.rerun_dir, predicted);
    argv.push_back("--cost-model");
    argv.push_back(model);
    if (!options.rerun) {
      throw std::runtime_error(path + ": --predict runs the command the trace names:\n    " + tools::command_text(argv) +
                               "\n  add --rerun to run it (only for a trace you trust: it runs as you)");
    }
    log << "  running: " << tools::command_text(argv) << '\n';
    run_on_sim(path, argv, predicted);
    log << path << " -> " << predicted << '\n';
  }
}

}  // namespace moirai::calibrate

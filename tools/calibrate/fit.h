// Fitting a machine model from traces of real runs (moirai-calibrate --fit, docs/cost-model.md).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "moirai/proto_runtime/cost_model.h"

namespace moirai::calibrate {

// FitOptions names the real-run traces to fit and how to get declared work for traces that
// predate its recording.
struct FitOptions {
  std::vector<std::string> traces;
  // Where a trace's command line is re-run on the simulated machine to learn each unit's
  // declared work (traces older than format 3.1); relative program paths start here.
  std::string rerun_dir = ".";
  // Whether a trace's recorded command may be run at all (--rerun): a crafted trace can name any
  // command, so it runs only when asked, and is printed first.
  bool rerun = false;
  std::string scratch_dir;       // where the re-runs' traces go (default: a temporary directory)
  proto::CostModel base;         // values the traces cannot show (switch, lock) come from here
  // How a runtime step's samples become its cost: their mean (the default: a run's makespan is
  // the sum of its steps, rare slow ones included) or their median (the typical step).
  enum class Statistic { mean, median } step_statistic = Statistic::mean;
};

// fit_model fits the work model (rate per call site, stretch with busy cores, the cores' speed
// spread) and the runtime's costs the traces show (handlers, communication, assigner, wake-up)
// and returns the model, after writing what it found to `log`. Throws std::runtime_error naming
// the trace and the problem (unreadable, a simulated run, a program that declares no work, a
// re-run whose VPs or units do not pair with the real run's).
proto::CostModel fit_model(const FitOptions& options, std::ostream& log);

}  // namespace moirai::calibrate

// --predict: what a model predicts of real runs, recorded by re-running each run's command on
// the simulated machine with that model (moirai-calibrate --fit TRACE... --predict MODEL).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "fit.h"

namespace moirai::calibrate {

// predict re-runs the command each of `traces` records on the simulated machine with the cost
// model file `model`, recording into `into`/<the trace's name>; a partial trace is skipped,
// said on `log`. Throws std::runtime_error when a command may not run (options.rerun unset) or
// fails.
void predict(const std::string& model, const std::vector<std::string>& traces, const FitOptions& options,
             const std::string& into, std::ostream& log);

}  // namespace moirai::calibrate

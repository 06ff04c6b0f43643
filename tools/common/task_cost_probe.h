// Running moirai-omp-task-cost, the probe of LLVM's libomp's work per task, for `moirai record`
// (at its start, when no cost model gives the figures) and moirai-calibrate (into a cost model).
#pragma once

#include <string>

#include "task_cost.h"

namespace moirai::tools {

// ProbedTaskCost is what one run of the probe gave.
struct ProbedTaskCost {
  ompt::TaskCost cost;
  std::string how;     // its own account: how long measuring and libomp's start took
  double seconds = 0;  // the probe's whole run, its process's start and end included
};

// probe_task_cost runs moirai-omp-task-cost (beside this program, as installed, else the build
// tree's) and reads its figures. Throws std::runtime_error saying why there are none: the probe
// is not there (libomp was not found when Moirai was built), or it failed or printed no figures.
ProbedTaskCost probe_task_cost();

}  // namespace moirai::tools

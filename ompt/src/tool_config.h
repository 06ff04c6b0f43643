// What the OMPT tool records, read from the environment `moirai record` (or the user) sets:
// the tool has no command line of its own.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "task_cost.h"

namespace moirai::ompt {

// ToolConfig is one run's recording settings.
struct ToolConfig {
  std::string trace_path;             // MOIRAI_OMPT_TRACE, else moirai-<pid>.mtrace
  std::vector<std::string> counters;  // MOIRAI_OMPT_COUNTERS, comma-separated
  std::string command_line;           // MOIRAI_OMPT_COMMAND, else /proc/self/cmdline
  std::size_t cores = 1;              // OpenMP threads recorded: OMP_NUM_THREADS's first level, else the PUs allowed
  bool quiet = false;                 // MOIRAI_OMPT_QUIET=1: no summary line on stderr
  bool declined = false;              // MOIRAI_OMPT_TRACE set and empty: a process a recorded program started
  std::vector<std::pair<std::string, std::string>> metadata;  // the trace header's OpenMP keys
  // MOIRAI_OMPT_TASK_COST: libomp's work per task, booked out of the units as estimated runtime
  // work; none: the units keep it (MOIRAI_OMPT_TASK_COST_SOURCE says where it came from).
  std::optional<TaskCost> task_cost;
};

// tool_config reads the environment; `problem` says what was wrong when it returns no usable config.
ToolConfig tool_config(std::string& problem);

}  // namespace moirai::ompt

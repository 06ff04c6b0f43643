// What LLVM's libomp spends on one task on this machine, as moirai-omp-task-cost measures it, and
// its text: the value of MOIRAI_OMPT_TASK_COST, which `moirai record` hands to the OpenMP tool
// and the probe prints (docs/openmp.md, "libomp's own work, estimated").
#pragma once

#include <string>
#include <string_view>

namespace moirai::ompt {

// TaskCost is libomp's work per empty task, in nanoseconds, measured with no tool loaded.
struct TaskCost {
  double create = 0;      // creating a deferred task: allocating and queueing it
  double create_dep = 0;  // the same for a task with one depend clause (its dependence matched)
  double end = 0;         // running a queued empty task: taking it, starting and completing it
  double end_dep = 0;     // the same for a task with one depend clause (its dependences released)
};

// task_cost_text is `task_create=N,task_create_dep=N,task_end=N,task_end_dep=N` (ns, one decimal).
std::string task_cost_text(const TaskCost& cost);

// parse_task_cost reads that text (every key once, in any order; numbers 0 to 1e6 ns). Throws
// std::invalid_argument naming the key or the text that is wrong.
TaskCost parse_task_cost(std::string_view text);

}  // namespace moirai::ompt

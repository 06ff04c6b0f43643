#include "tool_config.h"

#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <utility>

#include "moirai/instrument/counters.h"

namespace moirai::ompt {

namespace {

std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::string part;
  for (char c : text) {
    if (c == separator) {
      if (!part.empty()) parts.push_back(part);
      part.clear();
    } else if (c != ' ') {
      part += c;
    }
  }
  if (!part.empty()) parts.push_back(part);
  return parts;
}

std::string own_command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  while (!text.empty() && text.back() == '\0') text.pop_back();
  for (char& c : text) c = c == '\0' ? ' ' : c;
  return text;
}

// What OMPT does not show, said in every OpenMP trace (docs/openmp.md has the details).
constexpr const char* kLimits =
    "undeferred, included and merged tasks run inside their creator's unit when the runtime reports no "
    "switch; an untied task that moves to another thread is seen as a new unit there; a barrier is "
    "charged to the last arrival or the last task completed before it ends; the runtime's work after a "
    "callback returns (queueing a task, matching its dependences, completing it) is in the unit that "
    "continues, less the estimate of it booked as the runtime's (omp_task_cost), which is a measured "
    "typical cost, not this run's; the runtime's start at the first parallel region is in the initial "
    "task's first unit";

}  // namespace

ToolConfig tool_config(std::string& problem) {
  ToolConfig config;
  const char* trace = std::getenv("MOIRAI_OMPT_TRACE");
  if (trace != nullptr && *trace == '\0') {
    config.declined = true;  // a process the recorded program started: the trace is its parent's
    return config;
  }
  config.trace_path = trace != nullptr ? trace : "moirai-" + std::to_string(::getpid()) + ".mtrace";
  // A script run under `moirai record` may start several OpenMP programs, each inheriting the
  // variables: the first one records, the later ones leave its trace alone (`moirai record` says
  // so with MOIRAI_OMPT_FIRST_PROGRAM=1; a user who sets the path himself may overwrite it).
  struct stat file {};
  if (trace != nullptr && env("MOIRAI_OMPT_FIRST_PROGRAM") == "1" && ::stat(trace, &file) == 0 && file.st_size > 0) {
    problem = std::string(trace) + " already holds the trace of an earlier OpenMP program of this run (only the first one is recorded)";
    return config;
  }
  // The programs this one starts inherit OMP_TOOL_LIBRARIES: they must not write this trace too.
  ::setenv("MOIRAI_OMPT_TRACE", "", 1);
  for (std::string& counter : split(env("MOIRAI_OMPT_COUNTERS"), ',')) {
    if (counter != "none") config.counters.push_back(std::move(counter));
  }
  for (const std::string& counter : config.counters) {
    const std::string unknown = instrument::unknown_counter(counter);
    if (!unknown.empty()) {
      problem = "MOIRAI_OMPT_COUNTERS: " + unknown;
      return config;
    }
  }
  config.command_line = env("MOIRAI_OMPT_COMMAND");
  if (config.command_line.empty()) config.command_line = own_command_line();
  config.quiet = env("MOIRAI_OMPT_QUIET") == "1";
  const std::vector<std::string> levels = split(env("OMP_NUM_THREADS"), ',');
  char* end = nullptr;
  const long requested = levels.empty() ? 0 : std::strtol(levels.front().c_str(), &end, 10);
  if (requested > 0 && end != nullptr && *end == '\0') {
    config.cores = static_cast<std::size_t>(requested);
  } else {
    cpu_set_t set;
    CPU_ZERO(&set);
    config.cores = sched_getaffinity(0, sizeof set, &set) == 0 ? static_cast<std::size_t>(CPU_COUNT(&set)) : 1;
  }
  if (config.cores == 0) config.cores = 1;
  for (const char* key : {"OMP_NUM_THREADS", "OMP_PROC_BIND", "OMP_PLACES", "OMP_SCHEDULE", "OMP_WAIT_POLICY"}) {
    const std::string value = env(key);
    std::string name = key;
    for (char& c : name) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    config.metadata.emplace_back(name, value.empty() ? "unset" : value);
  }
  config.metadata.emplace_back("ompt_limits", kLimits);
  // libomp's own work per task, measured apart (moirai-omp-task-cost): what the tool books out of
  // the units that did it, marked as estimated. The trace says what it was and where it came from.
  const std::string cost = env("MOIRAI_OMPT_TASK_COST");
  if (!cost.empty()) {
    try {
      config.task_cost = parse_task_cost(cost);
    } catch (const std::invalid_argument& bad) {
      problem = std::string("MOIRAI_OMPT_TASK_COST: ") + bad.what();
      return config;
    }
  }
  const std::string source = env("MOIRAI_OMPT_TASK_COST_SOURCE");
  config.metadata.emplace_back("omp_task_cost", config.task_cost ? task_cost_text(*config.task_cost) + " ns" : "none");
  config.metadata.emplace_back("omp_task_cost_source",
                               !config.task_cost ? "none: MOIRAI_OMPT_TASK_COST not set, the units keep libomp's work"
                               : source.empty()  ? "MOIRAI_OMPT_TASK_COST"
                                                 : source);
  return config;
}

}  // namespace moirai::ompt

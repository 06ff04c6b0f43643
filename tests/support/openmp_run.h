// Recording an OpenMP program (built with clang -fopenmp) through the OMPT tool, as `moirai
// record` does, for the tests that read what the tool recorded.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "child_process.h"
#include "moirai/trace/reader.h"
#include "support/sanitizers.h"
#include "task_cost.h"
#include "task_cost_probe.h"

namespace moirai::test {

// record_openmp runs `command` on `threads` OpenMP threads with libmoirai_ompt.so loaded and
// returns the trace it wrote; `name` names the temporary files, `environment` adds NAME=VALUE pairs. A run that fails is a test failure
// (with its last lines of stderr), never an empty trace read as one. As `moirai record` does, it
// measures libomp's work per task first (moirai-omp-task-cost) and gives it to the tool, unless
// `environment` gives MOIRAI_OMPT_TASK_COST.
inline trace::Trace record_openmp(const std::vector<std::string>& command, const std::string& name, int threads = 2,
                                  std::vector<std::string> environment = {}) {
  const bool cost_given = std::any_of(environment.begin(), environment.end(),
                                      [](const std::string& pair) { return pair.starts_with("MOIRAI_OMPT_TASK_COST="); });
  if (!cost_given) {
    try {
      environment.push_back("MOIRAI_OMPT_TASK_COST=" + ompt::task_cost_text(tools::probe_task_cost().cost));
    } catch (const std::runtime_error& error) {
      ADD_FAILURE() << name << ": " << error.what();
    }
  }
  const std::string base = ::testing::TempDir() + "moirai_omp_" + name + "_" + std::to_string(::getpid());
  const std::string path = base + ".mtrace";
  std::vector<std::string> argv = {"/usr/bin/env",
                                   std::string("OMP_TOOL_LIBRARIES=") + MOIRAI_OMPT_LIBRARY,
                                   "MOIRAI_OMPT_TRACE=" + path,
                                   "MOIRAI_OMPT_QUIET=1",
                                   "OMP_NUM_THREADS=" + std::to_string(threads)};
  argv.insert(argv.end(), environment.begin(), environment.end());  // NAME=VALUE, for env
#if defined(MOIRAI_TEST_ASAN)
  // A sanitized OpenMP program with the tool loaded keeps ASan and UBSan, not LeakSanitizer: its
  // exit-time scan crashes in its own tracer ("Tracer caught signal 11") once libomp's worker
  // threads and the tool's are up, before libomp ends the tool (docs/openmp.md).
  const char* asan = std::getenv("ASAN_OPTIONS");
  argv.push_back(std::string("ASAN_OPTIONS=") + (asan != nullptr && *asan != '\0' ? std::string(asan) + ":" : "") + "detect_leaks=0");
#endif
  argv.insert(argv.end(), command.begin(), command.end());
  const tools::ChildStatus status = tools::run_child(argv, base + ".out", base + ".err", 600);
  std::string told;
  for (const std::string& line : tools::last_lines(base + ".err", 10)) told += "\n  " + line;
  std::remove((base + ".out").c_str());
  std::remove((base + ".err").c_str());
  EXPECT_TRUE(status.succeeded()) << name << ": " << status.describe() << told;
  trace::Trace trace = trace::read_trace(path);
  std::remove(path.c_str());
  return trace;
}

}  // namespace moirai::test

// moirai-omp-task-cost: what LLVM's libomp spends on one task on this machine, with no tool
// loaded, for the OpenMP tool to book as the runtime's estimated work (docs/openmp.md, "libomp's
// own work, estimated"). `moirai record` runs it at start; `moirai-calibrate` stores its figures
// in a cost model.
//
// One thread of a team of two creates batches of empty tasks (64 each, fewer than libomp's task
// deque holds, so every task is queued rather than run at once), then runs them in a taskwait;
// the other thread sleeps on a futex, outside OpenMP, so it steals nothing. Per task: the
// creation loop's time (allocating and queueing) and the taskwait's (taking, starting and
// completing an empty task), without and with one depend clause on a slot of its own; the median
// over 9 batches after one to warm up. libomp's yield after each task a taskwait runs (a system
// call, outside any unit of a recorded run) is turned off (KMP_USE_YIELD=0), and so is thread
// binding (kSettings); an OMPT tool named in the environment is kept out by a re-run.
//
// Prints the figures as MOIRAI_OMPT_TASK_COST takes them, then a line saying how long it took.
// Exit status: 0 measured; 1 it could not measure (no team of two, no re-run); 2 bad arguments.
#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

constexpr int kTasks = 64;     // per batch: below libomp's first task deque (256), so each is queued
constexpr int kBatches = 9;    // measured, after one to warm up
constexpr const char* kReRun = "MOIRAI_OMP_TASK_COST_RERUN";

// The settings the measurement needs, made before libomp's first parallel region: no yield
// between tasks, and no thread binding, whose set-up is most of libomp's start (0.7 to 4 ms
// here, against 0.1 to 0.2 ms without) and which an empty task's cost does not depend on.
constexpr const char* kSettings[] = {"KMP_USE_YIELD=0", "KMP_AFFINITY=disabled"};

double ns_between(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double, std::nano>(b - a).count(); }

double median(std::vector<double> values) {
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2), values.end());
  return values[values.size() / 2];
}

struct Samples {
  std::vector<double> create, end, create_dep, end_dep;  // ns per task, one per batch
};

int slots[kTasks];  // one depend slot per task of a batch

// batch creates kTasks empty tasks and waits for them, adding ns per task to `create` and `end`.
template <bool kDepend>
void batch(std::vector<double>* create, std::vector<double>* end) {
  const Clock::time_point begin = Clock::now();
  for (int i = 0; i < kTasks; ++i) {
    if constexpr (kDepend) {
#pragma omp task default(none) depend(inout : slots[i])
      {
      }
    } else {
#pragma omp task default(none)
      {
      }
    }
  }
  const Clock::time_point created = Clock::now();
#pragma omp taskwait
  const Clock::time_point done = Clock::now();
  if (create != nullptr) create->push_back(ns_between(begin, created) / kTasks);
  if (end != nullptr) end->push_back(ns_between(created, done) / kTasks);
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      std::printf(
          "usage: moirai-omp-task-cost\n\n"
          "Measures what LLVM's libomp spends on one empty task on this machine, with no OMPT tool\n"
          "loaded, and prints it as MOIRAI_OMPT_TASK_COST takes it (ns per task):\n"
          "  task_create=N,task_create_dep=N,task_end=N,task_end_dep=N\n"
          "then a line saying how long the measurement and libomp's start took. `moirai record` runs\n"
          "it when no --cost-model gives the figures; moirai-calibrate stores them as omp.* lines.\n\n"
          "Exit status: 0 measured; 1 it could not measure; 2 bad arguments.\n");
      return 0;
    }
    std::fprintf(stderr, "moirai-omp-task-cost: error: unexpected argument '%s' (it takes none; see --help)\n", arg.c_str());
    return 2;
  }
  // libomp loads a tool named by OMP_TOOL_LIBRARIES before main: the probe measures libomp
  // alone, so it runs itself again, once, with tools disabled.
  const char* tools = std::getenv("OMP_TOOL_LIBRARIES");
  const char* tool_switch = std::getenv("OMP_TOOL");
  if (tools != nullptr && *tools != '\0' && (tool_switch == nullptr || std::strcmp(tool_switch, "disabled") != 0)) {
    if (std::getenv(kReRun) != nullptr) {
      std::fprintf(stderr, "moirai-omp-task-cost: error: OMP_TOOL=disabled did not hold after a re-run\n");
      return 1;
    }
    ::setenv("OMP_TOOL", "disabled", 1);
    ::setenv(kReRun, "1", 1);
    ::execv("/proc/self/exe", argv);
    std::fprintf(stderr, "moirai-omp-task-cost: error: cannot run itself again (/proc/self/exe): %s\n", std::strerror(errno));
    return 1;
  }
  for (const char* setting : kSettings) kmp_set_defaults(setting);
  omp_set_dynamic(0);

  Samples samples;
  std::atomic<int> done{0};
  int team = 0;
  double start_ns = 0, measure_ns = 0;
  const Clock::time_point before = Clock::now();
#pragma omp parallel num_threads(2) default(none) shared(samples, done, team, start_ns, measure_ns, before)
  {
    if (omp_get_thread_num() == 0) {
      const Clock::time_point begin = Clock::now();
      team = omp_get_num_threads();
      start_ns = ns_between(before, begin);
      if (team == 2) {
        batch<false>(nullptr, nullptr);
        batch<true>(nullptr, nullptr);
        for (int b = 0; b < kBatches; ++b) {
          batch<false>(&samples.create, &samples.end);
          batch<true>(&samples.create_dep, &samples.end_dep);
        }
      }
      measure_ns = ns_between(begin, Clock::now());
      done.store(1, std::memory_order_release);
      done.notify_all();
    } else {
      done.wait(0, std::memory_order_acquire);  // outside OpenMP: this thread steals no task
    }
  }
  if (team != 2) {
    std::fprintf(stderr,
                 "moirai-omp-task-cost: error: libomp gave a team of %d threads, not 2 (OMP_THREAD_LIMIT?): its tasks would run at "
                 "once, not queued\n",
                 team);
    return 1;
  }
  std::printf("task_create=%.1f,task_create_dep=%.1f,task_end=%.1f,task_end_dep=%.1f\n", median(samples.create),
              median(samples.create_dep), median(samples.end), median(samples.end_dep));
  std::printf("measured in %.3f ms after libomp's start of %.3f ms (medians of %d batches of %d empty tasks)\n", measure_ns / 1e6,
              start_ns / 1e6, kBatches, kTasks);
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    std::fprintf(stderr, "moirai-omp-task-cost: error: cannot write its output: %s\n", std::strerror(errno));
    return 1;
  }
  // libomp's shutdown (its worker woken and joined) takes longer here than the measurement, and
  // nothing is left to tidy: the figures are written.
  std::_Exit(0);
}

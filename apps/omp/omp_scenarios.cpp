// omp_scenarios: OpenMP programs that each plant one known pathology of lost time, each (but the
// clean one) with a fixed variant that does the same work with the cause removed.
//
// The work is deterministic arithmetic (grind: rounds of xorshift64*, no sleeps), so a variant's
// result is the same number however its threads were scheduled, planted and fixed alike, and
// --check recomputes it without OpenMP. The sizes below make each run last 0.2 to 0.5 s on two
// threads of a 2020s x86 core (OMP_NUM_THREADS=2); --scale multiplies the number of units.
// The line that plants each cause carries a "planted:" comment.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "omp_cli.h"

namespace {

// About this many grind rounds take a microsecond (2.5 ns a round, one dependent chain).
constexpr std::uint64_t kRoundsPerMicrosecond = 400;

// grind is a unit of deterministic work: `microseconds` worth of rounds from `seed`.
[[gnu::noinline]] std::uint64_t grind(std::uint64_t seed, std::uint64_t microseconds) {
  std::uint64_t x = seed * 0x9E3779B97F4A7C15ULL + 1;
  for (std::uint64_t round = microseconds * kRoundsPerMicrosecond; round > 0; --round) {
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    x *= 0x2545F4914F6CDD1DULL;
  }
  return x;
}

// add_result folds a unit's result into the run's: a sum modulo 2^64, the same in any order.
inline void add_result(std::uint64_t& total, std::uint64_t value) {
#pragma omp atomic
  total += value;
}

// sum_of is the result of units 0 .. units-1 one after the other: what --check compares with.
template <typename Unit>
std::uint64_t sum_of(std::uint64_t units, Unit unit) {
  std::uint64_t total = 0;
  for (std::uint64_t i = 0; i < units; ++i) total += unit(i);
  return total;
}

// --- producer: one thread prepares every task's input, serially, between its creations -------
constexpr std::uint64_t kProducerTasks = 200;
constexpr std::uint64_t kProducerPrepare = 1600;  // us: twice a task's work
constexpr std::uint64_t kProducerWork = 800;      // us

std::uint64_t producer(std::uint64_t tasks, bool fixed) {
  std::uint64_t total = 0;
  if (!fixed) {
#pragma omp parallel default(none) shared(total, tasks)
#pragma omp single  // planted: one thread prepares and creates every task; the others starve
    for (std::uint64_t i = 0; i < tasks; ++i) {
      const std::uint64_t input = grind(i, kProducerPrepare);  // planted: serial work between creations
#pragma omp task default(none) firstprivate(input) shared(total)
      add_result(total, grind(input, kProducerWork));
    }
  } else {
#pragma omp parallel default(none) shared(total, tasks)
#pragma omp for schedule(static)  // fixed: every thread prepares and creates its share
    for (std::uint64_t i = 0; i < tasks; ++i) {
      const std::uint64_t input = grind(i, kProducerPrepare);
#pragma omp task default(none) firstprivate(input) shared(total)
      add_result(total, grind(input, kProducerWork));
    }
  }
  return total;
}

std::uint64_t producer_sequential(std::uint64_t tasks) {
  return sum_of(tasks, [](std::uint64_t i) { return grind(grind(i, kProducerPrepare), kProducerWork); });
}

// --- critical: a critical section holding most of each iteration's work -----------------------
constexpr std::uint64_t kCriticalIterations = 1400;
constexpr std::uint64_t kCriticalOutside = 60;  // us
constexpr std::uint64_t kCriticalInside = 240;  // us

std::uint64_t critical(std::uint64_t iterations, bool fixed) {
  std::uint64_t total = 0;
  if (!fixed) {
#pragma omp parallel for default(none) shared(total, iterations) schedule(static)
    for (std::uint64_t i = 0; i < iterations; ++i) {
      const std::uint64_t input = grind(i, kCriticalOutside);
#pragma omp critical  // planted: the iteration's work is done inside the critical section
      total += grind(input, kCriticalInside);
    }
  } else {
#pragma omp parallel for default(none) shared(total, iterations) schedule(static)
    for (std::uint64_t i = 0; i < iterations; ++i) {
      const std::uint64_t input = grind(i, kCriticalOutside);
      const std::uint64_t value = grind(input, kCriticalInside);  // fixed: the work outside
#pragma omp critical
      total += value;
    }
  }
  return total;
}

std::uint64_t critical_sequential(std::uint64_t iterations) {
  return sum_of(iterations, [](std::uint64_t i) { return grind(grind(i, kCriticalOutside), kCriticalInside); });
}

// --- static_tail: a triangular loop cut into equal halves of iterations -----------------------
constexpr std::uint64_t kTailRows = 64;
constexpr std::uint64_t kTailRowUnit = 200;  // us: row r costs (r + 1) of these

std::uint64_t static_tail(std::uint64_t rows, bool fixed) {
  std::uint64_t total = 0;
  if (!fixed) {
#pragma omp parallel for default(none) shared(total, rows) schedule(static)  // planted: the last thread gets the longest rows
    for (std::uint64_t r = 0; r < rows; ++r) add_result(total, grind(r, (r + 1) * kTailRowUnit));
  } else {
#pragma omp parallel for default(none) shared(total, rows) schedule(dynamic, 1)  // fixed: rows handed out one at a time
    for (std::uint64_t r = 0; r < rows; ++r) add_result(total, grind(r, (r + 1) * kTailRowUnit));
  }
  return total;
}

std::uint64_t static_tail_sequential(std::uint64_t rows) {
  return sum_of(rows, [](std::uint64_t r) { return grind(r, (r + 1) * kTailRowUnit); });
}

// --- fine_tasks: a task per microsecond of work ----------------------------------------------
constexpr std::uint64_t kFinePieces = 400'000;
constexpr std::uint64_t kFinePiece = 1;      // us: one piece of work
constexpr std::uint64_t kCoarseGroup = 1000;  // pieces per task in the fixed variant

std::uint64_t fine_tasks(std::uint64_t pieces, bool fixed) {
  std::uint64_t total = 0;
  if (!fixed) {
#pragma omp parallel default(none) shared(total, pieces)
#pragma omp single
    for (std::uint64_t i = 0; i < pieces; ++i) {
#pragma omp task default(none) firstprivate(i) shared(total)  // planted: a task per 1 us piece
      add_result(total, grind(i, kFinePiece));
    }
  } else {
#pragma omp parallel default(none) shared(total, pieces)
#pragma omp single
    for (std::uint64_t first = 0; first < pieces; first += kCoarseGroup) {
#pragma omp task default(none) firstprivate(first) shared(total, pieces)  // fixed: a task per 1000 pieces
      {
        std::uint64_t sum = 0;
        for (std::uint64_t i = first; i < std::min(first + kCoarseGroup, pieces); ++i) sum += grind(i, kFinePiece);
        add_result(total, sum);
      }
    }
  }
  return total;
}

std::uint64_t fine_tasks_sequential(std::uint64_t pieces) {
  return sum_of(pieces, [](std::uint64_t i) { return grind(i, kFinePiece); });
}

// --- clean: equal coarse tasks, as many for each thread ----------------------------------------
constexpr std::uint64_t kCleanTasks = 200;  // a multiple of 1, 2, 4 and 8 threads
constexpr std::uint64_t kCleanWork = 2000;  // us

std::uint64_t clean(std::uint64_t tasks, bool /*fixed*/) {
  std::uint64_t total = 0;
#pragma omp parallel default(none) shared(total, tasks)
#pragma omp single
  for (std::uint64_t i = 0; i < tasks; ++i) {
#pragma omp task default(none) firstprivate(i) shared(total)
    add_result(total, grind(i, kCleanWork));
  }
  return total;
}

std::uint64_t clean_sequential(std::uint64_t tasks) {
  return sum_of(tasks, [](std::uint64_t i) { return grind(i, kCleanWork); });
}

// Scenario is one planted pathology: its name, what it plants, its size and its runs.
struct Scenario {
  const char* name;
  const char* plants;
  std::uint64_t units;  // tasks, iterations, rows or pieces at --scale 1
  std::uint64_t step;   // the unit count stays a multiple of this
  bool has_fix;
  std::uint64_t (*run)(std::uint64_t units, bool fixed);
  std::uint64_t (*sequential)(std::uint64_t units);
};

const std::vector<Scenario>& scenarios() {
  static const std::vector<Scenario> all = {
      {"producer", "one thread prepares (1.6 ms) and creates every task (0.8 ms): the others starve; fixed: "
                   "each thread prepares and creates its share",
       kProducerTasks, 1, true, producer, producer_sequential},
      {"critical", "a critical section holds 80% of each iteration's work: the threads take turns; fixed: "
                   "only the sum inside",
       kCriticalIterations, 1, true, critical, critical_sequential},
      {"static_tail", "schedule(static) over a triangular loop: the last thread gets 3/4 of the work, the "
                      "others wait at the barrier; fixed: schedule(dynamic,1)",
       kTailRows, 2, true, static_tail, static_tail_sequential},
      {"fine_tasks", "a task per 1 us of work: the runtime's overhead per task dominates; fixed: a task per "
                     "1000 pieces",
       kFinePieces, kCoarseGroup, true, fine_tasks, fine_tasks_sequential},
      {"clean", "equal 2 ms tasks, as many for each thread: nothing to fix", kCleanTasks, 8, false, clean,
       clean_sequential},
  };
  return all;
}

}  // namespace

int main(int argc, char** argv) {
  std::string name;
  bool fixed = false;
  bool check = false;
  bool list = false;
  double scale = 1.0;

  std::vector<std::string> names;
  for (const Scenario& scenario : scenarios()) names.emplace_back(scenario.name);
  CLI::App cli(
      "Runs one OpenMP program that plants a known pathology of lost time, or its fixed variant (the\n"
      "same work with the cause removed). Threads: OMP_NUM_THREADS (sized for 2).",
      "omp_scenarios");
  cli.add_option("--scenario", name, "which program to run (--list shows them)")->check(CLI::IsMember(names));
  cli.add_flag("--fixed", fixed, "run the fixed variant (not for clean)");
  cli.add_flag("--check", check, "recompute the result without OpenMP and compare");
  cli.add_flag("--list", list, "list the scenarios and what each plants");
  cli.add_option("--scale", scale,
                 "multiplies the number of tasks, iterations or rows (static_tail's work grows as the\n"
                 "square of its rows)")
      ->check(omp_apps::between(0.01, 10.0))
      ->capture_default_str();
  cli.footer(omp_apps::kExitStatus);
  omp_apps::parse_or_exit(cli, argc, argv);

  if (list) {
    for (const Scenario& scenario : scenarios()) std::printf("%-12s %s\n", scenario.name, scenario.plants);
    return omp_apps::finish(cli, 0);
  }
  if (name.empty()) omp_apps::refuse(cli, "--scenario: name one of producer, critical, static_tail, fine_tasks, clean");
  const Scenario& scenario = *std::find_if(scenarios().begin(), scenarios().end(),
                                           [&](const Scenario& s) { return name == s.name; });
  if (fixed && !scenario.has_fix) omp_apps::refuse(cli, "--fixed: the scenario " + name + " has nothing to fix");
  const auto steps = static_cast<std::uint64_t>(
      std::llround(static_cast<double>(scenario.units) * scale / static_cast<double>(scenario.step)));
  const std::uint64_t units = std::max<std::uint64_t>(steps, 1) * scenario.step;

  const double start = omp_get_wtime();
  const std::uint64_t result = scenario.run(units, fixed);
  const double seconds = omp_get_wtime() - start;
  std::printf("%s (%s): result %016llx from %llu units in %.3f s on %d threads\n", scenario.name,
              fixed ? "fixed" : scenario.has_fix ? "planted" : "nothing planted", static_cast<unsigned long long>(result),
              static_cast<unsigned long long>(units), seconds, omp_get_max_threads());
  if (!check) return omp_apps::finish(cli, 0);
  const std::uint64_t expected = scenario.sequential(units);
  if (result != expected) {
    std::printf("check: FAILED (without OpenMP: %016llx)\n", static_cast<unsigned long long>(expected));
    return omp_apps::finish(cli, 1);
  }
  std::printf("check: ok\n");
  return omp_apps::finish(cli, 0);
}

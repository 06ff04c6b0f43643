// omp_fib: the n-th Fibonacci number by recursive OpenMP tasks.
//
// fib(n) creates a task for fib(n-1) and one for fib(n-2) and waits for both (taskwait); at or
// below the cutoff it recurses without tasks. One thread starts the recursion (parallel + single),
// the team runs the tasks. --check compares with an iterative loop.
#include <omp.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "omp_cli.h"

namespace {

// fib(45) takes about 2^31 calls without tasks: seconds, not hours.
constexpr int kMaxN = 45;
// Past a million tasks, as Moirai's own apps refuse.
constexpr std::uint64_t kMaxTasks = 1'000'000;

std::uint64_t fib_serial(int n) { return n < 2 ? static_cast<std::uint64_t>(n) : fib_serial(n - 1) + fib_serial(n - 2); }

std::uint64_t fib(int n, int cutoff) {
  if (n < 2 || n <= cutoff) return fib_serial(n);
  std::uint64_t x = 0;
  std::uint64_t y = 0;
#pragma omp task default(none) shared(x) firstprivate(n, cutoff)
  x = fib(n - 1, cutoff);
#pragma omp task default(none) shared(y) firstprivate(n, cutoff)
  y = fib(n - 2, cutoff);
#pragma omp taskwait
  return x + y;
}

// task_count is how many tasks fib(n, cutoff) creates: two per call above the cutoff.
std::uint64_t task_count(int n, int cutoff) {
  std::uint64_t below = 0;  // tasks of fib(m - 2)
  std::uint64_t here = 0;   // tasks of fib(m - 1)
  for (int m = 0; m <= n; ++m) {
    const std::uint64_t tasks = (m < 2 || m <= cutoff) ? 0 : 2 + here + below;
    below = here;
    here = tasks;
  }
  return here;
}

std::uint64_t fib_iterative(int n) {
  std::uint64_t previous = 0;
  std::uint64_t current = 0;
  std::uint64_t next = 1;
  for (int i = 0; i < n; ++i) {
    previous = current;
    current = next;
    next = previous + current;
  }
  return current;
}

}  // namespace

int main(int argc, char** argv) {
  int n = 20;
  int cutoff = 10;
  bool check = false;

  CLI::App cli(
      "Computes the n-th Fibonacci number by recursive OpenMP tasks (task + taskwait), without tasks\n"
      "at or below the cutoff. Threads: OMP_NUM_THREADS.",
      "omp_fib");
  cli.add_option("--n", n, "which Fibonacci number")->check(omp_apps::whole(0, kMaxN))->capture_default_str();
  cli.add_option("--cutoff", cutoff, "fib(m) for m at or below this recurses without tasks")
      ->check(omp_apps::whole(0, kMaxN))
      ->capture_default_str();
  cli.add_flag("--check", check, "compare with an iterative loop");
  cli.footer(omp_apps::kExitStatus);
  omp_apps::parse_or_exit(cli, argc, argv);
  const std::uint64_t tasks = task_count(n, cutoff);
  if (tasks > kMaxTasks) {
    omp_apps::refuse(cli, "--n " + std::to_string(n) + " --cutoff " + std::to_string(cutoff) + ": " +
                              std::to_string(tasks) + " tasks, more than " + std::to_string(kMaxTasks) +
                              " (raise --cutoff)");
  }

  std::uint64_t result = 0;
  const double start = omp_get_wtime();
#pragma omp parallel default(none) shared(result, n, cutoff)
#pragma omp single
  result = fib(n, cutoff);
  const double seconds = omp_get_wtime() - start;

  std::printf("fib(%d) = %llu\n", n, static_cast<unsigned long long>(result));
  std::printf("tasks: %llu (cutoff %d)\nthreads: %d\ntime: %.4f s\n", static_cast<unsigned long long>(tasks), cutoff,
              omp_get_max_threads(), seconds);
  if (!check) {
    std::printf("check: not requested (use --check)\n");
    return omp_apps::finish(cli, 0);
  }
  const std::uint64_t expected = fib_iterative(n);
  if (result != expected) {
    std::printf("check: FAILED (the iterative loop gives %llu)\n", static_cast<unsigned long long>(expected));
    return omp_apps::finish(cli, 1);
  }
  std::printf("check: ok (the iterative loop agrees)\n");
  return omp_apps::finish(cli, 0);
}

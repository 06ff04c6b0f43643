// omp_cases: small OpenMP programs (clang++-16 -fopenmp) whose OMPT event order once
// misled the tool, one per case, for the tests that read what the tool recorded
// (ompt_task_graph_test.cpp). Each runs in one single region on the team of OMP_NUM_THREADS:
//   taskgroup  a taskgroup opened, 4 tasks created in it, then its end: libomp reports the
//              taskgroup's region at its opening, its wait only at its end
//   taskloop   a taskloop of 6 tasks (num_tasks), inside its implicit taskgroup
//   detach     an undeferred task with detach(event) and depend(out), a task depending on it, the
//              event fulfilled by the creator after it (late: the body had ended), a taskwait
//   fulfilled  a task with detach(event) that fulfils its own event while it runs (early), a
//              taskwait
//   cancel     (with OMP_CANCELLATION=true) a taskgroup whose first task cancels it before the
//              other 19 are created: the runtime discards those without running them
//   wide       no single region: a parallel region of num_threads(4), wider than a team of
//              OMP_NUM_THREADS=2 (the tool records the first threads only)
#include <omp.h>

#include <atomic>
#include <cstdio>
#include <cstring>

namespace {

// spin does some work a compiler cannot drop, so that every unit has a length.
void spin(volatile double& sink) {
  for (int i = 0; i < 20000; ++i) sink = sink + i * 0.5;
}

volatile double sink = 0;

void taskgroup() {
#pragma omp taskgroup
  {
    for (int i = 0; i < 4; ++i) {
#pragma omp task
      spin(sink);
    }
    spin(sink);
  }
  spin(sink);
}

void taskloop() {
#pragma omp taskloop num_tasks(6)
  for (int i = 0; i < 60; ++i) spin(sink);
  spin(sink);
}

void detach() {
  int x = 0;
  int y = 0;
  omp_event_handle_t event{};  // set by the detach clause
#pragma omp task detach(event) depend(out : x) shared(x) if (0)
  x = 1;
#pragma omp task depend(in : x) shared(x, y)
  y = x + 1;
  spin(sink);
  omp_fulfill_event(event);
#pragma omp taskwait
  if (y != 2) std::fprintf(stderr, "openmp_constructs: detach: y = %d, not 2\n", y);
}

void fulfilled() {
  omp_event_handle_t event{};  // set by the detach clause
#pragma omp task detach(event)
  {
    spin(sink);
    omp_fulfill_event(event);
    spin(sink);
  }
#pragma omp taskwait
}

void cancel() {
  std::atomic<bool> cancelling{false};
#pragma omp taskgroup
  {
#pragma omp task shared(cancelling)
    {
      cancelling = true;
#pragma omp cancel taskgroup
    }
    while (!cancelling) {
#pragma omp taskyield
    }
    for (int i = 0; i < 19; ++i) {
#pragma omp task
      spin(sink);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  struct Case {
    const char* name;
    void (*run)();
  };
  const Case cases[] = {{"taskgroup", taskgroup}, {"taskloop", taskloop}, {"detach", detach}, {"fulfilled", fulfilled}, {"cancel", cancel}};
  if (argc != 2) {
    std::fprintf(stderr, "usage: openmp_constructs taskgroup|taskloop|detach|fulfilled|cancel|wide\n");
    return 2;
  }
  if (std::strcmp(argv[1], "wide") == 0) {
#pragma omp parallel num_threads(4)
    spin(sink);
    std::printf("wide: done\n");
    return 0;
  }
  for (const Case& c : cases) {
    if (std::strcmp(argv[1], c.name) != 0) continue;
#pragma omp parallel
#pragma omp single
    c.run();
    std::printf("%s: done\n", c.name);
    return 0;
  }
  std::fprintf(stderr, "openmp_constructs: '%s' is no case: taskgroup, taskloop, detach, fulfilled, cancel or wide\n", argv[1]);
  return 2;
}

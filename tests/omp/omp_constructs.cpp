// Every OpenMP construct the OMPT tool turns into units and constraints, each in a small known
// amount, for tests/ompt_constructs_test.cpp: critical sections, locks, taskgroup, an undeferred
// task, a detached task, taskyield, a dynamic loop, a nested parallel region. An ordinary OpenMP
// program: nothing of Moirai.
#include <omp.h>

#include <cstdio>

namespace {

volatile double sink = 0;

void work(int amount) {
  double x = 0;
  for (int i = 0; i < amount * 1000; ++i) x += i * 0.5;
  sink = sink + x;
}

}  // namespace

int main() {
  long criticals = 0, locked = 0, grouped = 0, undeferred = 0, detached = 0, chunks = 0, nested = 0;
  omp_lock_t lock;
  omp_init_lock(&lock);
#pragma omp parallel num_threads(2)
  {
    for (int i = 0; i < 10; ++i) {
#pragma omp critical
      {
        work(5);
        ++criticals;
      }
    }
    for (int i = 0; i < 10; ++i) {
      omp_set_lock(&lock);
      work(5);
      ++locked;
      omp_unset_lock(&lock);
    }
#pragma omp single
    {
#pragma omp taskgroup
      {
        for (int i = 0; i < 4; ++i) {
#pragma omp task shared(grouped)
          {
            work(20);
#pragma omp atomic
            ++grouped;
          }
        }
      }
#pragma omp task if (0) shared(undeferred)
      {
        work(5);
        ++undeferred;
      }
      omp_event_handle_t event;
#pragma omp task detach(event) shared(detached)
      {
        work(5);
        ++detached;
      }
#pragma omp task shared(event)
      omp_fulfill_event(event);
#pragma omp taskyield
#pragma omp taskwait
    }
#pragma omp for schedule(dynamic, 1) reduction(+ : chunks)
    for (int i = 0; i < 8; ++i) {
      work(10);
      ++chunks;
    }
  }
  omp_set_max_active_levels(2);
#pragma omp parallel num_threads(2) reduction(+ : nested)
  {
#pragma omp parallel num_threads(2) reduction(+ : nested)
    nested += 1;
  }
  omp_destroy_lock(&lock);
  std::printf("criticals %ld locked %ld grouped %ld undeferred %ld detached %ld chunks %ld nested %ld\n", criticals,
              locked, grouped, undeferred, detached, chunks, nested);
  return criticals == 20 && locked == 20 && grouped == 4 && undeferred == 1 && detached == 1 && chunks == 8 && nested == 4 ? 0 : 1;
}

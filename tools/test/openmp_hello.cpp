// A tiny OpenMP program for `moirai record`'s tests: built by GCC (libgomp, no OMPT) and by
// clang -fopenmp (LLVM's libomp); it enters the OpenMP runtime once.
#include <cstdio>

int main() {
  int threads = 0;
#pragma omp parallel reduction(+ : threads)
  threads += 1;
  std::printf("openmp_hello: %d threads\n", threads);
  return 0;
}

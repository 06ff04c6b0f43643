// An ordinary MPI program (no Moirai header) that times MPI calls which cost the library little,
// so that the MPI tool's own cost per call stands out: bench/mpi_call_cost.sh runs it with and
// without libmoirai_mpi.so. `mpi_call_cost CALLS` on one rank prints, per kind, the mean ns per
// call over CALLS calls: a zero-byte MPI_Sendrecv with itself on MPI_COMM_SELF (one call, two
// records) and MPI_Barrier on MPI_COMM_SELF (one call, one record).
#include <mpi.h>
#include <time.h>

#include <cstdio>
#include <cstdlib>

namespace {

double now_ns() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<double>(now.tv_sec) * 1e9 + static_cast<double>(now.tv_nsec);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  long calls = argc > 1 ? std::atol(argv[1]) : 0;
  if (calls <= 0) {
    std::fprintf(stderr, "usage: mpi_call_cost CALLS (a positive number)\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  double start = now_ns();
  for (long i = 0; i < calls; ++i) {
    MPI_Sendrecv(nullptr, 0, MPI_BYTE, 0, 0, nullptr, 0, MPI_BYTE, 0, 0, MPI_COMM_SELF, MPI_STATUS_IGNORE);
  }
  double sendrecv = (now_ns() - start) / static_cast<double>(calls);
  start = now_ns();
  for (long i = 0; i < calls; ++i) MPI_Barrier(MPI_COMM_SELF);
  double barrier = (now_ns() - start) / static_cast<double>(calls);
  std::printf("sendrecv_ns %.1f\nbarrier_ns %.1f\n", sendrecv, barrier);
  MPI_Finalize();
  return 0;
}

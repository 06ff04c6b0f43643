// A ring on every rank of the job, with one planted cause: each round, every rank works, sends a
// token to its right neighbour and receives one from its left; rank --slow works --factor times
// as long as the others, so its right neighbour waits for it (a late sender) every round.
// Usage: ring [--rounds N] [--work-us US] [--slow RANK] [--factor F]
#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "mpi_world.h"

namespace {

// work spins for `us` microseconds of this rank's clock: a busy core, as computation would be.
void work(long us) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::microseconds(us);
  while (std::chrono::steady_clock::now() < end) {
  }
}

long number_after(int argc, char** argv, const char* option, long fallback) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], option) == 0) return std::strtol(argv[i + 1], nullptr, 10);
  }
  return fallback;
}

}  // namespace

int main(int argc, char** argv) {
  const auto [rank, size] = mpi_nodes::start(&argc, &argv);
  const long rounds = number_after(argc, argv, "--rounds", 20);
  const long work_us = number_after(argc, argv, "--work-us", 2000);
  const long slow = number_after(argc, argv, "--slow", 1);
  const long factor = number_after(argc, argv, "--factor", 4);
  const int right = (rank + 1) % size;
  const int left = (rank + size - 1) % size;
  long token = rank;
  for (long round = 0; round < rounds; ++round) {
    work(rank == slow ? work_us * factor : work_us);
    long received = -1;
    if (rank % 2 == 0) {
      MPI_Send(&token, 1, MPI_LONG, right, 0, MPI_COMM_WORLD);
      MPI_Recv(&received, 1, MPI_LONG, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(&received, 1, MPI_LONG, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(&token, 1, MPI_LONG, right, 0, MPI_COMM_WORLD);
    }
    token = received;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) std::printf("ring: %d ranks, %ld rounds, token %ld\n", size, rounds, token);
  MPI_Finalize();
  return 0;
}

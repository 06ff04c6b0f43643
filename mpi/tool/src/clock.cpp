#include "clock.h"

#include <time.h>
#include <unistd.h>

#include <cstring>
#include <vector>

namespace moirai::mpi_tool {

namespace {

std::int64_t test_offset_ns = 0;
constexpr int kRounds = 8;
constexpr int kTag = 1;

}  // namespace

void set_test_clock_offset(std::int64_t offset_ns) { test_offset_ns = offset_ns; }

std::uint64_t now_ns() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<std::uint64_t>(now.tv_sec) * 1'000'000'000u + static_cast<std::uint64_t>(now.tv_nsec) +
         static_cast<std::uint64_t>(test_offset_ns);
}

ClockOffset measure_clock_offset(MPI_Comm world) {
  int rank = 0, size = 1;
  PMPI_Comm_rank(world, &rank);
  PMPI_Comm_size(world, &size);
  // Which ranks share rank 0's host: its name is broadcast, each answers whether it is its own.
  char host[256] = {};
  char root_host[256] = {};
  gethostname(host, sizeof host - 1);
  std::memcpy(root_host, host, sizeof host);
  PMPI_Bcast(root_host, sizeof root_host, MPI_CHAR, 0, world);
  int remote = std::strcmp(host, root_host) != 0 ? 1 : 0;
  std::vector<int> remotes(rank == 0 ? size : 0);
  PMPI_Gather(&remote, 1, MPI_INT, remotes.data(), 1, MPI_INT, 0, world);

  ClockOffset best;
  if (rank == 0) {
    for (int peer = 1; peer < size; ++peer) {
      if (remotes[peer] == 0) continue;
      for (int round = 0; round < kRounds; ++round) {
        char ping = 0;
        PMPI_Recv(&ping, 1, MPI_CHAR, peer, kTag, world, MPI_STATUS_IGNORE);
        std::uint64_t reading = now_ns();
        PMPI_Send(&reading, 1, MPI_UINT64_T, peer, kTag, world);
      }
    }
  } else if (remote != 0) {
    best.round_trip_ns = -1;
    for (int round = 0; round < kRounds; ++round) {
      char ping = 0;
      std::uint64_t root_reading = 0;
      std::uint64_t sent = now_ns();
      PMPI_Send(&ping, 1, MPI_CHAR, 0, kTag, world);
      PMPI_Recv(&root_reading, 1, MPI_UINT64_T, 0, kTag, world, MPI_STATUS_IGNORE);
      std::uint64_t received = now_ns();
      auto round_trip = static_cast<std::int64_t>(received - sent);
      if (best.round_trip_ns >= 0 && round_trip >= best.round_trip_ns) continue;
      // Rank 0 read its clock half way through the round trip, as far as this rank can tell.
      best.round_trip_ns = round_trip;
      best.offset_ns = static_cast<std::int64_t>(sent + static_cast<std::uint64_t>(round_trip / 2) - root_reading);
    }
  }
  return best;
}

}  // namespace moirai::mpi_tool

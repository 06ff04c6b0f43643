// The rank's clock: CLOCK_MONOTONIC in ns (ranks on one host read one clock), plus the offset a
// test injects (MOIRAI_MPI_TEST_CLOCK_OFFSET_NS), and its offset to rank 0's clock by ping-pong.
#pragma once

#include <mpi.h>

#include <cstdint>

namespace moirai::mpi_tool {

// set_test_clock_offset makes every later now_ns() reading `offset_ns` later (tests only).
void set_test_clock_offset(std::int64_t offset_ns);

// now_ns is the clock every record's times are read from.
std::uint64_t now_ns();

// ClockOffset is this rank's clock minus rank 0's, and the round trip it was measured with.
struct ClockOffset {
  std::int64_t offset_ns = 0;
  std::int64_t round_trip_ns = 0;
};

// measure_clock_offset is collective over `world` (a private duplicate of MPI_COMM_WORLD): ranks
// on rank 0's host get 0 without a message; the others take the smallest round trip of a few
// ping-pongs with rank 0, which serves them one after the other.
ClockOffset measure_clock_offset(MPI_Comm world);

}  // namespace moirai::mpi_tool

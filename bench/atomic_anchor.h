// The hardware's floor under a cross-core construct: a raw atomic ping-pong between two threads
// pinned with hwloc to the PUs of cores 0 and 1 (two cache-line transfers per round trip, no
// runtime), shared by its own benchmark row and by the SSR cross-core row, which runs a batch of
// it right before each of its own so that both see the same spell of the machine.
#pragma once

#include <cstdint>
#include <string>

namespace moirai::bench {

// AnchorBatch is one timed batch of round trips, or why it could not run.
struct AnchorBatch {
  double seconds = 0.0;  // the timed round trips only (after a warm-up)
  std::string error;     // non-empty: no two PUs, or hwloc could not pin the threads
};

// atomic_ping_pong runs `round_trips` round trips of a counter between the calling thread,
// pinned to PU 0, and a partner thread pinned to PU 1, after a warm-up of 1000.
AnchorBatch atomic_ping_pong(std::uint64_t round_trips);

}  // namespace moirai::bench

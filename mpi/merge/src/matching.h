// Matching: which call of which rank freed which other call. Messages in order per (communicator,
// source, destination, tag), the k-th collective on a communicator at every member as one
// instance; what only the clocks can decide (a collective's last arrival) is left to arcs_of.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "communicators.h"
#include "rank_files.h"
#include "record_kinds.h"

namespace moirai::mpi {

// Call is one MPI call of a rank that ends a unit (nested calls and completion records are not).
struct Call {
  std::uint64_t enter = 0, exit = 0;
  std::uint32_t site = 0;  // rank-local site id
  std::uint32_t record = 0;
  Construct construct = kInit;
};

// Arc says that the call `from_call` of rank `from_rank` freed the call `to_call` of `to_rank`
// (the unit ended by the first freed the unit that begins when the second returns).
struct Arc {
  std::uint32_t from_rank = 0, from_call = 0, to_rank = 0, to_call = 0;
  Construct construct = kSend;
  std::uint64_t match = 0;       // the message's number (1, 2, ...); 0 for a collective's arc
  std::uint64_t instance = 0;    // the collective instance's number + 1 (0: a message)
  bool wildcard = false;         // the receive was posted with MPI_ANY_SOURCE or MPI_ANY_TAG
};

// Envelope is what one matched message carried, as the trace keeps it.
struct Envelope {
  std::uint64_t bytes = 0;
  std::int32_t tag = 0;      // as sent (a receive for any tag: the one it matched)
  std::uint32_t comm = 0;    // global communicator id
  bool any_source = false;   // the receive was posted with MPI_ANY_SOURCE
  bool any_tag = false;      // ... with MPI_ANY_TAG
};

// Member is one rank's part in a collective instance.
struct Member {
  std::uint32_t rank = 0;
  std::uint32_t post = 0;           // the call that posted it (its arrival)
  std::int64_t freed = -1;          // the call that returned when it was done (-1: never completed)
  std::uint64_t bytes = 0;          // what this rank sent in it
};

// Instance is one collective: the k-th on a communicator at every member, in communicator order.
struct Instance {
  Construct construct = kBarrier;
  Shape shape = Shape::all;
  std::int64_t root = -1;           // the root's position in `members` (rooted shapes)
  std::uint32_t comm = 0;           // global communicator id
  std::vector<Member> members;
};

// Matching is every rank's calls and what freed them.
struct Matching {
  std::vector<std::vector<Call>> calls;  // by world rank
  std::vector<Arc> messages;             // point to point, rendezvous and probe arcs
  std::vector<Instance> collectives;
  std::uint64_t message_count = 0;       // matched messages
  std::vector<Envelope> envelopes;       // by match number - 1: what each matched message carried
  std::uint64_t wildcard_matches = 0;
  std::vector<std::uint64_t> wildcard_ids;  // the first of those messages' numbers
  std::uint64_t unreceived_sends = 0;       // sends no rank received (to a cut rank, or never)
  std::uint64_t incomplete_collectives = 0;  // instances a cut rank never reached
  std::vector<std::string> warnings;
};

// match_calls pairs sends with receives and collects collective instances; throws MergeError
// when the logs contradict each other (sizes that differ, a receive no send can have freed,
// members of one collective that called different operations).
// EagerLimits are the sizes up to which a send never waits for its receive: between two ranks on
// one node (Open MPI's shared memory, 4 KiB) and between nodes (its TCP transport, 64 KiB).
struct EagerLimits {
  std::uint64_t same_node = 4096;
  std::uint64_t across_nodes = 65536;
};

Matching match_calls(const std::vector<RankLog>& logs, const Communicators& comms, const EagerLimits& eager);

// arcs_of is every collective instance's arcs, by the calls' (clock-aligned) times: an N x N one
// freed by its last arrival, a one-to-N by its root, the root of an N-to-one by the last arrival.
std::vector<Arc> arcs_of(const Matching& matching);

}  // namespace moirai::mpi

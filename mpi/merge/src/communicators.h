// Communicators made global: each rank's `comm` lines (members as world ranks) unified into one
// table, so that a record's rank-local communicator id names the same communicator at every member.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "rank_files.h"

namespace moirai::mpi {

// Communicators is the job's communicators, global id = index (0: MPI_COMM_WORLD).
struct Communicators {
  // members are world ranks in communicator rank order (an intercommunicator: its two groups,
  // the lower group first, merged as one).
  std::vector<std::vector<std::int32_t>> members;
  std::vector<bool> inter;
  // names say what each communicator is, for the trace's communicator definitions:
  // "MPI_COMM_WORLD", "MPI_COMM_SELF of rank 2", "communicator 5 of communicator 0: ranks 0,2".
  std::vector<std::string> names;
  // global is, per world rank, its local id -> global id.
  std::vector<std::unordered_map<std::uint16_t, std::uint32_t>> global;

  // of is the global id of `rank`'s local communicator `local`; throws MergeError when the rank
  // defined no such communicator.
  std::uint32_t of(const RankLog& log, std::uint16_t local, std::uint64_t record) const;
};

// ranks_text lists world ranks in their order, a run of consecutive ones as a range ("0-3,6"),
// and stops with ",... (N ranks)" once the text is longer than `max_chars`.
std::string ranks_text(const std::vector<std::int32_t>& ranks, std::size_t max_chars = SIZE_MAX);

// unify_communicators gives every communicator of the job a global id: the k-th communicator
// with one parent and one member list at each member is one communicator.
Communicators unify_communicators(const std::vector<RankLog>& logs);

}  // namespace moirai::mpi

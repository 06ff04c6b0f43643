// CommTable: the rank-local ids of the communicators this rank used (0 MPI_COMM_WORLD,
// 1 MPI_COMM_SELF, then in order of first sight) and each one's members as world ranks, read
// with MPI_Group_translate_ranks when the communicator is created or first met, and written as a
// `comm` definition line then.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "moirai/mpi/rank_log.h"
#include "rank_log_writer.h"

namespace moirai::mpi_tool {

// Communicator is one row of the table.
struct Communicator {
  std::uint16_t id = 0;
  std::vector<std::int32_t> local;   // world rank of each rank of the (local) group
  std::vector<std::int32_t> remote;  // an intercommunicator's remote group, else empty
  bool inter = false;
};

class CommTable {
 public:
  // start defines MPI_COMM_WORLD and MPI_COMM_SELF for world rank `rank` of `size`.
  void start(int rank, int size, RankLogWriter& log);

  // find is `comm`'s row, defining it (parent unknown: 65535) the first time it is met.
  const Communicator& find(MPI_Comm comm, RankLogWriter& log);
  // add defines `comm`, made by a call over the communicator `parent`; its id.
  std::uint16_t add(MPI_Comm comm, std::uint16_t parent, RankLogWriter& log);
  // remove forgets `comm` (MPI_Comm_free), so that a handle MPI hands out again is a new row.
  void remove(MPI_Comm comm);

  // world_rank is `rank` of `comm` (of its remote group for an intercommunicator) as a world
  // rank; MPI_PROC_NULL, MPI_ANY_SOURCE and MPI_ROOT as the log's constants (MPI_ROOT: this rank).
  std::int32_t world_rank(const Communicator& comm, int rank) const;

 private:
  Communicator world_, self_;
  std::unordered_map<std::uintptr_t, Communicator> others_;
  std::uint16_t next_id_ = 2;
  std::int32_t my_rank_ = 0;
};

}  // namespace moirai::mpi_tool

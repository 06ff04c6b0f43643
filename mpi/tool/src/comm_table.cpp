#include "comm_table.h"

#include <numeric>
#include <string>

#include "handle_key.h"

namespace moirai::mpi_tool {

namespace {

// world_ranks_of is every rank of `group` as a world rank.
std::vector<std::int32_t> world_ranks_of(MPI_Group group) {
  int size = 0;
  PMPI_Group_size(group, &size);
  std::vector<int> ranks(static_cast<std::size_t>(size));
  std::iota(ranks.begin(), ranks.end(), 0);
  std::vector<int> world(ranks.size());
  MPI_Group world_group;
  PMPI_Comm_group(MPI_COMM_WORLD, &world_group);
  PMPI_Group_translate_ranks(group, size, ranks.data(), world_group, world.data());
  PMPI_Group_free(&world_group);
  return {world.begin(), world.end()};
}

void define(const Communicator& comm, std::uint32_t parent, RankLogWriter& log) {
  std::string line = "comm " + std::to_string(comm.id) + " " + std::to_string(parent) + " " +
                     std::to_string(comm.local.size());
  for (std::int32_t rank : comm.local) line += " " + std::to_string(rank);
  if (comm.inter) {
    line += " |";
    for (std::int32_t rank : comm.remote) line += " " + std::to_string(rank);
  }
  log.define(line);
}

}  // namespace

void CommTable::start(int rank, int size, RankLogWriter& log) {
  my_rank_ = rank;
  world_ = Communicator{mpi::kWorldComm, std::vector<std::int32_t>(static_cast<std::size_t>(size)), {}, false};
  std::iota(world_.local.begin(), world_.local.end(), 0);
  self_ = Communicator{mpi::kSelfComm, {rank}, {}, false};
  define(world_, static_cast<std::uint32_t>(mpi::kNoComm), log);
  define(self_, static_cast<std::uint32_t>(mpi::kNoComm), log);
}

const Communicator& CommTable::find(MPI_Comm comm, RankLogWriter& log) {
  if (comm == MPI_COMM_WORLD) return world_;
  if (comm == MPI_COMM_SELF) return self_;
  if (auto known = others_.find(handle_key(comm)); known != others_.end()) return known->second;
  add(comm, static_cast<std::uint16_t>(mpi::kNoComm), log);
  return others_.at(handle_key(comm));
}

std::uint16_t CommTable::add(MPI_Comm comm, std::uint16_t parent, RankLogWriter& log) {
  if (comm == MPI_COMM_NULL) return static_cast<std::uint16_t>(mpi::kNoComm);
  Communicator row;
  row.id = next_id_++;
  int inter = 0;
  PMPI_Comm_test_inter(comm, &inter);
  row.inter = inter != 0;
  MPI_Group group;
  PMPI_Comm_group(comm, &group);
  row.local = world_ranks_of(group);
  PMPI_Group_free(&group);
  if (row.inter) {
    PMPI_Comm_remote_group(comm, &group);
    row.remote = world_ranks_of(group);
    PMPI_Group_free(&group);
  }
  define(row, parent, log);
  std::uint16_t id = row.id;
  others_[handle_key(comm)] = std::move(row);
  return id;
}

void CommTable::remove(MPI_Comm comm) { others_.erase(handle_key(comm)); }

std::int32_t CommTable::world_rank(const Communicator& comm, int rank) const {
  if (rank == MPI_PROC_NULL) return mpi::kProcNull;
  if (rank == MPI_ANY_SOURCE) return mpi::kAnySource;
  if (rank == MPI_ROOT) return my_rank_;
  const auto& group = comm.inter ? comm.remote : comm.local;
  if (rank < 0 || static_cast<std::size_t>(rank) >= group.size()) return mpi::kNoPeer;
  return group[static_cast<std::size_t>(rank)];
}

}  // namespace moirai::mpi_tool

// Communicators: each call that makes one records its new rank-local id (kNoComm when this rank
// got MPI_COMM_NULL) after the `comm` line giving its members as world ranks; MPI_Comm_free
// records the id it freed. Communicators made by calls not wrapped here (MPI_Cart_create, ...)
// are defined when first met (comm_table.h).
#include "tool_state.h"

using namespace moirai::mpi_tool;
using moirai::mpi::MpiOp;

namespace {

// made records a call over `parent` that made `made` (when it succeeded).
void made(Call& call, MpiOp op, int result, MPI_Comm parent, MPI_Comm made, std::int32_t peer = moirai::mpi::kNoPeer,
          std::int32_t tag = 0) {
  call.returned();
  std::uint16_t parent_id = comm_id(parent);
  std::uint64_t id = moirai::mpi::kNoComm;
  if (result == MPI_SUCCESS) id = the_tool->comms.add(made, parent_id, the_tool->log);
  call.record(op, result, parent_id, peer, tag, id);
}

}  // namespace

MOIRAI_WRAPPER_THEN(Comm_split, (MPI_Comm comm, int color, int key, MPI_Comm* newcomm), (comm, color, key, newcomm),
                    made(call, MpiOp::comm_split, result, comm, *newcomm))
MOIRAI_WRAPPER_THEN(Comm_split_type, (MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm* newcomm),
                    (comm, split_type, key, info, newcomm),
                    made(call, MpiOp::comm_split_type, result, comm, *newcomm))
MOIRAI_WRAPPER_THEN(Comm_dup, (MPI_Comm comm, MPI_Comm* newcomm), (comm, newcomm),
                    made(call, MpiOp::comm_dup, result, comm, *newcomm))
MOIRAI_WRAPPER_THEN(Comm_create, (MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm), (comm, group, newcomm),
                    made(call, MpiOp::comm_create, result, comm, *newcomm))
MOIRAI_WRAPPER_THEN(Intercomm_merge, (MPI_Comm intercomm, int high, MPI_Comm* newintracomm),
                    (intercomm, high, newintracomm), made(call, MpiOp::intercomm_merge, result, intercomm, *newintracomm))

MOIRAI_MPI_WRAPPER MPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader,
                                        int tag, MPI_Comm* newintercomm) {
  MOIRAI_CALL("MPI_Intercomm_create");
  int result = PMPI_Intercomm_create(local_comm, local_leader, peer_comm, remote_leader, tag, newintercomm);
  if (call.recorded()) {
    // The remote leader is a rank of peer_comm, which only the local leader has to pass validly.
    int rank = -1;
    PMPI_Comm_rank(local_comm, &rank);
    std::int32_t peer = rank == local_leader ? peer_of(peer_comm, remote_leader) : moirai::mpi::kNoPeer;
    made(call, MpiOp::intercomm_create, result, local_comm, *newintercomm, peer, tag);
  }
  return result;
}

MOIRAI_MPI_WRAPPER MPI_Comm_idup(MPI_Comm comm, MPI_Comm* newcomm, MPI_Request* request) {
  MOIRAI_CALL("MPI_Comm_idup");
  int result = PMPI_Comm_idup(comm, newcomm, request);
  if (call.recorded()) {
    // The new communicator may not be used before the request completes: it is defined when met.
    call.returned();
    std::uint64_t index = the_tool->log.records();
    call.record(MpiOp::comm_idup, result, comm_id(comm), moirai::mpi::kNoPeer, 0, moirai::mpi::kNoComm);
    if (result == MPI_SUCCESS) {
      the_tool->requests.post(*request, PostedRequest{index, index, moirai::mpi::kNoPeer, 0, 0, comm, false, false, true});
    }
  }
  return result;
}

MOIRAI_MPI_WRAPPER MPI_Comm_free(MPI_Comm* comm) {
  MOIRAI_CALL("MPI_Comm_free");
  if (!call.recorded()) return PMPI_Comm_free(comm);
  MPI_Comm freed = *comm;
  std::uint16_t id = comm_id(freed);
  int result = PMPI_Comm_free(comm);
  call.returned();
  if (result == MPI_SUCCESS) the_tool->comms.remove(freed);
  call.record(MpiOp::comm_free, result, id, moirai::mpi::kNoPeer, 0, id);
  return result;
}

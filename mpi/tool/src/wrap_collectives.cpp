// Collectives and their nonblocking forms: peer = the root's world rank (kNoPeer for N x N
// ones), value = the bytes this rank sends (a root of a one-to-N call: all it sends; the others:
// none). A nonblocking form's record index is its request's id, completed like MPI_Isend's.
#include <climits>

#include "tool_state.h"

using namespace moirai::mpi_tool;
using moirai::mpi::MpiOp;

namespace {

constexpr int kNoRoot = INT_MIN;

// collective records the call over `comm` with `root` (kNoRoot: none) and enters its request.
void collective(Call& call, MpiOp op, int result, MPI_Comm comm, int root, std::uint64_t sent,
                const MPI_Request* request = nullptr) {
  call.returned();
  std::uint64_t index = the_tool->log.records();
  std::int32_t peer = root == kNoRoot ? moirai::mpi::kNoPeer : peer_of(comm, root);
  call.record(op, result, comm_id(comm), peer, 0, sent);
  if (request != nullptr && result == MPI_SUCCESS) {
    the_tool->requests.post(*request, PostedRequest{index, index, peer, 0, 0, comm, false, false, true});
  }
}

bool is_root(MPI_Comm comm, int root) {
  if (root == MPI_ROOT) return true;
  int inter = 0, rank = -1;
  PMPI_Comm_test_inter(comm, &inter);
  if (inter != 0) return false;
  PMPI_Comm_rank(comm, &rank);
  return rank == root;
}

int size_of(MPI_Comm comm) {
  int size = 0;
  PMPI_Comm_size(comm, &size);
  return size;
}

std::uint64_t sum(const int counts[], int n, MPI_Datatype type) {
  std::uint64_t total = 0;
  for (int i = 0; i < n; ++i) total += bytes(counts[i], type);
  return total;
}

// Each call's bytes, the same for its blocking and nonblocking forms.
std::uint64_t bcast_bytes(int count, MPI_Datatype type, int root, MPI_Comm comm) {
  return is_root(comm, root) ? bytes(count, type) : 0;
}
std::uint64_t scatter_bytes(int sendcount, MPI_Datatype sendtype, int root, MPI_Comm comm) {
  return is_root(comm, root) ? bytes(sendcount, sendtype) * static_cast<std::uint64_t>(size_of(comm)) : 0;
}
std::uint64_t scatterv_bytes(const int sendcounts[], MPI_Datatype sendtype, int root, MPI_Comm comm) {
  return is_root(comm, root) ? sum(sendcounts, size_of(comm), sendtype) : 0;
}
// A gather's root with MPI_IN_PLACE sends its own block where it is.
std::uint64_t gather_bytes(const void* sendbuf, int sendcount, MPI_Datatype sendtype) {
  return sendbuf == MPI_IN_PLACE ? 0 : bytes(sendcount, sendtype);
}
std::uint64_t alltoall_bytes(int sendcount, MPI_Datatype sendtype, MPI_Comm comm) {
  return bytes(sendcount, sendtype) * static_cast<std::uint64_t>(size_of(comm));
}

}  // namespace

MOIRAI_MPI_WRAPPER MPI_Barrier(MPI_Comm comm) {
  MOIRAI_CALL("MPI_Barrier");
  int result = PMPI_Barrier(comm);
  if (call.recorded()) collective(call, MpiOp::barrier, result, comm, kNoRoot, 0);
  return result;
}
MOIRAI_MPI_WRAPPER MPI_Ibarrier(MPI_Comm comm, MPI_Request* request) {
  MOIRAI_CALL("MPI_Ibarrier");
  int result = PMPI_Ibarrier(comm, request);
  if (call.recorded()) collective(call, MpiOp::ibarrier, result, comm, kNoRoot, 0, request);
  return result;
}

MOIRAI_MPI_WRAPPER MPI_Bcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  MOIRAI_CALL("MPI_Bcast");
  int result = PMPI_Bcast(buffer, count, type, root, comm);
  if (call.recorded()) collective(call, MpiOp::bcast, result, comm, root, bcast_bytes(count, type, root, comm));
  return result;
}
MOIRAI_MPI_WRAPPER MPI_Ibcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Request* request) {
  MOIRAI_CALL("MPI_Ibcast");
  int result = PMPI_Ibcast(buffer, count, type, root, comm, request);
  if (call.recorded()) collective(call, MpiOp::ibcast, result, comm, root, bcast_bytes(count, type, root, comm), request);
  return result;
}

MOIRAI_MPI_WRAPPER MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, int root,
                              MPI_Comm comm) {
  MOIRAI_CALL("MPI_Reduce");
  int result = PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm);
  if (call.recorded()) collective(call, MpiOp::reduce, result, comm, root, bytes(count, type));
  return result;
}
MOIRAI_MPI_WRAPPER MPI_Ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, int root,
                               MPI_Comm comm, MPI_Request* request) {
  MOIRAI_CALL("MPI_Ireduce");
  int result = PMPI_Ireduce(sendbuf, recvbuf, count, type, op, root, comm, request);
  if (call.recorded()) collective(call, MpiOp::ireduce, result, comm, root, bytes(count, type), request);
  return result;
}

// The reductions over all ranks with one count: MPI_Allreduce, MPI_Scan, MPI_Exscan.
#define MOIRAI_REDUCTION(Name, IName, op, iop)                                                                 \
  MOIRAI_MPI_WRAPPER MPI_##Name(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op o,   \
                                MPI_Comm comm) {                                                               \
    MOIRAI_CALL("MPI_" #Name);                                                                                 \
    int result = PMPI_##Name(sendbuf, recvbuf, count, type, o, comm);                                          \
    if (call.recorded()) collective(call, MpiOp::op, result, comm, kNoRoot, bytes(count, type));               \
    return result;                                                                                             \
  }                                                                                                            \
  MOIRAI_MPI_WRAPPER MPI_##IName(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op o,  \
                                 MPI_Comm comm, MPI_Request* request) {                                        \
    MOIRAI_CALL("MPI_" #IName);                                                                                \
    int result = PMPI_##IName(sendbuf, recvbuf, count, type, o, comm, request);                                \
    if (call.recorded()) collective(call, MpiOp::iop, result, comm, kNoRoot, bytes(count, type), request);     \
    return result;                                                                                             \
  }
MOIRAI_REDUCTION(Allreduce, Iallreduce, allreduce, iallreduce)
MOIRAI_REDUCTION(Scan, Iscan, scan, iscan)
MOIRAI_REDUCTION(Exscan, Iexscan, exscan, iexscan)

// The gathers and all-to-alls with one count per rank: MPI_Gather, MPI_Scatter, MPI_Allgather,
// MPI_Alltoall (ROOT_PARAM, ROOT_ARG: the rooted ones' extra parameter).
#define MOIRAI_COMMA ,
#define MOIRAI_BLOCK_EXCHANGE(Name, IName, op, iop, ROOT_PARAM, ROOT, SENT)                                    \
  MOIRAI_MPI_WRAPPER MPI_##Name(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,     \
                                int recvcount, MPI_Datatype recvtype ROOT_PARAM, MPI_Comm comm) {              \
    MOIRAI_CALL("MPI_" #Name);                                                                                 \
    int result = PMPI_##Name(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype ROOT_ARG, comm);        \
    if (call.recorded()) collective(call, MpiOp::op, result, comm, ROOT, SENT);                                \
    return result;                                                                                             \
  }                                                                                                            \
  MOIRAI_MPI_WRAPPER MPI_##IName(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,    \
                                 int recvcount, MPI_Datatype recvtype ROOT_PARAM, MPI_Comm comm,               \
                                 MPI_Request* request) {                                                       \
    MOIRAI_CALL("MPI_" #IName);                                                                                \
    int result = PMPI_##IName(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype ROOT_ARG, comm,       \
                              request);                                                                        \
    if (call.recorded()) collective(call, MpiOp::iop, result, comm, ROOT, SENT, request);                      \
    return result;                                                                                             \
  }
#define ROOT_ARG , root
MOIRAI_BLOCK_EXCHANGE(Gather, Igather, gather, igather, MOIRAI_COMMA int root, root,
                      gather_bytes(sendbuf, sendcount, sendtype))
MOIRAI_BLOCK_EXCHANGE(Scatter, Iscatter, scatter, iscatter, MOIRAI_COMMA int root, root,
                      scatter_bytes(sendcount, sendtype, root, comm))
#undef ROOT_ARG
#define ROOT_ARG
MOIRAI_BLOCK_EXCHANGE(Allgather, Iallgather, allgather, iallgather, , kNoRoot, gather_bytes(sendbuf, sendcount, sendtype))
MOIRAI_BLOCK_EXCHANGE(Alltoall, Ialltoall, alltoall, ialltoall, , kNoRoot, alltoall_bytes(sendcount, sendtype, comm))
#undef ROOT_ARG

MOIRAI_MPI_WRAPPER MPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                               const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                               MPI_Comm comm) {
  MOIRAI_CALL("MPI_Gatherv");
  int result = PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm);
  if (call.recorded()) collective(call, MpiOp::gatherv, result, comm, root, gather_bytes(sendbuf, sendcount, sendtype));
  return result;
}
MOIRAI_MPI_WRAPPER MPI_Igatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                                MPI_Comm comm, MPI_Request* request) {
  MOIRAI_CALL("MPI_Igatherv");
  int result = PMPI_Igatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm, request);
  if (call.recorded()) {
    collective(call, MpiOp::igatherv, result, comm, root, gather_bytes(sendbuf, sendcount, sendtype), request);
  }
  return result;
}

MOIRAI_MPI_WRAPPER MPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                                void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  MOIRAI_CALL("MPI_Scatterv");
  int result = PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm);
  if (call.recorded()) collective(call, MpiOp::scatterv, result, comm, root, scatterv_bytes(sendcounts, sendtype, root, comm));
  return result;
}
MOIRAI_MPI_WRAPPER MPI_Iscatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                                 void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                                 MPI_Request* request) {
  MOIRAI_CALL("MPI_Iscatterv");
  int result = PMPI_Iscatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, request);
  if (call.recorded()) {
    collective(call, MpiOp::iscatterv, result, comm, root, scatterv_bytes(sendcounts, sendtype, root, comm), request);
  }
  return result;
}

MOIRAI_MPI_WRAPPER MPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                  const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  MOIRAI_CALL("MPI_Allgatherv");
  int result = PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
  if (call.recorded()) collective(call, MpiOp::allgatherv, result, comm, kNoRoot, gather_bytes(sendbuf, sendcount, sendtype));
  return result;
}
MOIRAI_MPI_WRAPPER MPI_Iallgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                   const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                                   MPI_Request* request) {
  MOIRAI_CALL("MPI_Iallgatherv");
  int result = PMPI_Iallgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, request);
  if (call.recorded()) {
    collective(call, MpiOp::iallgatherv, result, comm, kNoRoot, gather_bytes(sendbuf, sendcount, sendtype), request);
  }
  return result;
}

MOIRAI_MPI_WRAPPER MPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                                 void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                                 MPI_Comm comm) {
  MOIRAI_CALL("MPI_Alltoallv");
  int result = PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm);
  if (call.recorded()) {
    std::uint64_t sent = sendbuf == MPI_IN_PLACE ? 0 : sum(sendcounts, size_of(comm), sendtype);
    collective(call, MpiOp::alltoallv, result, comm, kNoRoot, sent);
  }
  return result;
}
MOIRAI_MPI_WRAPPER MPI_Ialltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                                  void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                                  MPI_Comm comm, MPI_Request* request) {
  MOIRAI_CALL("MPI_Ialltoallv");
  int result =
      PMPI_Ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, request);
  if (call.recorded()) {
    std::uint64_t sent = sendbuf == MPI_IN_PLACE ? 0 : sum(sendcounts, size_of(comm), sendtype);
    collective(call, MpiOp::ialltoallv, result, comm, kNoRoot, sent, request);
  }
  return result;
}

MOIRAI_MPI_WRAPPER MPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype type,
                                      MPI_Op op, MPI_Comm comm) {
  MOIRAI_CALL("MPI_Reduce_scatter");
  int result = PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, type, op, comm);
  if (call.recorded()) collective(call, MpiOp::reduce_scatter, result, comm, kNoRoot, sum(recvcounts, size_of(comm), type));
  return result;
}
MOIRAI_MPI_WRAPPER MPI_Ireduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype type,
                                       MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  MOIRAI_CALL("MPI_Ireduce_scatter");
  int result = PMPI_Ireduce_scatter(sendbuf, recvbuf, recvcounts, type, op, comm, request);
  if (call.recorded()) {
    collective(call, MpiOp::ireduce_scatter, result, comm, kNoRoot, sum(recvcounts, size_of(comm), type), request);
  }
  return result;
}

MOIRAI_MPI_WRAPPER MPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype type,
                                            MPI_Op op, MPI_Comm comm) {
  MOIRAI_CALL("MPI_Reduce_scatter_block");
  int result = PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, comm);
  if (call.recorded()) collective(call, MpiOp::reduce_scatter_block, result, comm, kNoRoot, alltoall_bytes(recvcount, type, comm));
  return result;
}
MOIRAI_MPI_WRAPPER MPI_Ireduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype type,
                                             MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  MOIRAI_CALL("MPI_Ireduce_scatter_block");
  int result = PMPI_Ireduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, comm, request);
  if (call.recorded()) {
    collective(call, MpiOp::ireduce_scatter_block, result, comm, kNoRoot, alltoall_bytes(recvcount, type, comm), request);
  }
  return result;
}

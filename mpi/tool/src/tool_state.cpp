#include "tool_state.h"

#include <cstdio>
#include <string>

namespace moirai::mpi_tool {

Tool* const the_tool = new Tool;
__attribute__((tls_model("initial-exec"))) thread_local bool recording_thread = false;
__attribute__((tls_model("initial-exec"))) thread_local int call_depth = 0;

void warn(const char* text) {
  the_tool->log.define(std::string("warning ") + text);
  if (!the_tool->quiet) std::fprintf(stderr, "moirai-mpi: rank %d: %s\n", the_tool->rank, text);
}

void warn_other_thread(const char* call) {
  if (the_tool->warned_other_thread.exchange(true)) return;
  std::string text = std::string("a thread other than the one that called MPI_Init called ") + call +
                     ": MPI calls from other threads are not recorded";
  warn(text.c_str());
}

namespace {

// row_of is `comm`'s row of the table (nullptr for MPI_COMM_NULL), looked up once per record.
const Communicator* row_of(MPI_Comm comm) {
  return comm == MPI_COMM_NULL ? nullptr : &the_tool->comms.find(comm, the_tool->log);
}
std::uint16_t id_of(const Communicator* row) { return row != nullptr ? row->id : static_cast<std::uint16_t>(mpi::kNoComm); }
std::int32_t peer_in(const Communicator* row, int rank) {
  if (row == nullptr) return rank == MPI_PROC_NULL ? mpi::kProcNull : mpi::kNoPeer;
  return the_tool->comms.world_rank(*row, rank);
}

}  // namespace

std::uint16_t comm_id(MPI_Comm comm) { return id_of(row_of(comm)); }

std::int32_t peer_of(MPI_Comm comm, int rank) { return peer_in(row_of(comm), rank); }

std::int32_t Call::record_send(mpi::MpiOp op, int result, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  const Communicator* row = row_of(comm);
  std::int32_t peer = peer_in(row, dest);
  record(op, result, id_of(row), peer, tag, bytes(count, type));
  return peer;
}

void Call::record_receive(mpi::MpiOp op, int result, const MPI_Status& status, int source, int tag, MPI_Comm comm) {
  const Communicator* row = row_of(comm);
  std::uint8_t flags = wildcard_flags(source, tag);
  if (result != MPI_SUCCESS) {
    record(op, result, id_of(row), peer_in(row, source), log_tag(tag), 0, flags);
  } else {
    record(op, result, id_of(row), peer_in(row, status.MPI_SOURCE), log_tag(status.MPI_TAG), status_bytes(status), flags);
  }
}

void Call::completion(const PostedRequest& request, const MPI_Status& status) {
  std::uint8_t flags = request.flags;
  int cancelled = 0;
  PMPI_Test_cancelled(&status, &cancelled);
  if (cancelled != 0) flags |= mpi::kFlagCancelled;
  std::int32_t peer = request.peer;
  std::int32_t tag = request.tag;
  std::uint64_t received = 0;
  if (request.receive && cancelled == 0) {
    peer = peer_of(request.comm, status.MPI_SOURCE);
    tag = log_tag(status.MPI_TAG);
    received = status_bytes(status);
  }
  the_tool->log.append(mpi::RankRecord{static_cast<std::uint8_t>(mpi::MpiOp::completion), flags, 0, peer, tag, site_,
                                       received, 0, request.posting});
}

std::uint64_t bytes(int count, MPI_Datatype type) {
  int size = 0;
  if (count <= 0 || type == MPI_DATATYPE_NULL || PMPI_Type_size(type, &size) != MPI_SUCCESS || size < 0) return 0;
  return static_cast<std::uint64_t>(count) * static_cast<std::uint64_t>(size);
}

std::uint64_t status_bytes(const MPI_Status& status) {
  int count = 0;
  if (PMPI_Get_count(&status, MPI_BYTE, &count) != MPI_SUCCESS || count == MPI_UNDEFINED || count < 0) return 0;
  return static_cast<std::uint64_t>(count);
}

}  // namespace moirai::mpi_tool

// Point to point, nonblocking: each posting's record index becomes its request's id in the
// request table (MPI_Isend..., MPI_Irecv, MPI_Imrecv); persistent requests (MPI_*_init) are
// recorded once and each MPI_Start / MPI_Startall makes an instance with a `start` record.
#include "tool_state.h"

using namespace moirai::mpi_tool;
using moirai::mpi::MpiOp;

namespace {

// post_send records a send posting and enters its request (persistent: inactive until started).
void post_send(Call& call, MpiOp op, int result, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
               MPI_Request request, bool persistent) {
  call.returned();
  std::uint64_t index = the_tool->log.records();
  std::int32_t peer = call.record_send(op, result, count, type, dest, tag, comm);
  if (result == MPI_SUCCESS) {
    the_tool->requests.post(request, PostedRequest{index, index, peer, tag, 0, comm, false, persistent, !persistent});
  }
}

void post_receive(Call& call, MpiOp op, int result, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                  MPI_Request request, bool persistent) {
  call.returned();
  std::uint64_t index = the_tool->log.records();
  std::int32_t peer = peer_of(comm, source);
  std::uint8_t flags = wildcard_flags(source, tag);
  call.record(op, result, comm_id(comm), peer, log_tag(tag), bytes(count, type), flags);
  if (result == MPI_SUCCESS) {
    the_tool->requests.post(request, PostedRequest{index, index, peer, log_tag(tag), flags, comm, true, persistent, !persistent});
  }
}

}  // namespace

#define MOIRAI_NONBLOCKING_SEND(Name, op, persistent)                                                   \
  MOIRAI_WRAPPER_THEN(Name,                                                                             \
                      (const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, \
                       MPI_Request* request),                                                           \
                      (buf, count, type, dest, tag, comm, request),                                     \
                      post_send(call, op, result, count, type, dest, tag, comm, *request, persistent))
MOIRAI_NONBLOCKING_SEND(Isend, MpiOp::isend, false)
MOIRAI_NONBLOCKING_SEND(Issend, MpiOp::issend, false)
MOIRAI_NONBLOCKING_SEND(Ibsend, MpiOp::ibsend, false)
MOIRAI_NONBLOCKING_SEND(Irsend, MpiOp::irsend, false)
MOIRAI_NONBLOCKING_SEND(Send_init, MpiOp::send_init, true)
MOIRAI_NONBLOCKING_SEND(Ssend_init, MpiOp::send_init, true)
MOIRAI_NONBLOCKING_SEND(Bsend_init, MpiOp::send_init, true)
MOIRAI_NONBLOCKING_SEND(Rsend_init, MpiOp::send_init, true)

#define MOIRAI_NONBLOCKING_RECEIVE(Name, op, persistent)                                                  \
  MOIRAI_WRAPPER_THEN(Name,                                                                               \
                      (void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,       \
                       MPI_Request* request),                                                             \
                      (buf, count, type, source, tag, comm, request),                                     \
                      post_receive(call, op, result, count, type, source, tag, comm, *request, persistent))
MOIRAI_NONBLOCKING_RECEIVE(Irecv, MpiOp::irecv, false)
MOIRAI_NONBLOCKING_RECEIVE(Recv_init, MpiOp::recv_init, true)

MOIRAI_MPI_WRAPPER MPI_Imrecv(void* buf, int count, MPI_Datatype type, MPI_Message* message, MPI_Request* request) {
  MOIRAI_CALL("MPI_Imrecv");
  if (!call.recorded()) return PMPI_Imrecv(buf, count, type, message, request);
  MPI_Comm comm = the_tool->requests.take(*message);
  int result = PMPI_Imrecv(buf, count, type, message, request);
  post_receive(call, MpiOp::imrecv, result, count, type, MPI_PROC_NULL, 0, comm, *request, false);
  return result;
}

namespace {

// start_instances writes one `start` record per started persistent request and makes it active.
void start_instances(Call& call, int result, int count, const MPI_Request* requests) {
  call.returned();
  for (int i = 0; i < count; ++i) {
    PostedRequest* row = the_tool->requests.find(requests[i]);
    std::uint64_t index = the_tool->log.records();
    call.record(MpiOp::start, result, row != nullptr ? comm_id(row->comm) : static_cast<std::uint16_t>(moirai::mpi::kNoComm),
                row != nullptr ? row->peer : moirai::mpi::kNoPeer, row != nullptr ? row->tag : 0,
                row != nullptr ? row->init : 0, row != nullptr ? row->flags : 0);
    if (row != nullptr && result == MPI_SUCCESS) {
      row->posting = index;
      row->active = true;
    }
  }
}

}  // namespace

MOIRAI_WRAPPER_THEN(Start, (MPI_Request* request), (request), start_instances(call, result, 1, request))
MOIRAI_WRAPPER_THEN(Startall, (int count, MPI_Request requests[]), (count, requests),
                    start_instances(call, result, count, requests))

MOIRAI_MPI_WRAPPER MPI_Request_free(MPI_Request* request) {
  MOIRAI_CALL("MPI_Request_free");
  if (call.recorded()) the_tool->requests.forget(*request);
  return PMPI_Request_free(request);
}

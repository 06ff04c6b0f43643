// Point to point, blocking: the sends, MPI_Recv, MPI_Sendrecv(_replace), the probes and the
// matched receive of a probed message (MPI_Mrecv). A receive's peer and tag are what its status
// says matched; the program's MPI_STATUS_IGNORE is served by a status of the tool's.
#include "tool_state.h"

using namespace moirai::mpi_tool;
using moirai::mpi::MpiOp;

namespace {

// record_poll records an MPI_Iprobe / MPI_Improbe: what matched, or the question it found no answer to.
void record_poll(Call& call, int result, bool found, const MPI_Status& status, int source, int tag, MPI_Comm comm) {
  if (result == MPI_SUCCESS && found) {
    call.record_receive(MpiOp::iprobe, result, status, source, tag, comm);
  } else {
    call.record(MpiOp::iprobe, result, comm_id(comm), peer_of(comm, source), log_tag(tag), 0,
                wildcard_flags(source, tag) | moirai::mpi::kFlagNotFound);
  }
}

}  // namespace

#define MOIRAI_BLOCKING_SEND(Name, op)                                                                          \
  MOIRAI_WRAPPER_THEN(Name, (const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm), \
                      (buf, count, type, dest, tag, comm),                                                      \
                      call.returned();                                                                          \
                      call.record_send(op, result, count, type, dest, tag, comm))
MOIRAI_BLOCKING_SEND(Send, MpiOp::send)
MOIRAI_BLOCKING_SEND(Ssend, MpiOp::ssend)
MOIRAI_BLOCKING_SEND(Bsend, MpiOp::bsend)
MOIRAI_BLOCKING_SEND(Rsend, MpiOp::rsend)

MOIRAI_WRAPPER_SEEING(Recv,
                      (void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Status* status),
                      (buf, count, type, source, tag, comm, seen),
                      call.record_receive(MpiOp::recv, result, *seen, source, tag, comm))

MOIRAI_WRAPPER_SEEING(Sendrecv,
                      (const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                       void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                       MPI_Status* status),
                      (sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag, comm,
                       seen),
                      call.record_send(MpiOp::sendrecv, result, sendcount, sendtype, dest, sendtag, comm);
                      call.record_receive(MpiOp::sendrecv_recv, result, *seen, source, recvtag, comm))

MOIRAI_WRAPPER_SEEING(Sendrecv_replace,
                      (void* buf, int count, MPI_Datatype type, int dest, int sendtag, int source, int recvtag,
                       MPI_Comm comm, MPI_Status* status),
                      (buf, count, type, dest, sendtag, source, recvtag, comm, seen),
                      call.record_send(MpiOp::sendrecv, result, count, type, dest, sendtag, comm);
                      call.record_receive(MpiOp::sendrecv_recv, result, *seen, source, recvtag, comm))

// The probes: MPI_Mprobe / MPI_Improbe also note the matched message's communicator for its MPI_Mrecv.
MOIRAI_WRAPPER_SEEING(Probe, (int source, int tag, MPI_Comm comm, MPI_Status* status), (source, tag, comm, seen),
                      call.record_receive(MpiOp::probe, result, *seen, source, tag, comm))
MOIRAI_WRAPPER_SEEING(Iprobe, (int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status),
                      (source, tag, comm, flag, seen),
                      record_poll(call, result, *flag != 0, *seen, source, tag, comm))
MOIRAI_WRAPPER_SEEING(Mprobe, (int source, int tag, MPI_Comm comm, MPI_Message* message, MPI_Status* status),
                      (source, tag, comm, message, seen),
                      call.record_receive(MpiOp::probe, result, *seen, source, tag, comm);
                      if (result == MPI_SUCCESS) the_tool->requests.matched(*message, comm))
MOIRAI_WRAPPER_SEEING(Improbe,
                      (int source, int tag, MPI_Comm comm, int* flag, MPI_Message* message, MPI_Status* status),
                      (source, tag, comm, flag, message, seen),
                      record_poll(call, result, *flag != 0, *seen, source, tag, comm);
                      if (result == MPI_SUCCESS && *flag != 0) the_tool->requests.matched(*message, comm))

MOIRAI_MPI_WRAPPER MPI_Mrecv(void* buf, int count, MPI_Datatype type, MPI_Message* message, MPI_Status* status) {
  MOIRAI_CALL("MPI_Mrecv");
  if (!call.recorded()) return PMPI_Mrecv(buf, count, type, message, status);
  MPI_Comm comm = the_tool->requests.take(*message);
  MPI_Status own;
  MPI_Status* seen = status == MPI_STATUS_IGNORE ? &own : status;
  int result = PMPI_Mrecv(buf, count, type, message, seen);
  call.returned();
  call.record_receive(MpiOp::mrecv, result, *seen, MPI_PROC_NULL, 0, comm);
  return result;
}

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

#define MOIRAI_BLOCKING_SEND(Name, op)                                                                   \
  MOIRAI_MPI_WRAPPER MPI_##Name(const void* buf, int count, MPI_Datatype type, int dest, int tag,        \
                                MPI_Comm comm) {                                                         \
    MOIRAI_CALL("MPI_" #Name);                                                                           \
    int result = PMPI_##Name(buf, count, type, dest, tag, comm);                                         \
    if (call.recorded()) {                                                                               \
      call.returned();                                                                                   \
      call.record_send(op, result, count, type, dest, tag, comm);                                        \
    }                                                                                                    \
    return result;                                                                                       \
  }
MOIRAI_BLOCKING_SEND(Send, MpiOp::send)
MOIRAI_BLOCKING_SEND(Ssend, MpiOp::ssend)
MOIRAI_BLOCKING_SEND(Bsend, MpiOp::bsend)
MOIRAI_BLOCKING_SEND(Rsend, MpiOp::rsend)

MOIRAI_MPI_WRAPPER MPI_Recv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                            MPI_Status* status) {
  MOIRAI_CALL("MPI_Recv");
  if (!call.recorded()) return PMPI_Recv(buf, count, type, source, tag, comm, status);
  MPI_Status own;
  MPI_Status* seen = status == MPI_STATUS_IGNORE ? &own : status;
  int result = PMPI_Recv(buf, count, type, source, tag, comm, seen);
  call.returned();
  call.record_receive(MpiOp::recv, result, *seen, source, tag, comm);
  return result;
}

MOIRAI_MPI_WRAPPER MPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                                void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                                MPI_Comm comm, MPI_Status* status) {
  MOIRAI_CALL("MPI_Sendrecv");
  if (!call.recorded()) {
    return PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag,
                         comm, status);
  }
  MPI_Status own;
  MPI_Status* seen = status == MPI_STATUS_IGNORE ? &own : status;
  int result = PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source,
                             recvtag, comm, seen);
  call.returned();
  call.record_send(MpiOp::sendrecv, result, sendcount, sendtype, dest, sendtag, comm);
  call.record_receive(MpiOp::sendrecv_recv, result, *seen, source, recvtag, comm);
  return result;
}

MOIRAI_MPI_WRAPPER MPI_Sendrecv_replace(void* buf, int count, MPI_Datatype type, int dest, int sendtag, int source,
                                        int recvtag, MPI_Comm comm, MPI_Status* status) {
  MOIRAI_CALL("MPI_Sendrecv_replace");
  if (!call.recorded()) return PMPI_Sendrecv_replace(buf, count, type, dest, sendtag, source, recvtag, comm, status);
  MPI_Status own;
  MPI_Status* seen = status == MPI_STATUS_IGNORE ? &own : status;
  int result = PMPI_Sendrecv_replace(buf, count, type, dest, sendtag, source, recvtag, comm, seen);
  call.returned();
  call.record_send(MpiOp::sendrecv, result, count, type, dest, sendtag, comm);
  call.record_receive(MpiOp::sendrecv_recv, result, *seen, source, recvtag, comm);
  return result;
}

MOIRAI_MPI_WRAPPER MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status* status) {
  MOIRAI_CALL("MPI_Probe");
  if (!call.recorded()) return PMPI_Probe(source, tag, comm, status);
  MPI_Status own;
  MPI_Status* seen = status == MPI_STATUS_IGNORE ? &own : status;
  int result = PMPI_Probe(source, tag, comm, seen);
  call.returned();
  call.record_receive(MpiOp::probe, result, *seen, source, tag, comm);
  return result;
}

MOIRAI_MPI_WRAPPER MPI_Iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status) {
  MOIRAI_CALL("MPI_Iprobe");
  if (!call.recorded()) return PMPI_Iprobe(source, tag, comm, flag, status);
  MPI_Status own;
  MPI_Status* seen = status == MPI_STATUS_IGNORE ? &own : status;
  int result = PMPI_Iprobe(source, tag, comm, flag, seen);
  call.returned();
  record_poll(call, result, *flag != 0, *seen, source, tag, comm);
  return result;
}

MOIRAI_MPI_WRAPPER MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message* message, MPI_Status* status) {
  MOIRAI_CALL("MPI_Mprobe");
  if (!call.recorded()) return PMPI_Mprobe(source, tag, comm, message, status);
  MPI_Status own;
  MPI_Status* seen = status == MPI_STATUS_IGNORE ? &own : status;
  int result = PMPI_Mprobe(source, tag, comm, message, seen);
  call.returned();
  call.record_receive(MpiOp::probe, result, *seen, source, tag, comm);
  if (result == MPI_SUCCESS) the_tool->requests.matched(*message, comm);
  return result;
}

MOIRAI_MPI_WRAPPER MPI_Improbe(int source, int tag, MPI_Comm comm, int* flag, MPI_Message* message,
                               MPI_Status* status) {
  MOIRAI_CALL("MPI_Improbe");
  if (!call.recorded()) return PMPI_Improbe(source, tag, comm, flag, message, status);
  MPI_Status own;
  MPI_Status* seen = status == MPI_STATUS_IGNORE ? &own : status;
  int result = PMPI_Improbe(source, tag, comm, flag, message, seen);
  call.returned();
  record_poll(call, result, *flag != 0, *seen, source, tag, comm);
  if (result == MPI_SUCCESS && *flag != 0) the_tool->requests.matched(*message, comm);
  return result;
}

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

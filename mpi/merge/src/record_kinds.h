// What each MPI call of the rank log is to the merge: a message's send or receive, a request's
// post or completion, a collective of which shape, and the construct kind it becomes in the trace.
#pragma once

#include <cstdint>
#include <vector>

#include "moirai/core/construct_role.h"
#include "moirai/mpi/rank_log.h"

namespace moirai::mpi {

// Construct kinds of the merged trace, one per MPI call family (value = the trace's kind).
enum Construct : std::uint16_t {
  kInit = 0, kFinalize, kAbort, kSend, kRecv, kSendrecv, kProbe, kCompletion, kRequestInit,
  kBarrier, kBcast, kReduce, kAllreduce, kGather, kScatter, kAllgather, kAlltoall, kReduceScatter, kScan,
  kCommCreate, kCommFree, kRendezvous,
  kConstructCount
};

// Shape is how a collective's members free each other.
enum class Shape : std::uint8_t {
  none,        // not a collective
  all,         // N x N: every member freed by the last arrival
  from_root,   // one to N: every member freed by the root's arrival
  to_root,     // N to one: the root freed by the last arrival
  prefix,      // scan: member i freed by the last arrival among members 0..i
  exclusive_prefix,  // exscan: among members 0..i-1
};

// op_known says whether `op` is an MpiOp the format defines.
bool op_known(std::uint8_t op);
// is_request says whether a record of `op` posts a request a completion record may name.
bool is_request(MpiOp op);
// is_completing says whether completion records may follow a call of `op` (Wait*, Test*).
bool is_completing(MpiOp op);
// is_send / is_receive say whether `op` posts a message's send / receive (start: see its init).
bool is_send(MpiOp op);
bool is_receive(MpiOp op);
// collective_shape is the shape of `op` as a collective (none for other calls), its
// nonblocking form's the same as its blocking one's.
Shape collective_shape(MpiOp op);
// blocking_form is a nonblocking collective's blocking op (other ops unchanged), so that an
// instance's members agree whichever form each used.
MpiOp blocking_form(MpiOp op);
// construct_of is the construct kind a call of `op` ends its unit with.
Construct construct_of(MpiOp op);
// mpi_constructs is the construct table of the merged trace, by kind.
std::vector<ConstructInfo> mpi_constructs();

}  // namespace moirai::mpi

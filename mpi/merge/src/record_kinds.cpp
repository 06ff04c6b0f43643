#include "record_kinds.h"

namespace moirai::mpi {

namespace {

bool in(MpiOp op, MpiOp low, MpiOp high) {
  return static_cast<std::uint8_t>(op) >= static_cast<std::uint8_t>(low) && static_cast<std::uint8_t>(op) <= static_cast<std::uint8_t>(high);
}

bool nonblocking_collective(MpiOp op) { return in(op, MpiOp::ibarrier, MpiOp::iexscan); }

}  // namespace

bool op_known(std::uint8_t value) {
  const auto op = static_cast<MpiOp>(value);
  return in(op, MpiOp::init, MpiOp::abort) || in(op, MpiOp::send, MpiOp::probe) || in(op, MpiOp::isend, MpiOp::imrecv) ||
         in(op, MpiOp::wait, MpiOp::completion) || in(op, MpiOp::barrier, MpiOp::exscan) || nonblocking_collective(op) ||
         in(op, MpiOp::comm_split, MpiOp::comm_idup);
}

bool is_request(MpiOp op) {
  return in(op, MpiOp::isend, MpiOp::irecv) || op == MpiOp::start || op == MpiOp::imrecv || nonblocking_collective(op) ||
         op == MpiOp::comm_idup;
}

bool is_completing(MpiOp op) { return in(op, MpiOp::wait, MpiOp::testsome); }

bool is_send(MpiOp op) { return in(op, MpiOp::send, MpiOp::rsend) || op == MpiOp::sendrecv || in(op, MpiOp::isend, MpiOp::irsend); }

bool is_receive(MpiOp op) {
  return op == MpiOp::recv || op == MpiOp::sendrecv_recv || op == MpiOp::irecv || op == MpiOp::mrecv || op == MpiOp::imrecv;
}

MpiOp blocking_form(MpiOp op) {
  if (!nonblocking_collective(op)) return op;
  return static_cast<MpiOp>(static_cast<std::uint8_t>(op) - (static_cast<std::uint8_t>(MpiOp::ibarrier) - static_cast<std::uint8_t>(MpiOp::barrier)));
}

Shape collective_shape(MpiOp op) {
  switch (blocking_form(op)) {
    case MpiOp::barrier: case MpiOp::allreduce: case MpiOp::allgather: case MpiOp::allgatherv: case MpiOp::alltoall:
    case MpiOp::alltoallv: case MpiOp::reduce_scatter: case MpiOp::reduce_scatter_block:
    case MpiOp::comm_split: case MpiOp::comm_dup: case MpiOp::comm_create: case MpiOp::comm_split_type:
    case MpiOp::intercomm_merge:
      return Shape::all;
    case MpiOp::bcast: case MpiOp::scatter: case MpiOp::scatterv:
      return Shape::from_root;
    case MpiOp::reduce: case MpiOp::gather: case MpiOp::gatherv:
      return Shape::to_root;
    case MpiOp::scan:
      return Shape::prefix;
    case MpiOp::exscan:
      return Shape::exclusive_prefix;
    default:
      return Shape::none;
  }
}

Construct construct_of(MpiOp op) {
  switch (blocking_form(op)) {
    case MpiOp::init: return kInit;
    case MpiOp::finalize: return kFinalize;
    case MpiOp::abort: return kAbort;
    case MpiOp::sendrecv: case MpiOp::sendrecv_recv: return kSendrecv;
    case MpiOp::probe: return kProbe;
    case MpiOp::send_init: case MpiOp::recv_init: return kRequestInit;
    case MpiOp::barrier: return kBarrier;
    case MpiOp::bcast: return kBcast;
    case MpiOp::reduce: return kReduce;
    case MpiOp::allreduce: return kAllreduce;
    case MpiOp::gather: case MpiOp::gatherv: return kGather;
    case MpiOp::scatter: case MpiOp::scatterv: return kScatter;
    case MpiOp::allgather: case MpiOp::allgatherv: return kAllgather;
    case MpiOp::alltoall: case MpiOp::alltoallv: return kAlltoall;
    case MpiOp::reduce_scatter: case MpiOp::reduce_scatter_block: return kReduceScatter;
    case MpiOp::scan: case MpiOp::exscan: return kScan;
    case MpiOp::comm_free: case MpiOp::intercomm_create: return kCommFree;
    default: break;
  }
  if (is_send(op)) return kSend;
  if (is_receive(op) || op == MpiOp::start) return kRecv;  // a start's kind is its request's: see matching
  if (is_completing(op)) return kCompletion;
  return kCommCreate;
}

std::vector<ConstructInfo> mpi_constructs() {
  using R = ConstructRole;
  std::vector<ConstructInfo> t(kConstructCount);
  t[kInit] = {"MPI_Init", R::other, ""};
  t[kFinalize] = {"MPI_Finalize", R::end, ""};
  t[kAbort] = {"MPI_Abort", R::end, "red"};
  t[kSend] = {"send", R::send, "blue"};
  t[kRecv] = {"recv", R::receive, "darkgreen"};
  t[kSendrecv] = {"sendrecv", R::send, "steelblue"};
  t[kProbe] = {"probe", R::receive, "teal"};
  t[kCompletion] = {"wait/test", R::other, "gray40"};
  t[kRequestInit] = {"request init", R::other, ""};
  t[kBarrier] = {"barrier", R::wait, "orangered"};
  t[kBcast] = {"bcast", R::send, "darkorange"};
  t[kReduce] = {"reduce", R::wait, "purple"};
  t[kAllreduce] = {"allreduce", R::wait, "purple4"};
  t[kGather] = {"gather", R::wait, "magenta4"};
  t[kScatter] = {"scatter", R::send, "darkorange3"};
  t[kAllgather] = {"allgather", R::wait, "mediumpurple"};
  t[kAlltoall] = {"alltoall", R::wait, "firebrick"};
  t[kReduceScatter] = {"reduce_scatter", R::wait, "orchid4"};
  t[kScan] = {"scan", R::wait, "sienna"};
  t[kCommCreate] = {"comm create", R::wait, "olivedrab"};
  t[kCommFree] = {"comm free", R::other, ""};
  t[kRendezvous] = {"rendezvous", R::send, "goldenrod"};
  return t;
}

}  // namespace moirai::mpi

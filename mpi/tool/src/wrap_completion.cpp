// Completions: MPI_Wait / MPI_Test and their -all, -any, -some forms. The call's record (value =
// how many requests it completed) is followed by one `completion` record per request it
// completed, so a failed test writes none. The requests are read before the call, as a completed
// request's handle is set to MPI_REQUEST_NULL by it.
#include <vector>

#include "tool_state.h"

using namespace moirai::mpi_tool;
using moirai::mpi::MpiOp;

namespace {

// Finished is a request the call completed, with its row as it was posted.
struct Finished {
  PostedRequest row;
  MPI_Status status;
};

// Scratch space of the recording thread (the only one that records), kept between calls.
std::vector<MPI_Request> handles;
std::vector<MPI_Status> own_statuses;
std::vector<Finished> finished;

const MPI_Request* remember(int count, const MPI_Request* requests) {
  handles.assign(requests, requests + (count > 0 ? count : 0));
  return handles.data();
}

MPI_Status* statuses_for(int count, MPI_Status* statuses) {
  if (statuses != MPI_STATUSES_IGNORE) return statuses;
  own_statuses.resize(static_cast<std::size_t>(count > 0 ? count : 1));
  return own_statuses.data();
}

// collect notes `request` completed with `status`, when the tool saw it posted and it was active.
void collect(MPI_Request request, const MPI_Status& status) {
  PostedRequest* row = the_tool->requests.find(request);
  if (row == nullptr || !row->active) return;
  finished.push_back(Finished{*row, status});
  the_tool->requests.completed(request);
}

// collect_all notes the requests of an -all call (MPI_ERR_IN_STATUS: those whose status has no error).
void collect_all(int result, int count, const MPI_Status* statuses) {
  for (int i = 0; i < count; ++i) {
    if (result == MPI_ERR_IN_STATUS && statuses[i].MPI_ERROR != MPI_SUCCESS) continue;
    collect(handles[static_cast<std::size_t>(i)], statuses[i]);
  }
}

void collect_some(int result, int outcount, const int* indices, const MPI_Status* statuses) {
  if (outcount == MPI_UNDEFINED) return;
  for (int i = 0; i < outcount; ++i) {
    if (result == MPI_ERR_IN_STATUS && statuses[i].MPI_ERROR != MPI_SUCCESS) continue;
    collect(handles[static_cast<std::size_t>(indices[i])], statuses[i]);
  }
}

void write(Call& call, MpiOp op, int result) {
  call.record(op, result, static_cast<std::uint16_t>(moirai::mpi::kNoComm), moirai::mpi::kNoPeer, 0, finished.size());
  for (const Finished& done : finished) call.completion(done.row, done.status);
  finished.clear();
}

}  // namespace

MOIRAI_MPI_WRAPPER MPI_Wait(MPI_Request* request, MPI_Status* status) {
  MOIRAI_CALL("MPI_Wait");
  if (!call.recorded()) return PMPI_Wait(request, status);
  MPI_Request handle = *request;
  MPI_Status own;
  MPI_Status* seen = status == MPI_STATUS_IGNORE ? &own : status;
  int result = PMPI_Wait(request, seen);
  call.returned();
  if (result == MPI_SUCCESS) collect(handle, *seen);
  write(call, MpiOp::wait, result);
  return result;
}

MOIRAI_MPI_WRAPPER MPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
  MOIRAI_CALL("MPI_Test");
  if (!call.recorded()) return PMPI_Test(request, flag, status);
  MPI_Request handle = *request;
  MPI_Status own;
  MPI_Status* seen = status == MPI_STATUS_IGNORE ? &own : status;
  int result = PMPI_Test(request, flag, seen);
  call.returned();
  if (result == MPI_SUCCESS && *flag != 0) collect(handle, *seen);
  write(call, MpiOp::test, result);
  return result;
}

MOIRAI_MPI_WRAPPER MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  MOIRAI_CALL("MPI_Waitall");
  if (!call.recorded()) return PMPI_Waitall(count, requests, statuses);
  remember(count, requests);
  MPI_Status* seen = statuses_for(count, statuses);
  int result = PMPI_Waitall(count, requests, seen);
  call.returned();
  if (result == MPI_SUCCESS || result == MPI_ERR_IN_STATUS) collect_all(result, count, seen);
  write(call, MpiOp::waitall, result);
  return result;
}

MOIRAI_MPI_WRAPPER MPI_Testall(int count, MPI_Request requests[], int* flag, MPI_Status statuses[]) {
  MOIRAI_CALL("MPI_Testall");
  if (!call.recorded()) return PMPI_Testall(count, requests, flag, statuses);
  remember(count, requests);
  MPI_Status* seen = statuses_for(count, statuses);
  int result = PMPI_Testall(count, requests, flag, seen);
  call.returned();
  if ((result == MPI_SUCCESS || result == MPI_ERR_IN_STATUS) && *flag != 0) collect_all(result, count, seen);
  write(call, MpiOp::testall, result);
  return result;
}

MOIRAI_MPI_WRAPPER MPI_Waitany(int count, MPI_Request requests[], int* index, MPI_Status* status) {
  MOIRAI_CALL("MPI_Waitany");
  if (!call.recorded()) return PMPI_Waitany(count, requests, index, status);
  remember(count, requests);
  MPI_Status own;
  MPI_Status* seen = status == MPI_STATUS_IGNORE ? &own : status;
  int result = PMPI_Waitany(count, requests, index, seen);
  call.returned();
  if (result == MPI_SUCCESS && *index != MPI_UNDEFINED) collect(handles[static_cast<std::size_t>(*index)], *seen);
  write(call, MpiOp::waitany, result);
  return result;
}

MOIRAI_MPI_WRAPPER MPI_Testany(int count, MPI_Request requests[], int* index, int* flag, MPI_Status* status) {
  MOIRAI_CALL("MPI_Testany");
  if (!call.recorded()) return PMPI_Testany(count, requests, index, flag, status);
  remember(count, requests);
  MPI_Status own;
  MPI_Status* seen = status == MPI_STATUS_IGNORE ? &own : status;
  int result = PMPI_Testany(count, requests, index, flag, seen);
  call.returned();
  if (result == MPI_SUCCESS && *flag != 0 && *index != MPI_UNDEFINED) {
    collect(handles[static_cast<std::size_t>(*index)], *seen);
  }
  write(call, MpiOp::testany, result);
  return result;
}

// MPI_Waitsome and MPI_Testsome take the same parameters and write the same records.
#define MOIRAI_COMPLETE_SOME(Name, op)                                                                           \
  MOIRAI_MPI_WRAPPER MPI_##Name(int incount, MPI_Request requests[], int* outcount, int indices[],                \
                                MPI_Status statuses[]) {                                                          \
    MOIRAI_CALL("MPI_" #Name);                                                                                    \
    if (!call.recorded()) return PMPI_##Name(incount, requests, outcount, indices, statuses);                     \
    remember(incount, requests);                                                                                  \
    MPI_Status* seen = statuses_for(incount, statuses);                                                           \
    int result = PMPI_##Name(incount, requests, outcount, indices, seen);                                         \
    call.returned();                                                                                              \
    if (result == MPI_SUCCESS || result == MPI_ERR_IN_STATUS) collect_some(result, *outcount, indices, seen);     \
    write(call, op, result);                                                                                      \
    return result;                                                                                                \
  }
MOIRAI_COMPLETE_SOME(Waitsome, MpiOp::waitsome)
MOIRAI_COMPLETE_SOME(Testsome, MpiOp::testsome)

// The tool's state in this rank and the rules of what is recorded: nothing before MPI_Init or
// after MPI_Finalize, nothing when MOIRAI_MPI_RANKS_DIR is unset, only calls of the thread that
// called MPI_Init (a call from another thread writes a `warning` line, once, and is not recorded),
// and a call made while another recorded call is in progress on its thread (the library calling
// MPI itself) is not recorded: it is part of the outer call, not a new unit.
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstdint>

#include "call_sites.h"
#include "clock.h"
#include "comm_table.h"
#include "moirai/mpi/rank_log.h"
#include "rank_log_writer.h"
#include "request_table.h"

namespace moirai::mpi_tool {

struct Tool {
  RankLogWriter log;
  CallSites sites;
  CommTable comms;
  RequestTable requests;
  int rank = -1;
  int size = 0;
  bool quiet = false;
  bool init_reached = false;           // our MPI_Init wrapper ran (a Fortran program's does not)
  MPI_Comm clock_comm = MPI_COMM_NULL;  // a private duplicate of the world for the clock offsets
  std::atomic<bool> recording{false};
  std::atomic<bool> warned_other_thread{false};
};

// the_tool is the one state of the process (never destroyed: a call at exit still finds it).
extern Tool* const the_tool;

// recording_thread is true on the thread that called MPI_Init; call_depth counts its calls in
// progress.
// (initial-exec: the tool is loaded with the program, so its thread-locals are reached without a
// call to __tls_get_addr on every MPI call.)
extern __attribute__((tls_model("initial-exec"))) thread_local bool recording_thread;
extern __attribute__((tls_model("initial-exec"))) thread_local int call_depth;

// warn_other_thread says once, on stderr and in the .defs, that MPI is called from another thread.
void warn_other_thread(const char* call);

// warn writes a `warning` definition line and, unless MOIRAI_MPI_QUIET=1, the same on stderr.
void warn(const char* text);

// Call is one wrapper's call to its PMPI twin: recorded() says whether it is recorded; then
// returned() reads the exit time after the PMPI call and record() writes its records.
class Call {
 public:
  Call(const void* return_address, const char* name) : return_address_(return_address) {
    if (!the_tool->recording.load(std::memory_order_relaxed)) return;
    if (!recording_thread) {
      warn_other_thread(name);
      return;
    }
    counted_ = true;
    if (call_depth++ > 0) return;
    recorded_ = true;
    enter_ = now_ns();
    // Inside the call's span: a site's first resolution (libdw, once) is the tool's time, which
    // the trace books with the library's, not the program's unit before the call.
    site_ = the_tool->sites.id(return_address_, the_tool->log);
  }
  ~Call() {
    if (counted_) --call_depth;
  }
  Call(const Call&) = delete;
  Call& operator=(const Call&) = delete;

  bool recorded() const { return recorded_; }
  void returned() { exit_ = now_ns(); }

  // record appends a call record; the error flag is added when `result` is not MPI_SUCCESS.
  void record(mpi::MpiOp op, int result, std::uint16_t comm, std::int32_t peer, std::int32_t tag, std::uint64_t value,
              std::uint8_t flags = 0) {
    if (result != MPI_SUCCESS) flags |= mpi::kFlagError;
    the_tool->log.append(mpi::RankRecord{static_cast<std::uint8_t>(op), flags, comm, peer, tag, site_, enter_, exit_, value});
  }
  // record_send appends a send to `dest` of `comm`; the peer as a world rank.
  std::int32_t record_send(mpi::MpiOp op, int result, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm);
  // record_receive appends a receive posted from `source` with `tag`, matched as `status` says.
  void record_receive(mpi::MpiOp op, int result, const MPI_Status& status, int source, int tag, MPI_Comm comm);
  // completion appends the completion of `request` (its row, before the call) as `status` says.
  void completion(const PostedRequest& request, const MPI_Status& status);

  std::uint64_t enter() const { return enter_; }
  std::uint64_t exit() const { return exit_; }

 private:
  const void* return_address_;
  bool counted_ = false;
  bool recorded_ = false;
  std::uint32_t site_ = 0;
  std::uint64_t enter_ = 0;
  std::uint64_t exit_ = 0;
};

// comm_id is `comm`'s rank-local id (kNoComm for MPI_COMM_NULL).
std::uint16_t comm_id(MPI_Comm comm);
// peer_of is `rank` of `comm` as the log writes a peer (MPI_COMM_NULL: only MPI_PROC_NULL known).
std::int32_t peer_of(MPI_Comm comm, int rank);
// bytes is `count` elements of `type`.
std::uint64_t bytes(int count, MPI_Datatype type);
// status_bytes is what a receive's status says it received, in bytes.
std::uint64_t status_bytes(const MPI_Status& status);
// wildcard_flags are the flags of a receive posted from `source` with `tag`.
inline std::uint8_t wildcard_flags(int source, int tag) {
  return static_cast<std::uint8_t>((source == MPI_ANY_SOURCE ? mpi::kFlagWildcardSource : 0) |
                                   (tag == MPI_ANY_TAG ? mpi::kFlagWildcardTag : 0));
}
// log_tag is a tag as the log writes it.
inline std::int32_t log_tag(int tag) { return tag == MPI_ANY_TAG ? mpi::kAnyTag : tag; }

}  // namespace moirai::mpi_tool

// A wrapper's definition: the MPI_* functions are the library's only exported symbols.
#define MOIRAI_MPI_WRAPPER extern "C" __attribute__((visibility("default"))) int
#define MOIRAI_CALL(name) ::moirai::mpi_tool::Call call(__builtin_return_address(0), name)

// MOIRAI_WRAPPER_THEN(Name, (PARAMS), (ARGS), RECORD...) defines the wrapper MPI_Name(PARAMS) of a
// call whose records need nothing from before it: it calls PMPI_Name(ARGS) and then, when the call
// is recorded, runs RECORD, which sees `call` and `result` and reads the exit time itself
// (call.returned()), so that what RECORD's arguments compute is still inside the call's span.
#define MOIRAI_WRAPPER_THEN(Name, params, args, ...) \
  MOIRAI_MPI_WRAPPER MPI_##Name params {             \
    MOIRAI_CALL("MPI_" #Name);                       \
    int result = PMPI_##Name args;                   \
    if (call.recorded()) {                           \
      __VA_ARGS__;                                   \
    }                                                \
    return result;                                   \
  }

// MOIRAI_WRAPPER_SEEING(Name, (PARAMS), (ARGS), RECORD...) is the wrapper of a call with an
// `MPI_Status* status` parameter: ARGS pass `seen` in its place, the program's status, or the
// tool's own where a recorded call was given MPI_STATUS_IGNORE, since RECORD reads what matched;
// the exit time is read right after the call, before RECORD.
#define MOIRAI_WRAPPER_SEEING(Name, params, args, ...)                               \
  MOIRAI_MPI_WRAPPER MPI_##Name params {                                             \
    MOIRAI_CALL("MPI_" #Name);                                                       \
    MPI_Status own;                                                                  \
    MPI_Status* seen = call.recorded() && status == MPI_STATUS_IGNORE ? &own : status; \
    int result = PMPI_##Name args;                                                   \
    if (call.recorded()) {                                                           \
      call.returned();                                                               \
      __VA_ARGS__;                                                                   \
    }                                                                                \
    return result;                                                                   \
  }

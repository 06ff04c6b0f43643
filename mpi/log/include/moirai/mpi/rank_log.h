// The rank log: what the MPI tool (libmoirai_mpi.so) writes for one rank while it runs, and what
// the merge stage reads after the run to make one trace of the whole job (docs/mpi.md).
//
// Each rank writes two files into the job's rank folder, with no communication on the way:
//   rank-<R>.events  fixed-size binary records (RankRecord, 40 bytes each), appended in blocks
//   rank-<R>.defs    text lines, one definition each (see DefinitionLine below), written at once
// A rank killed mid-run leaves both files as they were at its last block write; a rank that ran
// to MPI_Finalize ends its .defs with an `end` line giving its record count.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace moirai::mpi {

// kRankLogVersion is written as the .defs file's first line ("moirai-mpi-rank-log 1").
inline constexpr std::uint32_t kRankLogVersion = 1;
inline constexpr std::string_view kRankLogMagic = "moirai-mpi-rank-log";

// MpiOp is the MPI call a record stands for (value = file field; never renumbered).
enum class MpiOp : std::uint8_t {
  none = 0,
  // life of the rank
  init = 1,          // MPI_Init / MPI_Init_thread: the first record; enter..exit is the call
  finalize = 2,      // MPI_Finalize: the last record of a rank that finished
  abort = 3,         // MPI_Abort: the rank's last record when it aborted
  // point to point, blocking: peer = world rank of dest (send) or of the matched source (recv)
  send = 10, ssend = 11, bsend = 12, rsend = 13,
  recv = 14,
  sendrecv = 15,     // one call: its record is the send half; a `sendrecv_recv` record follows
  sendrecv_recv = 16,
  probe = 17,        // MPI_Probe / MPI_Mprobe: peer, tag = what the status said
  iprobe = 18,       // MPI_Iprobe / MPI_Improbe: as probe when a message was there, else
                     // kFlagNotFound with peer, tag as asked (a poll: no message matched)
  // point to point, nonblocking: the record's index in the rank's stream is its request id
  isend = 20, issend = 21, ibsend = 22, irsend = 23,
  irecv = 24,        // peer, tag as posted (may be kAnySource / kAnyTag); completion says what matched
  send_init = 25, recv_init = 26,  // a persistent request: each MPI_Start makes an instance
  start = 27,        // one instance of persistent request `value` (its send_init/recv_init index)
  mrecv = 28, imrecv = 29,
  // completions: enter..exit is the call, value = how many requests it completed; one `completion`
  // record per request it completed follows (comm kNoComm, peer kNoPeer, tag 0)
  wait = 40, waitall = 41, waitany = 42, waitsome = 43,
  test = 44, testall = 45, testany = 46, testsome = 47,  // a failed test writes no completion
  completion = 48,   // see RankRecord: value = the posting record's index
  // collectives: peer = root's world rank (kNoPeer for N x N), value = bytes this rank sent
  barrier = 60, bcast = 61, reduce = 62, allreduce = 63, gather = 64, gatherv = 65,
  scatter = 66, scatterv = 67, allgather = 68, allgatherv = 69, alltoall = 70, alltoallv = 71,
  reduce_scatter = 72, reduce_scatter_block = 73, scan = 74, exscan = 75,
  // their nonblocking forms: the record's index is the request id, completed like isend
  ibarrier = 80, ibcast = 81, ireduce = 82, iallreduce = 83, igather = 84, igatherv = 85,
  iscatter = 86, iscatterv = 87, iallgather = 88, iallgatherv = 89, ialltoall = 90, ialltoallv = 91,
  ireduce_scatter = 92, ireduce_scatter_block = 93, iscan = 94, iexscan = 95,
  // communicators: collective over `comm`; value = the new communicator's rank-local id
  // (kNoComm when the rank got MPI_COMM_NULL); a `comm` line in .defs gives its members
  comm_split = 100, comm_dup = 101, comm_create = 102, intercomm_create = 103,
  intercomm_merge = 104, comm_free = 105, comm_split_type = 106, comm_idup = 107,
};

// RankRecord is one event of a rank (40 bytes: the format's cost per MPI event).
//   call records: enter and exit are the clock at the call's entry and return (ns, the clock
//     the .defs `clock` line names, already corrected by nothing: the merge applies offsets);
//     comm is the rank-local communicator id (0: MPI_COMM_WORLD, 1: MPI_COMM_SELF);
//     peer a world rank (kNoPeer, kAnySource as posted), tag the tag (kAnyTag as posted);
//     value the bytes (send, recv: the status's count x type size; collectives: this rank's send
//     bytes), or as the op says; site the call-site id (.defs `site` line; 0 unknown).
//   completion records: enter = the bytes received (status), exit = 0, peer and tag from the
//     status (the matched source as a world rank, the matched tag; sends and nonblocking
//     collectives: the peer and tag as posted), value = the index of the
//     posting record (isend, irecv, start, a nonblocking collective), site = the completing
//     call's site, comm unused.
struct RankRecord {
  std::uint8_t op;        // MpiOp
  std::uint8_t flags;     // RecordFlag bits
  std::uint16_t comm;     // rank-local communicator id
  std::int32_t peer;      // world rank, or kNoPeer / kAnySource / kProcNull
  std::int32_t tag;
  std::uint32_t site;
  std::uint64_t enter;
  std::uint64_t exit;
  std::uint64_t value;
};
static_assert(sizeof(RankRecord) == 40);

// RecordFlag bits of RankRecord::flags.
enum RecordFlag : std::uint8_t {
  kFlagWildcardSource = 1,  // posted with MPI_ANY_SOURCE: the recorded match is timing-dependent
  kFlagWildcardTag = 2,     // posted with MPI_ANY_TAG
  kFlagError = 4,           // the call returned an error (its PMPI return code is not MPI_SUCCESS)
  kFlagNested = 8,          // made while another recorded call was in progress (not a new unit)
  kFlagCancelled = 16,      // a completion of a cancelled request
  kFlagNotFound = 32,       // an iprobe that found no message
};

inline constexpr std::int32_t kNoPeer = -1;
inline constexpr std::int32_t kAnySource = -2;
inline constexpr std::int32_t kProcNull = -3;
inline constexpr std::int32_t kAnyTag = -1;
inline constexpr std::uint16_t kWorldComm = 0;
inline constexpr std::uint16_t kSelfComm = 1;
inline constexpr std::uint64_t kNoComm = 0xFFFF;

// The .defs lines, one per line, fields separated by single spaces, text fields last (they may
// hold spaces); a reader refuses an unknown first word unless it starts with "x-" (extensions):
//   moirai-mpi-rank-log 1
//   rank <world rank> <world size>
//   host <host name>
//   pid <pid>
//   command <the program's command line>
//   clock monotonic <ns per tick: 1>              (the clock every record's times are read from)
//   thread_level <required> <provided>            (MPI_Init_thread; MPI_THREAD_SINGLE = 0 ...)
//   library <MPI library version string>
//   offset init <offset ns> <round trip ns>       (this rank's clock minus rank 0's, at MPI_Init)
//   offset finalize <offset ns> <round trip ns>   (the same at MPI_Finalize)
//   site <id> <line> <file> <function>            (function may hold spaces; file may not)
//   comm <local id> <parent local id> <size> <world rank of member 0> ... (intercommunicators:
//        the local group, then `|`, then the remote group; parent 65535: MPI_COMM_WORLD and
//        MPI_COMM_SELF, ids 0 and 1, and a communicator the tool first met in a call it does not
//        wrap, e.g. MPI_Cart_create's, defined then)
//   run_queue_wait init|finalize <ns> <time>     (how long the recording thread had waited for a CPU,
//        the kernel's schedstat run_delay, read at the recording's start and at MPI_Finalize)
//   warning <text>                                (what the tool could not record: shown by the merge)
//   signal <number> <name>                       (a signal that ends the process by default, e.g.
//        SIGTERM from the launcher after another rank's MPI_Abort, came before MPI_Finalize: the
//        records were written first and the rank ends there)
//   end <records written> <finalize time>        (the rank reached MPI_Finalize; absent: cut)

// events_file_name / defs_file_name are rank `rank`'s files inside the rank folder.
inline std::string events_file_name(std::uint32_t rank) { return "rank-" + std::to_string(rank) + ".events"; }
inline std::string defs_file_name(std::uint32_t rank) { return "rank-" + std::to_string(rank) + ".defs"; }

}  // namespace moirai::mpi

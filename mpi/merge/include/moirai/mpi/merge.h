// The merge stage: the rank logs of one MPI job (rank_log.h) made into one trace of the whole
// run, which every view, export and replay reads (docs/mpi.md). Runs after the job, never in it.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace moirai::mpi {

// MergeOptions says where the rank logs are and what to write.
struct MergeOptions {
  std::string ranks_dir;   // the folder the ranks wrote (MOIRAI_MPI_RANKS_DIR)
  std::string trace_path;  // the trace to write
  std::string command_line;  // the launcher's command line, for the trace's metadata ("" : rank 0's)
  // eager_limit: a send of at most this many bytes to a rank on the same node never waits for its
  // receive (Open MPI's shared-memory transport: 4 KiB); a larger blocking send is constrained by
  // the receive's post.
  std::uint64_t eager_limit = 4096;
  // eager_limit_across_nodes is the same for a send to a rank on another node (Open MPI's TCP
  // transport, btl_tcp_eager_limit: 64 KiB).
  std::uint64_t eager_limit_across_nodes = 65536;
};

// CutRank is a rank whose log ends before MPI_Finalize (killed, aborted, or never finalized).
struct CutRank {
  std::uint32_t rank = 0;
  std::uint64_t last_time = 0;   // its last record's exit (ns, merged clock)
  std::uint64_t records = 0;     // records kept
  std::string why;               // "killed or cut (no end line)", "MPI_Abort", ...
};

// MergeResult is what the merge found, for `moirai record`'s summary line and the tests.
struct MergeResult {
  std::uint32_t ranks = 0;
  std::uint32_t nodes = 0;
  std::uint64_t units = 0;
  std::uint64_t messages = 0;     // matched point-to-point messages
  std::uint64_t collectives = 0;  // collective instances (each counted once, not per rank)
  std::uint64_t clock_violations = 0;  // messages and collectives out of clock order before correction
  std::uint64_t clock_violations_left = 0;  // after correction (0 unless correction failed)
  std::vector<CutRank> cut;
  std::vector<std::string> warnings;  // the ranks' own warnings and what the merge noticed
};

// MergeError names what was wrong: the file, the record index or line, and the problem.
class MergeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// merge_rank_logs reads every rank's files in `options.ranks_dir`, matches messages and
// collectives, aligns the clocks, and writes the trace; throws MergeError when the logs cannot
// make a trace (a missing rank, a record the format refuses, unmatched calls it cannot place).
MergeResult merge_rank_logs(const MergeOptions& options);

}  // namespace moirai::mpi

// Reading one job's rank folder: every rank's .defs and .events files (moirai/mpi/rank_log.h),
// checked as they are read, so that the stages after it only see logs the format allows.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "moirai/mpi/rank_log.h"

namespace moirai::mpi {

// CommDef is one `comm` line: a communicator this rank got, its members as world ranks.
struct CommDef {
  std::uint16_t local = 0;
  std::uint16_t parent = 0;
  std::vector<std::int32_t> members;  // the local group, in communicator rank order
  std::vector<std::int32_t> remote;   // an intercommunicator's remote group (empty otherwise)
  bool inter = false;
};

// SiteDef is one `site` line.
struct SiteDef {
  std::uint32_t line = 0;
  std::string file, function;
};

// Offset is one `offset` line: this rank's clock minus rank 0's.
struct Offset {
  std::int64_t offset = 0;
  std::uint64_t round_trip = 0;
};

// RankLog is one rank's files as read: its definitions and its whole records.
struct RankLog {
  std::uint32_t rank = 0;
  std::uint32_t world_size = 0;
  std::string host = "?";
  std::string command;
  std::string defs_path, events_path;
  std::optional<Offset> offset_init, offset_finalize;
  // RunQueueWait is the recording thread's wait for a CPU so far (ns) at `time` (the rank's clock).
  struct RunQueueWait {
    std::uint64_t waited = 0, time = 0;
  };
  std::optional<RunQueueWait> wait_init, wait_finalize;
  std::map<std::uint32_t, SiteDef> sites;
  std::map<std::uint16_t, CommDef> comms;
  std::vector<std::string> warnings;
  std::vector<RankRecord> records;
  bool ended = false;               // an `end` line: the rank reached MPI_Finalize
  std::uint64_t finalize_time = 0;  // the `end` line's
  std::string cut_why;              // why it is cut ("" when it ended)
};

// read_rank_logs reads every rank of the job in `dir`; throws MergeError naming the file, the
// line or record index and the problem (a missing rank, a bad header, an unknown op, ...).
std::vector<RankLog> read_rank_logs(const std::string& dir);

}  // namespace moirai::mpi

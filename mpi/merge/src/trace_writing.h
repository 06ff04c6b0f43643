// Writing the merged trace: each world rank a core with one pinned VP, each stretch between two
// MPI calls a unit, the time inside a call idle until its constraint was satisfied and the rest
// the next unit's decision span, each arc a constraint record at its freeing time, each message's
// envelope and each collective call's bytes a message record (format 3.7).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "communicators.h"
#include "matching.h"
#include "rank_files.h"

namespace moirai::mpi {

// TraceContent is what the trace writer writes besides the calls and arcs.
struct TraceContent {
  std::string path;
  std::string command_line;
  std::vector<std::pair<std::string, std::string>> metadata;  // the `mpi.*` lines
};

// write_trace writes the trace through trace::TraceBuilder; returns the units written. Throws
// std::runtime_error when the file cannot be written.
std::uint64_t write_trace(const std::vector<RankLog>& logs, const Communicators& comms, const Matching& matching,
                          const std::vector<Arc>& arcs, const TraceContent& content);

}  // namespace moirai::mpi

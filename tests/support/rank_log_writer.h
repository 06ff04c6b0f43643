// RankLogWriter: a job's rank folder written by hand (moirai/mpi/rank_log.h), what the MPI tool
// would write, so that the merge's tests know every answer: the tests' TraceBuilder for MPI.
// Times are nanoseconds of each rank's clock; a rank's calls are given in its own order.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "moirai/mpi/rank_log.h"

namespace moirai::test_support {

// Envelope is what a call record carries besides its op and times.
struct Envelope {
  std::int32_t peer = mpi::kNoPeer;
  std::int32_t tag = 0;
  std::uint64_t value = 0;  // bytes, a request's posting record, a new communicator's id
  std::uint16_t comm = mpi::kWorldComm;
  std::uint8_t flags = 0;
  std::uint32_t site = 0;
};

class RankLogWriter {
 public:
  // RankLogWriter prepares a job of `ranks` ranks, all on host "node0" with init at time 1 s.
  explicit RankLogWriter(std::uint32_t ranks) : ranks_(ranks) {
    for (std::uint32_t r = 0; r < ranks; ++r) ranks_[r].defs = {"host node0", "clock monotonic 1"};
  }

  // call adds a call record of `rank` and returns its call index (the calls a unit boundary is
  // made of, counted from MPI_Init = 0; completions and a sendrecv's receive half are none).
  std::uint32_t call(std::uint32_t rank, mpi::MpiOp op, std::uint64_t enter, std::uint64_t exit, Envelope e = {}) {
    auto& r = ranks_.at(rank);
    r.records.push_back({static_cast<std::uint8_t>(op), e.flags, e.comm, e.peer, e.tag, e.site, enter, exit, e.value});
    const bool unit_boundary = op != mpi::MpiOp::sendrecv_recv && (e.flags & mpi::kFlagNested) == 0;
    return unit_boundary ? r.calls++ : r.calls - 1;
  }
  // record is the index the next record of `rank` gets (a request's id).
  std::uint32_t record(std::uint32_t rank) const { return static_cast<std::uint32_t>(ranks_.at(rank).records.size()); }
  // completion adds the completion of request `posted` (a record index) with the status's source,
  // tag and bytes.
  void completion(std::uint32_t rank, std::uint32_t posted, std::int32_t source = mpi::kNoPeer, std::int32_t tag = 0,
                  std::uint64_t bytes = 0, std::uint8_t flags = 0) {
    ranks_.at(rank).records.push_back({static_cast<std::uint8_t>(mpi::MpiOp::completion), flags, 0, source, tag, 0, bytes, 0, posted});
  }
  // line adds a .defs line of `rank` (a `comm`, `site`, `offset`, `host` line...).
  void line(std::uint32_t rank, const std::string& text) { ranks_.at(rank).defs.push_back(text); }
  // cut leaves rank `rank` without its `end` line, as a killed rank's.
  void cut(std::uint32_t rank) { ranks_.at(rank).cut = true; }
  // raw_events appends bytes to `rank`'s events file after its records (a torn last record).
  void raw_events(std::uint32_t rank, std::string bytes) { ranks_.at(rank).tail = std::move(bytes); }

  // write writes every rank's files into `dir` (made if missing); `header` replaces the first
  // .defs line of every rank when not empty.
  void write(const std::filesystem::path& dir, const std::string& header = {}) const {
    std::filesystem::create_directories(dir);
    for (std::uint32_t rank = 0; rank < ranks_.size(); ++rank) {
      const auto& r = ranks_[rank];
      std::ofstream defs(dir / mpi::defs_file_name(rank));
      defs << (header.empty() ? std::string(mpi::kRankLogMagic) + " " + std::to_string(mpi::kRankLogVersion) : header) << '\n'
           << "rank " << rank << ' ' << ranks_.size() << '\n'
           << "command ./prog\n";
      for (const std::string& text : r.defs) defs << text << '\n';
      const std::uint64_t finalize = r.records.empty() ? 0 : r.records.back().exit;
      if (!r.cut) defs << "end " << r.records.size() << ' ' << finalize << '\n';
      std::ofstream events(dir / mpi::events_file_name(rank), std::ios::binary);
      events.write(reinterpret_cast<const char*>(r.records.data()), static_cast<std::streamsize>(r.records.size() * sizeof(mpi::RankRecord)));
      events << r.tail;
      if (!defs || !events) throw std::runtime_error("cannot write the rank logs into " + dir.string());
    }
  }

 private:
  struct Rank {
    std::vector<std::string> defs;
    std::vector<mpi::RankRecord> records;
    std::uint32_t calls = 0;
    bool cut = false;
    std::string tail;
  };
  std::vector<Rank> ranks_;
};

}  // namespace moirai::test_support

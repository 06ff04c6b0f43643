// RankLogWriter: this rank's two files in the rank folder (moirai/mpi/rank_log.h). Records go
// into a 64 KiB buffer written with one write(2) when it fills and at flush(); definition lines
// are written at once, so a rank killed mid-run leaves every definition and its records up to
// the last full buffer.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "moirai/mpi/rank_log.h"

namespace moirai::mpi_tool {

class RankLogWriter {
 public:
  // open creates (truncating) rank `rank`'s files in `folder`; false with `error` set when it
  // cannot (the message names the file and the system's reason).
  bool open(const std::string& folder, int rank, std::string& error);
  bool is_open() const { return events_fd_ >= 0; }

  // append adds one record; its index in the rank's stream is records() before the call.
  void append(const mpi::RankRecord& record) {
    if (used_ == kCapacity) flush();
    buffer_[used_++] = record;
    ++records_;
  }
  std::uint64_t records() const { return records_; }

  // flush writes the buffered records to the .events file.
  void flush();
  // define writes one line (without its newline) to the .defs file at once.
  void define(std::string_view line);
  // close flushes and closes both files.
  void close();

 private:
  static constexpr std::size_t kCapacity = 65536 / sizeof(mpi::RankRecord);
  mpi::RankRecord buffer_[kCapacity];
  std::size_t used_ = 0;
  std::uint64_t records_ = 0;
  int events_fd_ = -1;
  int defs_fd_ = -1;
};

}  // namespace moirai::mpi_tool

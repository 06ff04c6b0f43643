// RankLogWriter: this rank's two files in the rank folder (moirai/mpi/rank_log.h). Records go
// into a 64 KiB buffer written with one write(2) when it fills, at flush() and at the first call
// 100 ms after the last write; definition lines are written at once, so a rank killed mid-run
// leaves every definition and its records up to 100 ms before its death; a terminating signal
// (SIGTERM, as a launcher sends) writes the buffer first (flush_on_signals).
#pragma once

#include <atomic>
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
    std::size_t used = used_.load(std::memory_order_relaxed);
    if (used == kCapacity) {
      flush();
      used = 0;
    }
    buffer_[used] = record;
    used_.store(used + 1, std::memory_order_release);  // a signal's flush sees whole records only
    ++records_;
    // At most kFlushEveryNs of records lie in memory: a rank that dies without a signal it can
    // catch (SIGKILL, the library's own abort when a peer died) loses no more.
    if (record.exit >= flush_due_) {
      if (flush_due_ != 0) flush();
      flush_due_ = record.exit + kFlushEveryNs;
    }
  }
  std::uint64_t records() const { return records_; }

  // flush writes the buffered records to the .events file.
  void flush();
  // define writes one line (without its newline) to the .defs file at once.
  void define(std::string_view line);
  // close flushes and closes both files.
  void close();
  // flush_on_signals makes SIGTERM, SIGINT and SIGHUP, where they still end the process by default,
  // write the buffered records and a `signal` line before the process ends as it would have.
  void flush_on_signals();

 private:
  static void on_signal(int number);
  static constexpr std::uint64_t kFlushEveryNs = 100'000'000;
  static constexpr std::size_t kCapacity = 65536 / sizeof(mpi::RankRecord);
  mpi::RankRecord buffer_[kCapacity];
  std::atomic<std::size_t> used_{0};
  std::atomic<bool> flushing_{false};  // a flush's write is under way: a signal must not write it again
  std::uint64_t records_ = 0;
  std::uint64_t flush_due_ = 0;  // the clock (ns) from which the next call record flushes
  int events_fd_ = -1;
  int defs_fd_ = -1;
};

}  // namespace moirai::mpi_tool

// PAPI counters: which of the requested events this machine has, and one event set per core.
#pragma once

#include <string>
#include <vector>

#include "moirai/instrument/trace_recorder.h"

namespace moirai::instrument::detail {

// PapiCounters probes the requested events once (PAPI reports hardware events as missing on a
// machine without a PMU, such as most virtual machines) and then counts the present ones.
class PapiCounters {
 public:
  explicit PapiCounters(const std::vector<std::string>& requested);
  // status lists every requested event, present or missing with PAPI's reason.
  const std::vector<CounterStatus>& status() const { return status_; }
  // present is how many events are counted.
  std::size_t present() const { return codes_.size(); }
  // start creates and starts this thread's event set; returns its handle (or -1 on failure,
  // reported on stderr once per core: the recording then carries zeros flagged in metadata).
  int start_thread(unsigned core) const;
  // read fills `values` (present() entries) from the event set.
  static void read(int event_set, long long* values) noexcept;
  static void stop_thread(int event_set) noexcept;

 private:
  std::vector<CounterStatus> status_;
  std::vector<int> codes_;
};

}  // namespace moirai::instrument::detail

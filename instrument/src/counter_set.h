// A set of requested counters, each resolved to the backend that counts it on this machine:
// PAPI first, the kernel's perf_event where PAPI cannot.
#pragma once

#include <string>
#include <vector>

#include "counter_catalog.h"
#include "moirai/instrument/counters.h"
#include "papi_counters.h"
#include "perf_event_counters.h"

namespace moirai::instrument::detail {

// CounterSet resolves the requested names once and then counts the present ones per thread.
class CounterSet {
 public:
  explicit CounterSet(const std::vector<std::string>& requested);

  // status lists every requested counter, present (with its backend) or missing with reasons.
  const std::vector<CounterStatus>& status() const { return status_; }
  // present is how many counters each boundary reads.
  std::size_t present() const { return present_; }
  // read_method says how a boundary reads them ("PAPI_read", "perf_event: rdpmc", ...).
  const std::string& read_method() const { return method_; }

  // Thread is one thread's open counters.
  struct Thread {
    PapiThread papi;
    PerfEventGroup kernel;
  };
  // start opens the counters on the calling thread; "" or what failed.
  std::string start(Thread& thread) const;
  // read fills present() values in record order.
  void read(const Thread& thread, long long* values) const noexcept;
  void stop(Thread& thread) const noexcept;

 private:
  std::vector<CounterStatus> status_;
  std::size_t present_ = 0;
  std::vector<int> papi_codes_;
  std::vector<std::size_t> papi_slots_;    // record slot of each PAPI value
  std::vector<KernelEvent> kernel_events_;
  std::vector<std::size_t> kernel_slots_;  // record slot of each kernel value
  std::string method_;
};

}  // namespace moirai::instrument::detail

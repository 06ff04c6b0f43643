// The Linux perf_event counter backend: the kernel's own events, opened with perf_event_open for
// the calling thread, used where PAPI cannot count (its perf_event component is disabled on
// machines whose CPU libpfm4 does not know) or does not know an event.
#pragma once

#include <linux/perf_event.h>

#include <string>
#include <vector>

#include "counter_catalog.h"

namespace moirai::instrument::detail {

// probe_kernel_event opens `event` on the calling thread and closes it again: "" when the kernel
// counts it here, else the reason (no hardware PMU, perf_event_paranoid, ...).
std::string probe_kernel_event(const KernelEvent& event);

// PerfEventGroup counts a list of kernel events on the thread that opened it, as one group, so
// that one boundary reads them all at once: with rdpmc when every event is a hardware counter
// the kernel lets user space read, else with one read(2) of the group (PERF_FORMAT_GROUP).
class PerfEventGroup {
 public:
  PerfEventGroup() = default;
  ~PerfEventGroup() { close(); }
  PerfEventGroup(const PerfEventGroup&) = delete;
  PerfEventGroup& operator=(const PerfEventGroup&) = delete;

  // open starts counting `events` on the calling thread; "" on success, else the reason.
  std::string open(const std::vector<KernelEvent>& events);
  // read fills one value per event, in open()'s order (zeros when the group is not open).
  void read(long long* values) const noexcept;
  void close() noexcept;
  // method says how read() reads: "rdpmc", "read(2) of the group", or why rdpmc is not used.
  const std::string& method() const { return method_; }

 private:
  bool read_rdpmc(long long* values) const noexcept;

  std::vector<int> fds_;                       // in group order: fds_[0] leads
  std::vector<std::size_t> group_to_event_;    // group position -> position in open()'s list
  std::vector<perf_event_mmap_page*> pages_;   // for rdpmc, one per event
  bool rdpmc_ = false;
  std::string method_;
};

}  // namespace moirai::instrument::detail

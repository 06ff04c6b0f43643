// The real machine: one OS thread per core, pinned with hwloc to its own processing unit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "moirai/proto_runtime/machine.h"

namespace moirai::proto {

// RealMachine animates core k on a thread bound to hwloc's k-th processing unit. Idle cores
// spin briefly, then park until notify_work.
class RealMachine final : public Machine {
 public:
  // kIdleSpinNs is how long an idle core spins before it parks: long enough to catch the reply
  // in a cross-core exchange without a kernel round trip, short enough that a parked core
  // costs nothing. The cost model's idle_spin defaults to it.
  static constexpr std::uint64_t kIdleSpinNs = 50'000;

  // RealMachine uses `cores` processing units, 0 meaning all; more than the machine has throws
  // ConfigError.
  explicit RealMachine(std::size_t cores = 0);
  ~RealMachine() override;

  std::size_t core_count() const override;
  void drive(CoreScheduler& scheduler) override;
  void notify_work(CoreId core) override;
  void notify_handed(CoreId core) override;
  std::string describe_core(CoreId core) const override;

  // parked tells whether `core` found no work, spun its kIdleSpinNs and announced that it sleeps
  // on its wake-up word (until a notify wakes it): what a test waits for, instead of a time,
  // before it makes work for a parked core.
  bool parked(CoreId core) const noexcept;

  // available_cores is the number of processing units hwloc sees on this machine.
  static std::size_t available_cores();
  // pu_os_index is the operating system's number of the processing unit core `core` runs on.
  unsigned pu_os_index(CoreId core) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace moirai::proto

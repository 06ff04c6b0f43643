// TimeSource: the clock of a machine that keeps its own time (a simulation), read by recorders
// instead of the host's.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "moirai/core/ids.h"

namespace moirai {

// TimeSource is a per-core clock in ticks; a recorder handed one reads it at every point.
class TimeSource {
 public:
  virtual ~TimeSource() = default;
  // now is `core`'s current time in ticks (called only on the thread animating `core`).
  virtual std::uint64_t now(CoreId core) const noexcept = 0;
  // hz is how many ticks make one second.
  virtual double hz() const noexcept = 0;
  // source names the clock for the trace header's clock_source (e.g. "virtual").
  virtual std::string source() const = 0;
  // header lists extra key=value pairs the trace header carries (machine, topology, ...); a
  // key the recorder writes itself (topology) is replaced by the one given here.
  virtual std::vector<std::pair<std::string, std::string>> header() const = 0;
};

}  // namespace moirai

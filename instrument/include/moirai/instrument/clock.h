// The recording clock: the invariant TSC when the CPU has one, else CLOCK_MONOTONIC.
#pragma once

#include <cstdint>
#include <string>

#include "moirai/core/time_source.h"

namespace moirai::instrument {

// ClockInfo says what Clock::now counts and how fast.
struct ClockInfo {
  std::string source;  // "tsc" or "monotonic"
  double hz = 0;       // ticks per second (TSC: calibrated against CLOCK_MONOTONIC)
};

// Clock reads the timestamp every record carries. It uses the TSC only when /proc/cpuinfo
// reports it constant and non-stop (then readings on different cores are comparable), because
// that costs a few nanoseconds instead of a vDSO call.
class Clock {
 public:
  // now is the current reading in ticks.
  static std::uint64_t now() noexcept;
  // now reads `core`'s clock in a run that keeps its own (`time`, a simulation), else the host's.
  static std::uint64_t now(const TimeSource* time, CoreId core) noexcept {
    return time != nullptr ? time->now(core) : now();
  }
  // info chooses the source on first use and calibrates it (about 20 ms, once per process).
  static const ClockInfo& info();
};

}  // namespace moirai::instrument

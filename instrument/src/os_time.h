// What the OS took from a unit on a real core: wall time its thread did not run, involuntary
// context switches and CPU migrations during the unit's work.
#pragma once

#include <cstdint>
#include <string>

namespace moirai::instrument::detail {

// OsTaken is what the OS took from one unit's work span.
struct OsTaken {
  std::uint64_t taken = 0;  // clock ticks the thread did not run
  std::uint32_t switches = 0;
  std::uint32_t migrations = 0;
};

// OsTimeProbe watches one core's thread: the thread's CPU time (CLOCK_THREAD_CPUTIME_ID, a
// system call) against wall time. The kernel's perf_event page looked cheaper, but its software
// counts are not refreshed at every switch-in, so it missed preemptions (tests/os_time_test.cpp
// compares with the task clock). Hypervisor steal is not thread CPU time either way; it is
// reported per run instead.
//
// A system call per unit boundary would cost a fine-grained program more than its work, so the
// CPU time is read only where the OS can have taken something worth telling: at the end of a
// unit whose wall span is kMeasuredNs or more (the OS cannot take more from a unit than its
// span, and a preemption makes the unit it hits long), and at the begin of a unit after a gap
// as long since the previous unit's end (idle, or overhead the OS may have interrupted), so what
// the OS took there is not charged to the unit. Taken time is the wall time less the CPU time
// since the last reading, capped at the unit's span: disturbances shorter than kMeasuredNs in
// the short units and gaps before it may land in it.
class OsTimeProbe {
 public:
  // kMinTaken is the smallest gap counted as taken: below it, the two clocks' reading order
  // (a system call takes about a microsecond on a virtual machine) is all there is.
  static constexpr double kMinTakenNs = 5000;
  // kMeasuredNs is the shortest unit (or gap between units) after which the CPU time is read.
  static constexpr double kMeasuredNs = 100000;

  // start begins watching the calling thread at clock reading `now`; `hz` is the recorder's
  // clock rate. Returns the method, for the trace's metadata.
  std::string start(double hz, std::uint64_t now);
  // begin marks a unit's work starting at clock reading `now` (a system call only after a long
  // gap).
  void begin(std::uint64_t now) noexcept;
  // end marks it ending at `now`; true, with `out` filled, when the OS took something.
  bool end(std::uint64_t now, OsTaken& out) noexcept;
  // settle takes `now`, the clock read again after end(): a preemption that was due takes effect
  // when one of end()'s system calls returns, after its reading `end`, so what the OS took there
  // is the unit's (its end moves to `now`, `taken` and `out` grow by it), not the runtime's
  // time after the unit. Returns the unit's end.
  std::uint64_t settle(std::uint64_t end, std::uint64_t now, OsTaken& out, bool& taken) noexcept;
  // made_system_calls says whether the last end() read the thread's CPU time (settle is for those).
  bool made_system_calls() const noexcept { return called_; }
  // thread_cpu_ns is the calling thread's CPU time so far (a system call).
  static std::uint64_t thread_cpu_ns() noexcept;

 private:
  double ns_per_tick_ = 1;
  std::uint64_t begin_wall_ = 0, previous_end_ = 0;
  std::uint64_t last_wall_ = 0, last_cpu_ = 0;  // the last reading of both clocks
  int begin_cpu_id_ = -1;
  long involuntary_ = -1;  // involuntary switches at the last reading
  bool called_ = false;    // the last end() made system calls
};

}  // namespace moirai::instrument::detail

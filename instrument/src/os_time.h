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

// OsTimeProbe watches one core's thread: the thread's CPU time read around each unit's work
// (CLOCK_THREAD_CPUTIME_ID, a system call each), against the unit's wall time. The kernel's
// perf_event page looked cheaper, but its software counts are not refreshed at every switch-in,
// so it missed preemptions (tests/os_time_test.cpp compares with the task clock). Hypervisor
// steal is not thread CPU time either way; it is reported per run instead.
class OsTimeProbe {
 public:
  // kMinTaken is the smallest gap counted as taken: below it, the two clocks' reading order
  // (a system call takes about a microsecond on a virtual machine) is all there is.
  static constexpr double kMinTakenNs = 5000;

  // start begins watching the calling thread; `hz` is the recorder's clock rate. Returns the
  // method, for the trace's metadata.
  std::string start(double hz);
  // begin marks a unit's work starting at clock reading `now`.
  void begin(std::uint64_t now) noexcept;
  // end marks it ending at `now`; true, with `out` filled, when the OS took something.
  bool end(std::uint64_t now, OsTaken& out) noexcept;
  // thread_cpu_ns is the calling thread's CPU time so far (a system call).
  static std::uint64_t thread_cpu_ns() noexcept;

 private:
  double ns_per_tick_ = 1;
  std::uint64_t begin_wall_ = 0, begin_cpu_ = 0;
  int begin_cpu_id_ = -1;
  long involuntary_ = -1;  // involuntary switches at the last reading
};

}  // namespace moirai::instrument::detail

#include "os_time.h"

#include <sched.h>
#include <sys/resource.h>
#include <time.h>

#include <algorithm>

namespace moirai::instrument::detail {

namespace {

long involuntary_switches() noexcept {
  rusage usage{};
  getrusage(RUSAGE_THREAD, &usage);
  return usage.ru_nivcsw;
}

}  // namespace

std::uint64_t OsTimeProbe::thread_cpu_ns() noexcept {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<std::uint64_t>(ts.tv_nsec);
}

std::string OsTimeProbe::start(double hz, std::uint64_t now) {
  ns_per_tick_ = 1e9 / hz;
  involuntary_ = involuntary_switches();
  last_wall_ = previous_end_ = now;
  last_cpu_ = thread_cpu_ns();
  return "thread CPU time around every unit or gap between units of 100 us or more (clock_gettime), switches from getrusage";
}

void OsTimeProbe::begin(std::uint64_t now) noexcept {
  begin_wall_ = now;
  begin_cpu_id_ = sched_getcpu();  // vDSO or rseq: no system call
  if (static_cast<double>(now - previous_end_) * ns_per_tick_ >= kMeasuredNs) {
    last_wall_ = now;
    last_cpu_ = thread_cpu_ns();
  }
}

bool OsTimeProbe::end(std::uint64_t now, OsTaken& out) noexcept {
  const bool migrated = sched_getcpu() != begin_cpu_id_;
  const double span_ns = static_cast<double>(now - begin_wall_) * ns_per_tick_;
  previous_end_ = now;
  called_ = span_ns >= kMeasuredNs || migrated;
  if (!called_) return false;
  const std::uint64_t cpu = thread_cpu_ns();
  const double interval_ns = static_cast<double>(now - last_wall_) * ns_per_tick_;
  const double taken_ns = std::min(span_ns, interval_ns - static_cast<double>(cpu - last_cpu_));
  last_wall_ = now;
  last_cpu_ = cpu;
  if (taken_ns < kMinTakenNs && !migrated) return false;
  // Switches since the last unit the OS took from: an involuntary switch takes time, so the
  // units in between had none.
  const long involuntary = involuntary_switches();
  out.taken = std::min(now - begin_wall_, static_cast<std::uint64_t>(std::max(0.0, taken_ns) / ns_per_tick_));
  out.switches = static_cast<std::uint32_t>(std::max(0L, involuntary - involuntary_));
  out.migrations = migrated ? 1 : 0;
  involuntary_ = involuntary;
  return true;
}

std::uint64_t OsTimeProbe::settle(std::uint64_t end, std::uint64_t now, OsTaken& out, bool& taken) noexcept {
  if (now <= end || static_cast<double>(now - end) * ns_per_tick_ < kMinTakenNs) return end;
  if (!taken) out = OsTaken{};
  taken = true;
  out.taken += now - end;
  // The thread CPU time read in end() stands: only the system calls' return ran since.
  last_wall_ = previous_end_ = now;
  return now;
}

}  // namespace moirai::instrument::detail

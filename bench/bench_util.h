// Shared helpers of moirai_bench: how every benchmark reports its per-operation cost.
#pragma once

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>

namespace moirai::bench {

using Clock = std::chrono::steady_clock;

// seconds_between converts a steady_clock interval to seconds.
inline double seconds_between(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

// OpTally adds up the measured time and the operations it covered over all iterations of one
// benchmark run, and reports their quotient as the counter `ns_per_op`: the figure every row
// of bench/run_bench.sh's table is read from. Only time measured around the operations
// themselves goes in; start-up and tear-down of a runtime or thread never do.
class OpTally {
 public:
  void add(double seconds, std::uint64_t ops) {
    seconds_ += seconds;
    ops_ += ops;
  }
  void report(benchmark::State& state, const char* op_name) const {
    if (ops_ == 0) return;
    state.counters["ns_per_op"] = benchmark::Counter(seconds_ * 1e9 / static_cast<double>(ops_));
    state.counters["ops"] = benchmark::Counter(static_cast<double>(ops_));
    state.SetLabel(op_name);
  }

 private:
  double seconds_ = 0.0;
  std::uint64_t ops_ = 0;
};

}  // namespace moirai::bench

// VSs on the real machine: submitting and running empty tasks, independent or chained through
// one datum (a read-after-write dependence each).
//
// As in ssr_bench.cpp, one benchmark iteration is one vss::run of a batch; the interval runs
// inside the seed from just before its first submit to the end of its taskwait, so start-up
// and shut-down stay out. It covers every submit handler, every task's VP creation (a pooled
// stack), its one unit and its end handler.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>

#include "bench_util.h"
#include "moirai/proto_runtime/real_machine.h"
#include "moirai/vss/vss.h"

namespace {

using moirai::bench::Clock;
using moirai::bench::OpTally;
using moirai::bench::seconds_between;
namespace vss = moirai::vss;

constexpr std::uint64_t kTaskBatch = 20'000;  // tasks per vss::run

// task_batch runs one VSs program whose seed submits `tasks` empty tasks on `cores` cores,
// each updating one shared datum when `chained`, and waits for them.
double task_batch(std::size_t cores, bool chained, std::uint64_t tasks) {
  double seconds = 0.0;
  vss::run([&seconds, chained, tasks](vss::Context& ctx) {
    std::uint64_t datum = 0;
    const Clock::time_point start = Clock::now();
    for (std::uint64_t i = 0; i < tasks; ++i) {
      if (chained) {
        ctx.submit([&datum](vss::Context&) { ++datum; }, {vss::inout(datum)});
      } else {
        ctx.submit([](vss::Context&) {});
      }
    }
    ctx.taskwait();
    seconds = seconds_between(start, Clock::now());
  }, {.cores = cores});
  return seconds;
}

void BM_VssTask(benchmark::State& state, std::size_t cores, bool chained) {
  if (moirai::proto::RealMachine::available_cores() < cores) {
    state.SkipWithError(("needs " + std::to_string(cores) + " processing units").c_str());
    return;
  }
  OpTally tally;
  for (auto _ : state) {
    const double seconds = task_batch(cores, chained, kTaskBatch);
    state.SetIterationTime(seconds);
    tally.add(seconds, kTaskBatch);
  }
  tally.report(state, chained ? "submit + run, chained" : "submit + run");
}
BENCHMARK_CAPTURE(BM_VssTask, empty_one_core, 1, false)->UseManualTime();
BENCHMARK_CAPTURE(BM_VssTask, empty_two_cores, 2, false)->UseManualTime();
BENCHMARK_CAPTURE(BM_VssTask, chained_one_core, 1, true)->UseManualTime();
BENCHMARK_CAPTURE(BM_VssTask, chained_two_cores, 2, true)->UseManualTime();

}  // namespace

// The matmul application (apps/matmul) at its default size and settings on 1 and on 2 cores:
// the speed-up SSR delivers on a real, if small, program.
#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "bench_util.h"
#include "matmul.h"
#include "moirai/proto_runtime/real_machine.h"

namespace {

using moirai::bench::OpTally;

// One iteration is one run_matmul with the default MatmulConfig except for the core count. The
// iteration time is MatmulResult::seconds, which run_matmul measures from the divider's start
// to its receipt of "all done": it leaves out the runtime's start-up and shut-down and the
// generation of A and B, and takes in everything else (worker creation, the copy-transpose
// singleton, the multiply, the result messages).
void BM_Matmul(benchmark::State& state) {
  const auto cores = static_cast<std::size_t>(state.range(0));
  if (moirai::proto::RealMachine::available_cores() < cores) {
    state.SkipWithError(("needs " + std::to_string(cores) + " processing units").c_str());
    return;
  }
  moirai::matmul::MatmulConfig config;
  config.cores = cores;
  OpTally tally;
  double flops = 0.0;
  for (auto _ : state) {
    const moirai::matmul::MatmulResult result = moirai::matmul::run_matmul(config);
    state.SetIterationTime(result.seconds);
    tally.add(result.seconds, 1);
    flops += 2.0 * static_cast<double>(result.size) * static_cast<double>(result.size) *
             static_cast<double>(result.size);
    benchmark::DoNotOptimize(result.checksum);
  }
  tally.report(state, "multiply");
  state.counters["size"] = benchmark::Counter(static_cast<double>(config.size));
  state.counters["pieces"] = benchmark::Counter(static_cast<double>(config.pieces));
  state.counters["FLOPS"] = benchmark::Counter(flops, benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Matmul)->ArgName("cores")->Arg(1)->Arg(2)->UseManualTime()->Unit(benchmark::kMillisecond);

}  // namespace

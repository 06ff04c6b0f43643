// The simulated machine's own speed: simulated units per second of host time with declared
// work (issue 5 asks for at least 1,000,000), on 2, 40 and 1024 virtual cores, with no observer
// and with a trace being written.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "bench_util.h"
#include "moirai/instrument/trace_recorder.h"
#include "moirai/proto_runtime/sim_machine.h"
#include "moirai/ssr/ssr.h"

namespace {

using namespace moirai;
using moirai::bench::Clock;

inline const ssr::MessageType<ssr::VpRef> kHello{"hello"};
constexpr int kPairs = 20;
constexpr int kRounds = 5000;

// pairs_ping_pong: kPairs pairs of VPs, each pair on two cores, bounce a counter kRounds times;
// every unit declares 1000 cycles of work.
void pairs_ping_pong(ssr::Context& ctx) {
  for (int p = 0; p < kPairs; ++p) {
    const auto first = static_cast<CoreId>((2 * p) % ctx.core_count());
    const auto second = static_cast<CoreId>((2 * p + 1) % ctx.core_count());
    const ssr::VpRef pong = ctx.create_vp(
        [](ssr::Context& me) {
          const ssr::VpRef ping = me.receive_of_type_to(kHello);
          for (int i = 0; i < kRounds; ++i) {
            me.charge_work(1000);
            me.send_from_to(ping, me.receive_from_to<int>(ping) + 1);
          }
        },
        {.name = "pong", .core = second});
    ctx.create_vp(
        [pong](ssr::Context& me) {
          me.send_of_type_to(kHello, pong, me.self());
          for (int i = 0; i < kRounds; ++i) {
            me.charge_work(1000);
            me.send_from_to(pong, i);
            (void)me.receive_from_to<int>(pong);
          }
        },
        {.name = "ping", .core = first});
  }
}

void BM_SimDeclaredUnits(benchmark::State& state) {
  const auto cores = static_cast<std::size_t>(state.range(0));
  const bool traced = state.range(1) != 0;
  const bool stretched = state.range(2) != 0;
  // With a fitted work model (the reference machine's shape), every unit's begin and end re-paces
  // the busy cores' work (processor sharing) instead of adding to one clock.
  proto::CostModel costs = proto::CostModel::default_model();
  if (stretched) {
    costs.work.rate = 1.8;
    costs.work.stretch_socket = 0.03;
    costs.work.core_spread = 0.17;
  }
  double seconds = 0;
  double units = 0;
  for (auto _ : state) {
    proto::SimMachine machine(proto::SimConfig{.topology = {1, cores}, .work = proto::SimWork::declared, .factor = 1.0, .costs = costs});
    const std::string path = "/tmp/moirai_sim_bench_" + std::to_string(::getpid()) + ".mtrace";
    std::unique_ptr<instrument::TraceRecorder> recorder;
    ssr::RunOptions options;
    if (traced) {
      recorder = std::make_unique<instrument::TraceRecorder>(instrument::RecorderOptions{path, {}, "sim_bench", 256 * 1024});
      options.observer = recorder.get();
    }
    const auto begin = Clock::now();
    ssr::run(machine, pairs_ping_pong, options);
    const auto end = Clock::now();
    if (recorder) {
      recorder->finish();
      std::remove(path.c_str());
    }
    state.SetIterationTime(moirai::bench::seconds_between(begin, end));
    seconds += moirai::bench::seconds_between(begin, end);
    units += static_cast<double>(machine.units());
  }
  state.counters["units"] = benchmark::Counter(units / static_cast<double>(state.iterations()));
  state.counters["units_per_s"] = benchmark::Counter(units / seconds);
  state.SetLabel(std::string(traced ? "traced" : "no observer") + (stretched ? ", fitted work model" : ""));
}
BENCHMARK(BM_SimDeclaredUnits)
    ->ArgNames({"cores", "traced", "stretched"})
    ->Args({2, 0, 0})->Args({40, 0, 0})->Args({1024, 0, 0})->Args({40, 1, 0})
    ->Args({40, 0, 1})->Args({1024, 0, 1})
    ->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace

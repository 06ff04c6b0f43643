// The trace recorder's hot path, driven directly: what one record costs a core as the runtime
// calls the observer. No runtime runs, so the figure is the recorder's alone (clock readings,
// the copy into the core's buffer, the hand-off of full buffers to the writer thread, whose
// write(2) calls run on another thread and cost the core only when it has to wait).
//
//   BM_RecordUnit        one unit's life-line: unit_begin, unit_end, handler_enter,
//                        handler_exit (five clock readings, one 72-byte record)
//   BM_RecordConstraint  one constraint record (one clock reading, one 40-byte record)
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "bench_util.h"
#include "moirai/instrument/trace_recorder.h"

namespace {

namespace instrument = moirai::instrument;
using moirai::bench::Clock;
using moirai::bench::OpTally;
using moirai::bench::seconds_between;

constexpr std::uint64_t kBatch = 1'000'000;  // records per iteration

template <class Record>
void measure(benchmark::State& state, Record record) {
  OpTally tally;
  for (auto _ : state) {
    const std::string path = "/tmp/moirai_recorder_bench_" + std::to_string(::getpid()) + ".mtrace";
    instrument::TraceRecorder recorder(instrument::RecorderOptions{path, {}, "recorder_bench"});
    recorder.run_start({"bench", {{"end VP", moirai::ConstructRole::end, ""}, {"step", moirai::ConstructRole::other, ""}}, {}}, 1);
    recorder.core_start(0);
    const auto begin = Clock::now();
    for (std::uint64_t i = 1; i <= kBatch; ++i) record(recorder, i);
    const auto end = Clock::now();
    recorder.core_stop(0);
    recorder.finish();
    std::remove(path.c_str());
    state.SetIterationTime(seconds_between(begin, end));
    tally.add(seconds_between(begin, end), kBatch);
  }
  tally.report(state, "record");
}

void BM_RecordUnit(benchmark::State& state) {
  constexpr moirai::CallSite kSite{"recorder_bench.cpp", 1, "loop"};
  measure(state, [&](instrument::TraceRecorder& recorder, std::uint64_t unit) {
    recorder.unit_begin(0, 1, unit);
    recorder.unit_end(0, 1, unit, 1, kSite);
    recorder.handler_enter(0, 1, unit);
    recorder.handler_exit(0, 1, unit);
  });
}
BENCHMARK(BM_RecordUnit)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(5);

void BM_RecordConstraint(benchmark::State& state) {
  measure(state, [](instrument::TraceRecorder& recorder, std::uint64_t unit) {
    recorder.constraint(0, 1, unit, unit + 1, 0);
  });
}
BENCHMARK(BM_RecordConstraint)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(5);

}  // namespace

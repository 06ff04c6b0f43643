// SSR on the real machine: the send_from_to / receive_from_to ping-pong and VP create + end.
//
// A Google Benchmark loop cannot run inside a VP (the State object is driven from the
// benchmark's own thread), so each benchmark iteration is one ssr::run of a fixed batch of
// operations. The clock is read inside the VPs, around the batch only: hwloc topology loading,
// thread start, the seed VP's creation, warm-up round trips, and the run's shut-down are all
// outside the measured interval. The iteration time handed to Google Benchmark
// (UseManualTime) is that interval; the counter ns_per_op divides it by the batch size.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

#include "atomic_anchor.h"
#include "bench_util.h"
#include "moirai/instrument/trace_recorder.h"
#include "moirai/proto_runtime/real_machine.h"
#include "moirai/ssr/run.h"
#include "moirai/trace/reader.h"

namespace {

using moirai::bench::Clock;
using moirai::bench::OpTally;
using moirai::bench::seconds_between;
namespace ssr = moirai::ssr;

constexpr std::uint64_t kPingPongBatch = 50'000;  // round trips per ssr::run
constexpr std::uint64_t kWarmupRoundTrips = 1'000;
constexpr std::uint64_t kCreateBatch = 2'000;     // children per ssr::run

// Placement says where the VPs of one benchmark live.
enum class Placement {
  same_core,      // a 2-core run, every VP pinned to core 0 (core 1 idles and parks)
  one_core_run,   // a 1-core run (nothing else in the machine)
  two_cores,      // a 2-core run, ping on core 0 and pong on core 1
  any_core,       // a 2-core run, the assigner places the children
  other_core,     // a 2-core run, creator on core 0, every child pinned to core 1
};

std::size_t run_cores(Placement placement) { return placement == Placement::one_core_run ? 1 : 2; }

bool machine_has(benchmark::State& state, std::size_t cores) {
  if (moirai::proto::RealMachine::available_cores() >= cores) return true;
  state.SkipWithError(("needs " + std::to_string(cores) + " processing units").c_str());
  return false;
}

// Batch is what one ssr::run of a benchmark measured: the timed interval and the run's counts.
struct Batch {
  double seconds = 0.0;
  moirai::proto::RunStats stats;
};

// ping_pong_batch runs one SSR program in which VP "ping" sends a number to VP "pong" with
// send_from_to, pong takes it with receive_from_to and sends it back the same way, `round_trips`
// times after a warm-up; the interval is the timed round trips, measured in ping.
Batch ping_pong_batch(Placement placement, std::uint64_t round_trips) {
  double seconds = 0.0;
  ssr::RunOptions options;
  options.cores = run_cores(placement);
  options.seed_name = "ping";
  options.seed_core = 0;
  const moirai::proto::RunStats stats = ssr::run(
      [&seconds, placement, round_trips](ssr::Context& ctx) {
        const ssr::VpRef ping = ctx.self();
        const std::uint64_t total = kWarmupRoundTrips + round_trips;
        ssr::CreateOptions pong_options;
        pong_options.name = "pong";
        pong_options.core = placement == Placement::two_cores ? 1 : 0;
        const ssr::VpRef pong = ctx.create_vp(
            [ping, total](ssr::Context& c) {
              for (std::uint64_t i = 0; i < total; ++i) {
                const std::uint64_t value = c.receive_from_to<std::uint64_t>(ping);
                c.send_from_to(ping, value + 1);
              }
            },
            pong_options);

        std::uint64_t value = 0;
        for (std::uint64_t i = 0; i < kWarmupRoundTrips; ++i) {
          ctx.send_from_to(pong, value);
          value = ctx.receive_from_to<std::uint64_t>(pong);
        }
        const Clock::time_point start = Clock::now();
        for (std::uint64_t i = 0; i < round_trips; ++i) {
          ctx.send_from_to(pong, value);
          value = ctx.receive_from_to<std::uint64_t>(pong);
        }
        const Clock::time_point end = Clock::now();
        benchmark::DoNotOptimize(value);
        seconds = seconds_between(start, end);
      },
      options);
  return {seconds, stats};
}

void BM_SsrPingPong(benchmark::State& state, Placement placement) {
  if (!machine_has(state, run_cores(placement))) return;
  OpTally tally;
  Batch batch;
  // The two-core row runs the atomic anchor (atomic_anchor.h) on the same two PUs right before
  // each of its batches: this VM's cross-core latency changes several-fold from one minute to
  // the next, and the ratio to the anchor is only meaningful over the same spell.
  const bool anchored = placement == Placement::two_cores;
  double anchor_seconds = 0.0;
  for (auto _ : state) {
    if (anchored) {
      const moirai::bench::AnchorBatch anchor = moirai::bench::atomic_ping_pong(kPingPongBatch);
      if (!anchor.error.empty()) {
        state.SkipWithError(anchor.error.c_str());
        return;
      }
      anchor_seconds += anchor.seconds;
    }
    batch = ping_pong_batch(placement, kPingPongBatch);
    state.SetIterationTime(batch.seconds);
    tally.add(batch.seconds, kPingPongBatch);
  }
  tally.report(state, "round trip");
  if (anchored) {
    const double ops = static_cast<double>(kPingPongBatch) * static_cast<double>(state.iterations());
    state.counters["anchor_ns_per_op"] = anchor_seconds * 1e9 / ops;
  }
  // How much runtime work one round trip is: units animated (each one a switch into a VP and
  // back to its core's scheduler) and construct requests handled, over the whole last run.
  const double round_trips = static_cast<double>(kWarmupRoundTrips + kPingPongBatch);
  state.counters["units_per_op"] = static_cast<double>(batch.stats.units_animated) / round_trips;
  state.counters["requests_per_op"] =
      static_cast<double>(batch.stats.requests_handled) / round_trips;
}
BENCHMARK_CAPTURE(BM_SsrPingPong, same_core, Placement::same_core)->UseManualTime();
BENCHMARK_CAPTURE(BM_SsrPingPong, one_core_run, Placement::one_core_run)->UseManualTime();
BENCHMARK_CAPTURE(BM_SsrPingPong, two_cores, Placement::two_cores)->UseManualTime();

// creator_run is the run of the creation benchmarks: `cores` cores, the seed "creator" on core 0.
ssr::RunOptions creator_run(std::size_t cores) {
  ssr::RunOptions options;
  options.cores = cores;
  options.seed_name = "creator";
  options.seed_core = 0;
  return options;
}

// child_on is how the creation benchmarks create a child: named "child", on `core`.
ssr::CreateOptions child_on(moirai::CoreId core) {
  ssr::CreateOptions options;
  options.name = "child";
  options.core = core;
  return options;
}

// create_end_batch runs one SSR program whose seed creates `children` VPs that return at once.
// The interval runs from just before the first create_vp to the moment the last child to
// finish its body does so: it covers every create_vp construct, every child's first unit and
// every child's end (kEndVp handling, stack unwinding, freeing its guarded stack) except the
// end handling of that one last child.
Batch create_end_batch(Placement placement, std::uint64_t children) {
  struct Timing {
    std::atomic<std::uint64_t> finished{0};
    Clock::time_point start;
    Clock::time_point end;
  } timing;
  const moirai::proto::RunStats stats = ssr::run(
      [&timing, placement, children](ssr::Context& ctx) {
        const moirai::CoreId where = placement == Placement::any_core     ? moirai::kAnyCore
                                     : placement == Placement::other_core ? 1
                                                                          : 0;
        const ssr::CreateOptions child_options = child_on(where);
        timing.start = Clock::now();
        for (std::uint64_t i = 0; i < children; ++i) {
          ctx.create_vp(
              [&timing, children](ssr::Context&) {
                if (timing.finished.fetch_add(1, std::memory_order_acq_rel) + 1 == children) {
                  timing.end = Clock::now();
                }
              },
              child_options);
        }
      },
      creator_run(run_cores(placement)));
  return {seconds_between(timing.start, timing.end), stats};
}

void BM_SsrCreateEnd(benchmark::State& state, Placement placement) {
  if (!machine_has(state, run_cores(placement))) return;
  OpTally tally;
  // One untimed batch first: the runs of a process share their stacks (one pool per size), so
  // every timed batch measures the steady state, not the first run's mapping of its stacks.
  Batch batch = create_end_batch(placement, kCreateBatch);
  for (auto _ : state) {
    batch = create_end_batch(placement, kCreateBatch);
    state.SetIterationTime(batch.seconds);
    tally.add(batch.seconds, kCreateBatch);
  }
  tally.report(state, "create + end");
  const double children = static_cast<double>(kCreateBatch);
  state.counters["units_per_op"] = static_cast<double>(batch.stats.units_animated) / children;
  state.counters["requests_per_op"] =
      static_cast<double>(batch.stats.requests_handled) / children;
  state.counters["reused_per_op"] = static_cast<double>(batch.stats.vps_reused) / children;
}
BENCHMARK_CAPTURE(BM_SsrCreateEnd, same_core, Placement::same_core)->UseManualTime();
BENCHMARK_CAPTURE(BM_SsrCreateEnd, any_core, Placement::any_core)->UseManualTime();
BENCHMARK_CAPTURE(BM_SsrCreateEnd, other_core, Placement::other_core)->UseManualTime();

// create_wake_batch runs one SSR program whose seed, on core 0, creates `children` VPs pinned to
// core 1 one at a time, each after core 1 has been idle for `idle` since the previous child ran:
// 10 us keeps it spinning, 200 us is past RealMachine::kIdleSpinNs, so it has parked. The
// interval is the creator's create_vp calls only: the handler, the hand-over, and the wake-up call
// that the creating core makes after the unlock (a kernel call when core 1 has parked), which the
// recording shows as the creator's next decision.
Batch create_wake_batch(std::chrono::microseconds idle, std::uint64_t children,
                        moirai::RuntimeObserver* observer = nullptr) {
  ssr::RunOptions options = creator_run(2);
  options.observer = observer;
  double seconds = 0.0;
  const moirai::proto::RunStats stats = ssr::run(
      [&seconds, idle, children](ssr::Context& ctx) {
        const ssr::CreateOptions child_options = child_on(1);
        // When the last child ran, as Clock ticks since the epoch; 0: not yet.
        std::atomic<Clock::rep> ran_at{0};
        const auto wait_for_child = [&ran_at] {
          Clock::rep at = 0;
          while ((at = ran_at.load(std::memory_order_acquire)) == 0) {
          }
          return Clock::time_point(Clock::duration(at));
        };
        for (std::uint64_t i = 0; i < children; ++i) {
          if (i > 0) {
            const Clock::time_point idle_until = wait_for_child() + idle;
            while (Clock::now() < idle_until) {
            }
          }
          ran_at.store(0, std::memory_order_relaxed);
          const Clock::time_point start = Clock::now();
          ctx.create_vp(
              [&ran_at](ssr::Context&) {
                ran_at.store(Clock::now().time_since_epoch().count(), std::memory_order_release);
              },
              child_options);
          seconds += seconds_between(start, Clock::now());
        }
        wait_for_child();  // the last child writes ran_at, which lives on this VP's stack
      },
      options);
  return {seconds, stats};
}

void BM_SsrCreateWake(benchmark::State& state, std::chrono::microseconds idle) {
  if (!machine_has(state, 2)) return;
  OpTally tally;
  create_end_batch(Placement::other_core, kCreateBatch);  // stacks mapped, as in BM_SsrCreateEnd
  constexpr std::uint64_t kWakeBatch = 200;
  for (auto _ : state) {
    const Batch batch = create_wake_batch(idle, kWakeBatch);
    state.SetIterationTime(batch.seconds);
    tally.add(batch.seconds, kWakeBatch);
  }
  tally.report(state, "create_vp that wakes core 1");
}
// A fixed count: each wake of a parked core waits out its idle time first (about 50 ms a batch).
BENCHMARK_CAPTURE(BM_SsrCreateWake, spinning, std::chrono::microseconds(10))->UseManualTime()->Iterations(30);
BENCHMARK_CAPTURE(BM_SsrCreateWake, parked, std::chrono::microseconds(200))->UseManualTime()->Iterations(30);

// The same with recording on: the trace's wake-up chores on the creator's core are what the report
// books as "waking cores". Its claim is checked against the gain of removing the cause: the
// parked row's wake_chore_ns should match (parked - spinning) of BM_SsrCreateWake's create_vp.
void BM_SsrCreateWakeRecorded(benchmark::State& state, std::chrono::microseconds idle) {
  if (!machine_has(state, 2)) return;
  OpTally tally;
  create_end_batch(Placement::other_core, kCreateBatch);
  constexpr std::uint64_t kWakeBatch = 200;
  const std::string path = "/tmp/moirai_bench_wake_" + std::to_string(::getpid()) + ".mtrace";
  double chore_ns = 0;
  std::uint64_t chores = 0;
  for (auto _ : state) {
    Batch batch;
    {
      moirai::instrument::TraceRecorder recorder({path, {}, "moirai_bench"});
      batch = create_wake_batch(idle, kWakeBatch, &recorder);
    }
    state.SetIterationTime(batch.seconds);
    tally.add(batch.seconds, kWakeBatch);
    const moirai::trace::Trace trace = moirai::trace::read_trace(path);
    for (const moirai::trace::Trace::ChoreSpan& chore : trace.chores) {
      if (chore.core != 0 || chore.record.chore != static_cast<std::uint16_t>(moirai::Chore::wake_up)) continue;
      chore_ns += static_cast<double>(chore.record.end - chore.record.begin) * 1e9 / trace.clock_hz;
      ++chores;
    }
  }
  std::remove(path.c_str());
  tally.report(state, "recorded create_vp that wakes core 1");
  state.counters["wake_chore_ns"] = chores != 0 ? chore_ns / static_cast<double>(chores) : 0;
  state.counters["wakes_per_op"] =
      static_cast<double>(chores) / (static_cast<double>(kWakeBatch) * static_cast<double>(state.iterations()));
}
BENCHMARK_CAPTURE(BM_SsrCreateWakeRecorded, spinning, std::chrono::microseconds(10))->UseManualTime()->Iterations(30);
BENCHMARK_CAPTURE(BM_SsrCreateWakeRecorded, parked, std::chrono::microseconds(200))->UseManualTime()->Iterations(30);

// The cost every other SSR benchmark leaves out: one whole ssr::run of a seed that returns at
// once on 2 cores (hwloc topology load, thread start and pinning, seed creation, shut-down).
// Shown so the reader sees what "start-up not counted" amounts to.
void BM_SsrRunStartup(benchmark::State& state) {
  if (!machine_has(state, 2)) return;
  ssr::RunOptions options;
  options.cores = 2;
  OpTally tally;
  const Clock::time_point start = Clock::now();
  for (auto _ : state) {
    ssr::run([](ssr::Context&) {}, options);
  }
  const Clock::time_point end = Clock::now();
  tally.add(seconds_between(start, end), static_cast<std::uint64_t>(state.iterations()));
  tally.report(state, "empty run");
}
BENCHMARK(BM_SsrRunStartup)->UseRealTime()->Unit(benchmark::kMicrosecond);

}  // namespace

// The yardsticks SSR is compared with: a raw Boost.Context switch (the lower bound), a
// Boost.Fiber channel ping-pong (a peer user-level runtime), a mutex + condition-variable
// ping-pong between two OS threads (what a user writes without a runtime), and raw fiber
// create + end with and without reusing a guard-paged stack (the floor under VP create + end),
// and a raw atomic ping-pong between two threads pinned to the PUs of cores 0 and 1 (the
// hardware's floor under any cross-core construct: two cache-line transfers).
#include <benchmark/benchmark.h>

#include <boost/context/fiber.hpp>
#include <boost/context/fixedsize_stack.hpp>
#include <boost/context/preallocated.hpp>
#include <boost/context/protected_fixedsize_stack.hpp>
#include <boost/fiber/all.hpp>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>

#include "atomic_anchor.h"
#include "bench_util.h"

namespace {

using moirai::bench::Clock;
using moirai::bench::OpTally;
using moirai::bench::seconds_between;

constexpr int kWarmupRoundTrips = 1000;
constexpr std::uint64_t kAnchorBatch = 50'000;  // atomic round trips per iteration, as SSR's

// One round trip: resume a Boost.Context fiber, which switches straight back. Two context
// switches, no scheduler, no queue: the floor under any fiber runtime.
void BM_RawFiberRoundTrip(benchmark::State& state) {
  namespace ctx = boost::context;
  bool stop = false;
  ctx::fiber peer(std::allocator_arg, ctx::fixedsize_stack(64 * 1024),
                  [&stop](ctx::fiber&& caller) {
                    while (!stop) caller = std::move(caller).resume();
                    return std::move(caller);
                  });
  for (int i = 0; i < kWarmupRoundTrips; ++i) peer = std::move(peer).resume();

  const Clock::time_point start = Clock::now();
  for (auto _ : state) {
    peer = std::move(peer).resume();
  }
  const Clock::time_point end = Clock::now();

  stop = true;
  peer = std::move(peer).resume();  // the fiber returns and ends
  OpTally tally;
  tally.add(seconds_between(start, end), static_cast<std::uint64_t>(state.iterations()));
  tally.report(state, "round trip");
}
BENCHMARK(BM_RawFiberRoundTrip);

// The floor under SSR's create_vp + end: create a Boost.Context fiber on a 256 KiB stack (SSR's
// default), run it (it returns at once, touching the top page of its stack) and let it end.
// `fresh_guarded` maps a new guard-paged stack every time (mmap + mprotect + page fault +
// munmap), which is what a VP costs when the runtime's stack pool has no stack to give;
// `reused_guarded` reuses one guard-paged stack, which is what a VP costs when the pool has one.
enum class StackUse { fresh_guarded, reused_guarded };

// KeepStack is a stack "allocator" for a preallocated stack that must outlive the fiber.
struct KeepStack {
  boost::context::stack_context allocate() { return {}; }
  void deallocate(boost::context::stack_context&) noexcept {}
};

void BM_RawFiberCreateEnd(benchmark::State& state, StackUse use) {
  namespace ctx = boost::context;
  constexpr std::size_t kStack = 256 * 1024;
  ctx::protected_fixedsize_stack guarded(kStack);
  ctx::stack_context kept = guarded.allocate();
  auto body = [](ctx::fiber&& caller) { return std::move(caller); };
  auto once = [&] {
    if (use == StackUse::fresh_guarded) {
      ctx::fiber fiber(std::allocator_arg, ctx::protected_fixedsize_stack(kStack), body);
      fiber = std::move(fiber).resume();
    } else {
      ctx::fiber fiber(std::allocator_arg, ctx::preallocated(kept.sp, kept.size, kept),
                       KeepStack{}, body);
      fiber = std::move(fiber).resume();
    }
  };
  once();

  const Clock::time_point start = Clock::now();
  for (auto _ : state) once();
  const Clock::time_point end = Clock::now();

  guarded.deallocate(kept);
  OpTally tally;
  tally.add(seconds_between(start, end), static_cast<std::uint64_t>(state.iterations()));
  tally.report(state, "create + end");
}
BENCHMARK_CAPTURE(BM_RawFiberCreateEnd, fresh_guarded, StackUse::fresh_guarded);
BENCHMARK_CAPTURE(BM_RawFiberCreateEnd, reused_guarded, StackUse::reused_guarded);

// One round trip: the benchmark's own (main) fiber pushes a value into an unbuffered channel,
// a second fiber on the same thread pops it and pushes a reply into another unbuffered channel,
// which the main fiber pops. Two rendezvous per round trip, like SSR's ping-pong.
void BM_BoostFiberPingPong(benchmark::State& state) {
  namespace fibers = boost::fibers;
  fibers::unbuffered_channel<std::uint64_t> to_pong;
  fibers::unbuffered_channel<std::uint64_t> to_ping;
  fibers::fiber pong([&] {
    std::uint64_t value = 0;
    while (to_pong.pop(value) == fibers::channel_op_status::success) {
      if (to_ping.push(value + 1) != fibers::channel_op_status::success) return;
    }
  });
  std::uint64_t value = 0;
  for (int i = 0; i < kWarmupRoundTrips; ++i) {
    to_pong.push(value);
    to_ping.pop(value);
  }

  const Clock::time_point start = Clock::now();
  for (auto _ : state) {
    to_pong.push(value);
    to_ping.pop(value);
  }
  const Clock::time_point end = Clock::now();
  benchmark::DoNotOptimize(value);

  to_pong.close();
  pong.join();
  to_ping.close();
  OpTally tally;
  tally.add(seconds_between(start, end), static_cast<std::uint64_t>(state.iterations()));
  tally.report(state, "round trip");
}
BENCHMARK(BM_BoostFiberPingPong);

// One round trip between the benchmark thread and a partner std::thread with a std::mutex
// and two std::condition_variables (pthread_mutex_t / pthread_cond_t in libstdc++): hand the
// turn over, wake the partner, wait for the turn to come back. The OS places the threads.
void BM_PthreadCondvarPingPong(benchmark::State& state) {
  struct Shared {
    std::mutex mutex;
    std::condition_variable to_pong;
    std::condition_variable to_ping;
    bool pong_turn = false;
    bool stop = false;
  };
  auto shared = std::make_unique<Shared>();
  Shared& s = *shared;
  std::thread pong([&s] {
    std::unique_lock<std::mutex> lock(s.mutex);
    for (;;) {
      s.to_pong.wait(lock, [&s] { return s.pong_turn || s.stop; });
      if (s.stop) return;
      s.pong_turn = false;
      s.to_ping.notify_one();
    }
  });
  auto round_trip = [&s] {
    std::unique_lock<std::mutex> lock(s.mutex);
    s.pong_turn = true;
    s.to_pong.notify_one();
    s.to_ping.wait(lock, [&s] { return !s.pong_turn; });
  };
  for (int i = 0; i < kWarmupRoundTrips; ++i) round_trip();

  const Clock::time_point start = Clock::now();
  for (auto _ : state) round_trip();
  const Clock::time_point end = Clock::now();

  {
    std::lock_guard<std::mutex> lock(s.mutex);
    s.stop = true;
  }
  s.to_pong.notify_one();
  pong.join();
  OpTally tally;
  tally.add(seconds_between(start, end), static_cast<std::uint64_t>(state.iterations()));
  tally.report(state, "round trip");
}
BENCHMARK(BM_PthreadCondvarPingPong)->UseRealTime();

// Pins the calling thread to the `index`-th PU, as the real machine pins core `index`.
// One round trip of a counter between the benchmark thread, pinned to the PU of core 0, and a
// partner pinned to the PU of core 1: each spins on one atomic until the other's increment
// shows. No runtime, no queue, no wake-up: what SSR's cross-core round trip is measured against.
// Each iteration is one batch (atomic_anchor.h), as in the SSR rows.
void BM_AtomicPingPongTwoCores(benchmark::State& state) {
  OpTally tally;
  for (auto _ : state) {
    const moirai::bench::AnchorBatch batch = moirai::bench::atomic_ping_pong(kAnchorBatch);
    if (!batch.error.empty()) {
      state.SkipWithError(batch.error.c_str());
      return;
    }
    state.SetIterationTime(batch.seconds);
    tally.add(batch.seconds, kAnchorBatch);
  }
  tally.report(state, "round trip");
}
BENCHMARK(BM_AtomicPingPongTwoCores)->UseManualTime();

}  // namespace

// Pinning is real: a VP pinned to core k runs on the processing unit the machine bound core k's
// thread to, at every point of its life (a VP may be animated by another core after any
// construct, so each check follows a construct).
#include <gtest/gtest.h>
#include <sched.h>

#include <algorithm>
#include <cstddef>
#include <map>
#include <set>
#include <mutex>
#include <string>
#include <vector>

#include "moirai/proto_runtime/real_machine.h"
#include "moirai/ssr/ssr.h"
#include "support/ssr_support.h"
#include "support/test_support.h"

namespace moirai::test {
namespace {

using ssr::Context;
using ssr::VpRef;

// Where records one observation a VP made of where it runs.
struct Where {
  std::string point;
  CoreId pinned;
  CoreId core;   // Context::core()
  int cpu;       // sched_getcpu()
};

class SsrPinning : public CoreCountTest {};

TEST_P(SsrPinning, PinnedVpStaysOnItsProcessingUnit) {
  proto::RealMachine machine(cores());
  ASSERT_EQ(machine.core_count(), cores());
  static const ssr::MessageType<int> kToken{"token"};
  static constexpr int kCopies = 2;  // pinned VPs per core
  std::mutex mutex;
  std::vector<Where> seen;
  ssr::Singleton once("once");
  auto note = [&](Context& me, CoreId pinned, const char* point) {
    const int cpu = sched_getcpu();
    std::lock_guard<std::mutex> hold(mutex);
    seen.push_back(Where{point, pinned, me.core(), cpu});
  };
  const CoreId last = static_cast<CoreId>(cores() - 1);
  ssr::RunOptions options;
  options.seed_core = last;
  within(kRunLimit, "ssr::run on a RealMachine", [&] {
    return ssr::run(
        machine,
        [&](Context& ctx) {
          note(ctx, last, "seed start");
          const VpRef seed = ctx.self();
          for (CoreId k = 0; k < ctx.core_count(); ++k) {
            for (int copy = 0; copy < kCopies; ++copy) {
              ctx.create_vp(
                  [&, k, seed](Context& me) {
                    note(me, k, "start");
                    me.create_vp([&](Context& child) { note(child, kAnyCore, "unpinned child"); });
                    note(me, k, "after create_vp");
                    me.send_of_type(kToken, 1);
                    note(me, k, "after send_of_type");
                    me.singleton(once, [&] { note(me, k, "in singleton"); });
                    note(me, k, "after singleton");
                    if (me.receive_from_to<int>(seed) == static_cast<int>(k)) {
                      note(me, k, "after receive_from_to");
                    }
                  },
                  ssr::CreateOptions{.name = "pinned", .core = k});
            }
          }
          note(ctx, last, "seed after create_vp");
          std::vector<VpRef> workers;
          for (std::size_t i = 0; i < kCopies * ctx.core_count(); ++i) {
            ctx.receive_of_type(kToken);
            workers.push_back(ctx.received_from());
            note(ctx, last, "seed after receive_of_type");
          }
          // Workers were created core by core, kCopies each, and ids grow in creation order.
          std::sort(workers.begin(), workers.end());
          for (std::size_t i = 0; i < workers.size(); ++i) {
            ctx.send_from_to(workers[i], static_cast<int>(i / kCopies));
            note(ctx, last, "seed after send_from_to");
          }
        },
        options);
  });

  const std::size_t workers = kCopies * cores();
  std::map<std::string, std::size_t> points;
  for (const Where& where : seen) {
    ++points[where.point];
    SCOPED_TRACE(where.point);
    ASSERT_LT(where.core, cores());
    EXPECT_EQ(where.cpu, static_cast<int>(machine.pu_os_index(where.core)))
        << "Context::core() says " << where.core << " but the thread runs on CPU " << where.cpu;
    if (where.pinned != kAnyCore) {
      EXPECT_EQ(where.core, where.pinned) << "a VP pinned to core " << where.pinned;
      EXPECT_EQ(where.cpu, static_cast<int>(machine.pu_os_index(where.pinned)));
    }
  }
  EXPECT_EQ(points["start"], workers);
  EXPECT_EQ(points["after create_vp"], workers);
  EXPECT_EQ(points["after send_of_type"], workers);
  EXPECT_EQ(points["in singleton"], 1u);
  EXPECT_EQ(points["after singleton"], workers);
  EXPECT_EQ(points["after receive_from_to"], workers) << "each worker got its own core number";
  EXPECT_EQ(points["unpinned child"], workers);
  EXPECT_EQ(points["seed start"], 1u);
  EXPECT_EQ(points["seed after receive_of_type"], workers);
  EXPECT_EQ(points["seed after send_from_to"], workers);
}

// The machine maps distinct cores to distinct processing units.
TEST_P(SsrPinning, CoresMapToDistinctProcessingUnits) {
  proto::RealMachine machine(cores());
  std::set<unsigned> pus;
  for (CoreId k = 0; k < cores(); ++k) pus.insert(machine.pu_os_index(k));
  EXPECT_EQ(pus.size(), cores());
}

// Processing units belong to real cores: this suite runs on the real machine only.
MOIRAI_INSTANTIATE_CORE_COUNTS(SsrPinning);

// ping_pong_across runs `round_trips` send_from_to round trips between a VP on core 0 and one
// pinned to core 1, on `cores` real cores or on the simulated machine.
proto::RunStats ping_pong_across(std::size_t cores, int round_trips) {
  return run_ssr(
      cores,
      [round_trips](Context& ctx) {
        const VpRef ping = ctx.self();
        const VpRef pong = ctx.create_vp(
            [ping, round_trips](Context& me) {
              for (int i = 0; i < round_trips; ++i) me.send_from_to(ping, me.receive_from_to<int>(ping) + 1);
            },
            ssr::CreateOptions{.name = "pong", .core = 1});
        int value = 0;
        for (int i = 0; i < round_trips; ++i) {
          ctx.send_from_to(pong, value);
          value = ctx.receive_from_to<int>(pong);
        }
        EXPECT_EQ(value, round_trips);
      },
      ssr::RunOptions{.seed_core = 0});
}

// SSR names lock domains, and its assigner keeps a queue per core with a lock of its own: a core
// woken for a VP takes it from its own queue, so nothing is handed over (the hand-over spares a
// woken core the one lock of a language that names no domains), and every unit still runs.
TEST(SsrHandOver, ADomainLanguageHandsNothingOverOnRealCores) {
  constexpr int kRoundTrips = 500;
  const proto::RunStats stats = ping_pong_across(2, kRoundTrips);
  EXPECT_EQ(stats.units_handed_over, 0u);
  EXPECT_GE(stats.units_animated, 4u * kRoundTrips);
}

// The simulated machine steps every core itself: nothing is handed over there.
TEST(SsrHandOver, TheSimulatedMachineHandsNothingOver) {
  const proto::RunStats stats = ping_pong_across(kSimulatedCores, 50);
  EXPECT_EQ(stats.units_handed_over, 0u);
  EXPECT_GT(stats.units_animated, 100u);
}

}  // namespace
}  // namespace moirai::test

// Scale and exact accounting. RunStats counts are derived from the program:
//   - every VP animates one unit before its first construct and one after each construct, so
//     units(VP) = constructs(VP) + 1, where ending (by returning or end_vp) is not a construct
//     call but ends the last unit;
//   - every unit ends with exactly one request: a construct's or the end request (kEndVp), so
//     requests(VP) = constructs(VP) + 1 = units(VP);
//   - a singleton costs its owner two requests (enter and done) and every other VP one (enter);
//   - vps_created counts the seed too.
// Leaks are checked by the sanitize preset (LeakSanitizer runs with AddressSanitizer).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <vector>

#include "moirai/ssr/ssr.h"
#include "support/ssr_support.h"
#include "support/test_support.h"

namespace moirai::test {
namespace {

using ssr::Context;
using ssr::VpRef;

class SsrScale : public CoreCountTest {};

// 100,000 VPs, created in batches of 1,000; each sends one message to the seed and ends.
TEST_P(SsrScale, HundredThousandVpsInBatches) {
  static constexpr std::uint64_t kVps = 100'000;
  static constexpr std::uint64_t kBatch = 1'000;
  static const ssr::MessageType<std::uint64_t> kDone{"done"};
  std::uint64_t sum = 0;
  std::uint64_t received = 0;
  const proto::RunStats stats = run_ssr(cores(), [&](Context& ctx) {
    const VpRef seed = ctx.self();
    for (std::uint64_t first = 0; first < kVps; first += kBatch) {
      for (std::uint64_t i = first; i < first + kBatch; ++i) {
        ctx.create_vp([seed, i](Context& me) { me.send_of_type_to(kDone, seed, i); },
                      ssr::CreateOptions{.name = "leaf", .stack_size = 32 * 1024});
      }
      for (std::uint64_t i = 0; i < kBatch; ++i) {
        sum += ctx.receive_of_type_to(kDone);
        ++received;
      }
    }
  });
  EXPECT_EQ(received, kVps);
  EXPECT_EQ(sum, kVps * (kVps - 1) / 2);
  // seed: kVps creates + kVps receives, then its end; each leaf: one send, then its end.
  EXPECT_EQ(stats.vps_created, kVps + 1);
  EXPECT_EQ(stats.units_animated, (2 * kVps + 1) + 2 * kVps);
  EXPECT_EQ(stats.requests_handled, (2 * kVps + 1) + 2 * kVps);
}

// Many VPs alive (blocked) at the same time, then all released through a global channel.
TEST_P(SsrScale, FiveThousandVpsAliveAtOnce) {
  static constexpr std::uint64_t kVps = 5'000;
  static const ssr::MessageType<int> kRelease{"release"};
  std::atomic<std::uint64_t> released{0};
  const proto::RunStats stats = run_ssr(cores(), [&](Context& ctx) {
    for (std::uint64_t i = 0; i < kVps; ++i) {
      ctx.create_vp(
          [&](Context& me) {
            me.receive_of_type(kRelease);
            released.fetch_add(1);
          },
          ssr::CreateOptions{.name = "blocked", .stack_size = 32 * 1024});
    }
    for (std::uint64_t i = 0; i < kVps; ++i) ctx.send_of_type(kRelease, 1);
  });
  EXPECT_EQ(released.load(), kVps);
  EXPECT_EQ(stats.vps_created, kVps + 1);
  // seed: kVps creates + kVps sends + end; each VP: one receive + end.
  EXPECT_EQ(stats.units_animated, (2 * kVps + 1) + 2 * kVps);
  EXPECT_EQ(stats.requests_handled, (2 * kVps + 1) + 2 * kVps);
}

// A binary tree of VPs 14 levels deep (16,383 VPs); each parent collects its children's counts
// with receive_from_to.
TEST_P(SsrScale, TreeOfVps) {
  static constexpr int kDepth = 13;  // levels below the root
  std::function<std::uint64_t(Context&, int)> count = [&](Context& ctx, int depth) {
    if (depth == kDepth) return std::uint64_t{1};
    const VpRef parent = ctx.self();
    std::vector<VpRef> children;
    for (int i = 0; i < 2; ++i) {
      children.push_back(ctx.create_vp(
          [&, parent, depth](Context& me) { me.send_from_to(parent, count(me, depth + 1)); },
          ssr::CreateOptions{.name = "node", .stack_size = 32 * 1024}));
    }
    std::uint64_t total = 1;
    for (const VpRef child : children) total += ctx.receive_from_to<std::uint64_t>(child);
    return total;
  };
  std::uint64_t total = 0;
  const proto::RunStats stats = run_ssr(cores(), [&](Context& ctx) { total = count(ctx, 0); });
  constexpr std::uint64_t kNodes = (std::uint64_t{1} << (kDepth + 1)) - 1;  // 16,383
  constexpr std::uint64_t kInner = (std::uint64_t{1} << kDepth) - 1;        // 8,191
  EXPECT_EQ(total, kNodes);
  EXPECT_EQ(stats.vps_created, kNodes);
  // inner node: 2 creates + 2 receives (+ 1 send unless root); leaf: 1 send; everyone: end.
  const std::uint64_t requests = kInner * 4 + (kNodes - 1) + kNodes;
  EXPECT_EQ(stats.units_animated, requests);
  EXPECT_EQ(stats.requests_handled, requests);
}

// Every construct once, counted by hand.
TEST_P(SsrScale, ExactStatsOfASmallProgram) {
  static const ssr::MessageType<int> kTyped{"typed"};
  static const ssr::MessageType<int> kGlobal{"global"};
  ssr::Singleton once("once");
  std::atomic<int> singleton_runs{0};
  const proto::RunStats stats = run_ssr(cores(), [&](Context& ctx) {
    const VpRef seed = ctx.self();
    const VpRef r = ctx.create_vp([&, seed](Context& me) {  // seed: create (1)
      me.receive_from_to<int>(seed);                        // r: (1)
      me.receive_of_type_to(kTyped);                        // r: (2)
      me.singleton(once, [&] { singleton_runs.fetch_add(1); });  // r: enter (3) [+ done]
      me.send_of_type(kGlobal, 7);                          // r: (4)
      me.end_vp();                                          // r: end (5)
    });
    ctx.create_vp([r](Context& me) {     // seed: create (2)
      me.send_of_type_to(kTyped, r, 1);  // s: (1), then s: end (2)
    });
    ctx.singleton(once, [&] { singleton_runs.fetch_add(1); });  // seed: enter (3) [+ done]
    ctx.send_from_to(r, 1);                                     // seed: (4)
    ctx.receive_of_type(kGlobal);                               // seed: (5), then end (6)
  });
  EXPECT_EQ(singleton_runs.load(), 1);
  EXPECT_EQ(stats.vps_created, 3u);
  // seed 6 + r 5 + s 2 + the singleton owner's done 1.
  EXPECT_EQ(stats.units_animated, 14u);
  EXPECT_EQ(stats.requests_handled, 14u);
}

MOIRAI_INSTANTIATE_CORE_COUNTS(SsrScale);

}  // namespace
}  // namespace moirai::test

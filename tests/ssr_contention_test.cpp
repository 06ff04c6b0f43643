// Many VPs on one construct at once: nothing lost, nothing duplicated, nobody early.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

#include "moirai/ssr/ssr.h"
#include "support/ssr_support.h"
#include "support/test_support.h"

namespace moirai::test {
namespace {

using ssr::Context;
using ssr::VpRef;

class SsrContention : public CoreCountTest {};

// 1000 VPs race into one singleton. Its block does some work in four pieces, yielding between
// them (so that, even on one core, other VPs reach the singleton while the block is running),
// then sets a flag; every VP checks the flag once past the singleton. Exactly one run of the
// block, and nobody past it early.
TEST_P(SsrContention, ThousandVpsIntoOneSingleton) {
  static constexpr int kVps = 1000;
  ssr::Singleton once("copy-transpose");
  Ticker ticker("tick");
  std::atomic<int> runs{0};
  std::atomic<bool> done{false};
  std::atomic<int> past{0};
  std::atomic<int> past_early{0};
  std::atomic<std::uint64_t> work_result{0};
  run_ssr(cores(), [&](Context& ctx) {
    ticker.start(ctx);
    for (int i = 0; i < kVps; ++i) {
      ctx.create_vp(
          [&](Context& me) {
            me.singleton(once, [&] {
              runs.fetch_add(1);
              std::uint64_t x = 1;
              for (int piece = 0; piece < 4; ++piece) {
                for (int k = 0; k < 500'000; ++k) {
                  x = x * 6364136223846793005ULL + 1442695040888963407ULL;
                }
                ticker.tick(me);
              }
              work_result = x;
              done = true;
              ticker.stop(me);
            });
            if (!done.load()) past_early.fetch_add(1);
            past.fetch_add(1);
          },
          ssr::CreateOptions{.name = "worker", .stack_size = 64 * 1024});
    }
  });
  EXPECT_EQ(runs.load(), 1);
  EXPECT_EQ(past.load(), kVps);
  EXPECT_EQ(past_early.load(), 0) << "a VP continued past the singleton before its block finished";
  EXPECT_NE(work_result.load(), 0u);
}

// 200 anonymous senders x 20 messages to one receiver with send_of_type_to: every message
// arrives exactly once, received_from() names its sender, and each sender's messages arrive in
// the order it sent them (a send waits until it was received).
TEST_P(SsrContention, ManyAnonymousSendersToOneReceiver) {
  static constexpr int kSenders = 200;
  static constexpr int kEach = 20;
  static const ssr::MessageType<int> kPartial{"partial"};
  std::vector<int> count(kSenders * kEach, 0);
  std::vector<int> next_expected(kSenders, 0);
  int out_of_order = 0;
  int wrong_sender = 0;
  std::vector<VpId> sender_ids(kSenders, 0);
  run_ssr(cores(), [&](Context& ctx) {
    const VpRef seed = ctx.self();
    const VpRef receiver = ctx.create_vp([&, seed](Context& me) {
      const auto ids = me.receive_from_to<std::vector<VpId>>(seed);
      for (int i = 0; i < kSenders * kEach; ++i) {
        const int value = me.receive_of_type_to(kPartial);
        if (value < 0 || value >= kSenders * kEach) {
          ++wrong_sender;
          continue;
        }
        ++count[value];
        const int sender = value / kEach;
        if (me.received_from().id() != ids[sender]) ++wrong_sender;
        if (value % kEach != next_expected[sender]) ++out_of_order;
        next_expected[sender] = value % kEach + 1;
      }
    }, ssr::CreateOptions{.name = "results"});
    for (int s = 0; s < kSenders; ++s) {
      sender_ids[s] = ctx.create_vp(
                             [s, receiver](Context& me) {
                               for (int m = 0; m < kEach; ++m) {
                                 me.send_of_type_to(kPartial, receiver, s * kEach + m);
                               }
                             },
                             ssr::CreateOptions{.name = "worker", .stack_size = 64 * 1024})
                          .id();
    }
    ctx.send_from_to(receiver, sender_ids);
  });
  const auto lost = std::count(count.begin(), count.end(), 0);
  const auto duplicated = std::count_if(count.begin(), count.end(), [](int c) { return c > 1; });
  EXPECT_EQ(lost, 0);
  EXPECT_EQ(duplicated, 0);
  EXPECT_EQ(wrong_sender, 0);
  EXPECT_EQ(out_of_order, 0);
}

// send_of_type with several senders and several receivers: every message is taken by exactly
// one receiver.
TEST_P(SsrContention, GlobalChannelManySendersManyReceivers) {
  static constexpr int kSenders = 8;
  static constexpr int kReceivers = 5;
  static constexpr int kEach = 250;                                   // per sender
  static constexpr int kTotal = kSenders * kEach;                     // 2000
  static constexpr int kPerReceiver = kTotal / kReceivers;            // 400
  static_assert(kTotal % kReceivers == 0);
  static const ssr::MessageType<int> kJob{"job"};
  std::mutex mutex;
  std::vector<int> count(kTotal, 0);
  std::vector<int> per_receiver(kReceivers, 0);
  run_ssr(cores(), [&](Context& ctx) {
    for (int r = 0; r < kReceivers; ++r) {
      ctx.create_vp([&, r](Context& me) {
        for (int i = 0; i < kPerReceiver; ++i) {
          const int value = me.receive_of_type(kJob);
          std::lock_guard<std::mutex> hold(mutex);
          if (value >= 0 && value < kTotal) ++count[value];
          ++per_receiver[r];
        }
      });
    }
    for (int s = 0; s < kSenders; ++s) {
      ctx.create_vp([s](Context& me) {
        for (int m = 0; m < kEach; ++m) me.send_of_type(kJob, s * kEach + m);
      });
    }
  });
  EXPECT_EQ(std::count(count.begin(), count.end(), 1), kTotal) << "each message exactly once";
  for (int r = 0; r < kReceivers; ++r) EXPECT_EQ(per_receiver[r], kPerReceiver);
}

// Many pairs hammer send_from_to at once while a singleton and a global channel are in use:
// the constructs' states do not interfere.
TEST_P(SsrContention, MixedConstructsAtOnce) {
  static constexpr int kPairs = 50;
  static constexpr int kRounds = 40;
  static const ssr::MessageType<int> kTally{"tally"};
  ssr::Singleton once("once");
  std::atomic<int> singleton_runs{0};
  std::atomic<int> good_rounds{0};
  long long tally = 0;
  run_ssr(cores(), [&](Context& ctx) {
    const VpRef seed = ctx.self();
    const VpRef counter = ctx.create_vp([&](Context& me) {
      for (int i = 0; i < kPairs; ++i) tally += me.receive_of_type(kTally);
    });
    (void)counter;
    for (int p = 0; p < kPairs; ++p) {
      const VpRef b = ctx.create_vp([&, seed](Context& me) {
        const VpRef a = me.receive_from_to<VpRef>(seed);
        for (int r = 0; r < kRounds; ++r) me.send_from_to(a, me.receive_from_to<int>(a) * 2);
        me.singleton(once, [&] { singleton_runs.fetch_add(1); });
      });
      const VpRef a = ctx.create_vp([&, b, p](Context& me) {
        int ok = 0;
        for (int r = 0; r < kRounds; ++r) {
          me.send_from_to(b, p + r);
          if (me.receive_from_to<int>(b) == 2 * (p + r)) ++ok;
        }
        me.singleton(once, [&] { singleton_runs.fetch_add(1); });
        good_rounds.fetch_add(ok);
        me.send_of_type(kTally, p);
      });
      ctx.send_from_to(b, a);
    }
  });
  EXPECT_EQ(singleton_runs.load(), 1);
  EXPECT_EQ(good_rounds.load(), kPairs * kRounds);
  EXPECT_EQ(tally, kPairs * (kPairs - 1) / 2);
}

MOIRAI_INSTANTIATE_CORE_COUNTS(SsrContention);

}  // namespace
}  // namespace moirai::test

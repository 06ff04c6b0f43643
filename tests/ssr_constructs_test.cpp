// SSR's constructs one at a time: what each promises (paper section 3.2, ssr/context.h), and
// nothing it does not promise (no ordering between a creator and its child, no fairness).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "moirai/ssr/ssr.h"
#include "support/ssr_support.h"
#include "support/test_support.h"

namespace moirai::test {
namespace {

using ssr::Context;
using ssr::CreateOptions;
using ssr::VpRef;

// Guard counts its destruction: proof that a VP's stack was unwound.
struct Guard {
  std::atomic<int>* destroyed;
  ~Guard() { destroyed->fetch_add(1); }
};

// spin does a little work that the optimiser cannot remove.
void spin(int iterations) {
  volatile std::uint64_t sink = 0;
  for (int i = 0; i < iterations; ++i) sink = sink + static_cast<std::uint64_t>(i);
}

// ---------------------------------------------------------------------------------------------
// create_vp
// ---------------------------------------------------------------------------------------------

class SsrCreateVp : public CoreCountTest {};

TEST_P(SsrCreateVp, TakesAMoveOnlyBodyAndDestroysItOnce) {
  // A body may own what it captures: the std::unique_ptrs move into the VP and end with it.
  static_assert(!std::is_copy_constructible_v<ssr::VpBody>);
  std::atomic<int> destroyed{0};
  int received = 0;
  run_ssr(cores(), [&](Context& ctx) {
    auto value = std::make_unique<int>(42);
    auto guard = std::unique_ptr<Guard>(new Guard{&destroyed});
    const VpRef child = ctx.create_vp(
        [parent = ctx.self(), value = std::move(value), guard = std::move(guard)](Context& me) {
          me.send_from_to(parent, *value);
        });
    received = ctx.receive_from_to<int>(child);
  });
  EXPECT_EQ(received, 42);
  EXPECT_EQ(destroyed.load(), 1);
}

TEST_P(SsrCreateVp, RunTakesAMoveOnlySeed) {
  int seen = 0;
  run_ssr(cores(), [owned = std::make_unique<int>(7), &seen](Context&) { seen = *owned; });
  EXPECT_EQ(seen, 7);
}

TEST_P(SsrCreateVp, ReturnsTheNameOfTheVpItCreated) {
  static constexpr int kChildren = 8;
  std::vector<VpId> returned(kChildren, 0);
  std::vector<std::atomic<VpId>> seen(kChildren);
  std::atomic<int> ran{0};
  VpId seed_id = 0;
  run_ssr(cores(), [&](Context& ctx) {
    seed_id = ctx.self().id();
    for (int i = 0; i < kChildren; ++i) {
      returned[i] = ctx.create_vp([&, i](Context& me) {
                          seen[i] = me.self().id();
                          ran.fetch_add(1);
                        })
                        .id();
    }
  });
  EXPECT_EQ(ran.load(), kChildren);
  std::set<VpId> distinct{seed_id};
  for (int i = 0; i < kChildren; ++i) {
    EXPECT_NE(returned[i], 0u) << "child " << i;
    EXPECT_EQ(returned[i], seen[i].load()) << "create_vp must return the VP that runs the body";
    distinct.insert(returned[i]);
  }
  EXPECT_EQ(distinct.size(), static_cast<std::size_t>(kChildren + 1)) << "VP names must differ";
}

TEST_P(SsrCreateVp, PinnedVpRunsOnItsCore) {
  static constexpr int kPerCore = 3;
  std::mutex mutex;
  std::map<CoreId, std::vector<CoreId>> observed;  // pinned core -> cores seen by its VPs
  run_ssr(cores(), [&](Context& ctx) {
    for (CoreId k = 0; k < ctx.core_count(); ++k) {
      for (int i = 0; i < kPerCore; ++i) {
        ctx.create_vp(
            [&, k](Context& me) {
              std::lock_guard<std::mutex> hold(mutex);
              observed[k].push_back(me.core());
            },
            CreateOptions{.name = "pinned", .core = k});
      }
    }
  });
  ASSERT_EQ(observed.size(), cores());
  for (const auto& [k, seen] : observed) {
    EXPECT_EQ(seen.size(), static_cast<std::size_t>(kPerCore));
    for (CoreId core : seen) EXPECT_EQ(core, k) << "a VP pinned to core " << k;
  }
}

TEST_P(SsrCreateVp, UnpinnedVpRunsOnSomeCoreOfTheRun) {
  static constexpr int kChildren = 16;
  std::atomic<int> bad_core{0};
  std::atomic<int> bad_count{0};
  std::atomic<int> ran{0};
  const std::size_t n = cores();
  run_ssr(n, [&](Context& ctx) {
    for (int i = 0; i < kChildren; ++i) {
      ctx.create_vp([&](Context& me) {
        if (me.core() >= n) bad_core.fetch_add(1);
        if (me.core_count() != n) bad_count.fetch_add(1);
        ran.fetch_add(1);
      });
    }
  });
  EXPECT_EQ(ran.load(), kChildren);
  EXPECT_EQ(bad_core.load(), 0);
  EXPECT_EQ(bad_count.load(), 0);
}

// A tree: every VP creates kFanOut children down to kDepth; all of them run, and the run ends
// only when the last leaf ended, whatever order the creators ended in.
TEST_P(SsrCreateVp, VpsCreateVpsInATree) {
  static constexpr int kFanOut = 3;
  static constexpr int kDepth = 4;  // 1 + 3 + 9 + 27 + 81 VPs
  std::atomic<int> ran{0};
  std::function<void(Context&, int)> grow = [&](Context& ctx, int depth) {
    ran.fetch_add(1);
    if (depth == kDepth) return;
    for (int i = 0; i < kFanOut; ++i) {
      ctx.create_vp([&, depth](Context& me) { grow(me, depth + 1); });
    }
  };
  const proto::RunStats stats = run_ssr(cores(), [&](Context& ctx) { grow(ctx, 0); });
  EXPECT_EQ(ran.load(), 1 + 3 + 9 + 27 + 81);
  EXPECT_EQ(stats.vps_created, 121u);
}

TEST_P(SsrCreateVp, StackSizeOptionGivesTheVpThatStack) {
  // 1 MiB of locals would overflow the 256 KiB default stack (and hit its guard page).
  std::atomic<std::uint64_t> sum{0};
  run_ssr(cores(), [&](Context& ctx) {
    ctx.create_vp(
        [&](Context&) {
          volatile unsigned char big[1024 * 1024];
          for (std::size_t i = 0; i < sizeof big; i += 512) big[i] = static_cast<unsigned char>(i);
          std::uint64_t total = 0;
          for (std::size_t i = 0; i < sizeof big; i += 512) total += big[i];
          sum = total;
        },
        CreateOptions{.name = "big-stack", .stack_size = 4 * 1024 * 1024});
  });
  std::uint64_t expected = 0;
  for (std::size_t i = 0; i < 1024 * 1024; i += 512) expected += static_cast<unsigned char>(i);
  EXPECT_EQ(sum.load(), expected);
}

MOIRAI_INSTANTIATE_MACHINES(SsrCreateVp);

// ---------------------------------------------------------------------------------------------
// end_vp
// ---------------------------------------------------------------------------------------------

class SsrEndVp : public CoreCountTest {};

// end_from_deep_inside ends the VP `depth` frames down, one Guard per frame.
void end_from_deep_inside(Context& ctx, int depth, std::atomic<int>& destroyed,
                          std::atomic<bool>& continued) {
  // The recursion goes through a std::function: GCC's -Winfinite-recursion does not count the
  // [[noreturn]] end_vp as a way out.
  std::function<void(int)> frame = [&](int level) {
    Guard guard{&destroyed};
    if (level == 0) ctx.end_vp();
    frame(level - 1);
    continued = true;  // never reached: end_vp does not return
  };
  frame(depth);
}

TEST_P(SsrEndVp, ExplicitEndUnwindsTheWholeStack) {
  std::atomic<int> destroyed{0};
  std::atomic<bool> continued{false};
  run_ssr(cores(), [&](Context& ctx) {
    ctx.create_vp([&](Context& me) {
      end_from_deep_inside(me, 4, destroyed, continued);  // 5 frames, one Guard each
      continued = true;
    });
  });
  EXPECT_EQ(destroyed.load(), 5) << "every frame on the VP stack must unwind";
  EXPECT_FALSE(continued.load()) << "end_vp must not return";
}

TEST_P(SsrEndVp, ExplicitEndInTheSeed) {
  std::atomic<int> destroyed{0};
  std::atomic<bool> continued{false};
  run_ssr(cores(), [&](Context& ctx) {
    Guard guard{&destroyed};
    ctx.end_vp();
    continued = true;
  });
  EXPECT_EQ(destroyed.load(), 1);
  EXPECT_FALSE(continued.load());
}

TEST_P(SsrEndVp, ReturningEndsTheVpAndUnwinds) {
  std::atomic<int> destroyed{0};
  std::atomic<int> ran{0};
  run_ssr(cores(), [&](Context& ctx) {
    for (int i = 0; i < 4; ++i) {
      ctx.create_vp([&](Context&) {
        Guard guard{&destroyed};
        ran.fetch_add(1);
      });
    }
  });
  EXPECT_EQ(ran.load(), 4);
  EXPECT_EQ(destroyed.load(), 4);
}

// The run ends when every VP has ended, not when the seed has: VPs that outlive their creator
// keep synchronising until they are done.
TEST_P(SsrEndVp, RunWaitsForVpsThatOutliveTheSeed) {
  static constexpr int kRounds = 100;
  static const ssr::MessageType<int> kCount{"count"};
  std::atomic<int> received{0};
  std::atomic<bool> seed_ended{false};
  run_ssr(cores(), [&](Context& ctx) {
    const VpRef receiver = ctx.create_vp([&](Context& me) {
      for (int i = 0; i < kRounds; ++i) {
        if (me.receive_of_type_to(kCount) == i) received.fetch_add(1);
      }
    });
    ctx.create_vp([&, receiver](Context& me) {
      for (int i = 0; i < kRounds; ++i) me.send_of_type_to(kCount, receiver, i);
    });
    seed_ended = true;
    ctx.end_vp();
  });
  EXPECT_EQ(received.load(), kRounds);
  EXPECT_TRUE(seed_ended.load());
}

MOIRAI_INSTANTIATE_MACHINES(SsrEndVp);

// ---------------------------------------------------------------------------------------------
// send_from_to / receive_from_to
// ---------------------------------------------------------------------------------------------

class SsrFromTo : public CoreCountTest {};

struct Payload {
  int number = 0;
  std::string text;
  std::vector<double> values;
};

TEST_P(SsrFromTo, DeliversValueAndType) {
  std::string text;
  Payload payload;
  double real = 0;
  int moved_only = 0;
  VpRef sender_ref;
  VpRef seed_ref;
  std::vector<VpRef> received_from;
  run_ssr(cores(), [&](Context& ctx) {
    const VpRef seed = ctx.self();
    seed_ref = seed;
    const VpRef receiver = ctx.create_vp([&, seed](Context& me) {
      const VpRef sender = me.receive_from_to<VpRef>(seed);
      received_from.push_back(me.received_from());
      text = me.receive_from_to<std::string>(sender);
      received_from.push_back(me.received_from());
      payload = me.receive_from_to<Payload>(sender);
      received_from.push_back(me.received_from());
      real = me.receive_from_to<double>(sender);
      received_from.push_back(me.received_from());
      std::unique_ptr<int> box = me.receive_from_to<std::unique_ptr<int>>(sender);
      received_from.push_back(me.received_from());
      moved_only = box ? *box : -1;
    });
    sender_ref = ctx.create_vp([receiver](Context& me) {
      me.send_from_to(receiver, std::string("a string long enough to live on the heap"));
      me.send_from_to(receiver, Payload{7, "seven", {1.5, 2.5}});
      me.send_from_to(receiver, 0.25);
      me.send_from_to(receiver, std::make_unique<int>(42));  // move-only messages work
    });
    ctx.send_from_to(receiver, sender_ref);
  });
  EXPECT_EQ(text, "a string long enough to live on the heap");
  EXPECT_EQ(payload.number, 7);
  EXPECT_EQ(payload.text, "seven");
  EXPECT_EQ(payload.values, (std::vector<double>{1.5, 2.5}));
  EXPECT_EQ(real, 0.25);
  EXPECT_EQ(moved_only, 42);
  ASSERT_EQ(received_from.size(), 5u);
  EXPECT_EQ(received_from[0], seed_ref) << "the first message came from the seed";
  for (std::size_t i = 1; i < received_from.size(); ++i) {
    EXPECT_EQ(received_from[i], sender_ref) << "received_from() after message " << i;
  }
}

// Rendezvous: neither side continues before the other arrived. The receiver announces each
// arrival just before it calls receive; the sender, once its send returned, must see it.
TEST_P(SsrFromTo, IsARendezvousForBothSides) {
  static constexpr int kRounds = 200;
  std::atomic<int> receiver_arrived{-1};
  std::atomic<int> sender_arrived{-1};
  std::atomic<int> sender_early{0};
  std::atomic<int> receiver_early{0};
  std::atomic<int> wrong_value{0};
  run_ssr(cores(), [&](Context& ctx) {
    const VpRef seed = ctx.self();
    const VpRef receiver = ctx.create_vp([&, seed](Context& me) {
      const VpRef sender = me.receive_from_to<VpRef>(seed);
      for (int i = 0; i < kRounds; ++i) {
        if (i % 3 == 0) spin(2000);
        receiver_arrived = i;
        const int value = me.receive_from_to<int>(sender);
        if (value != i) wrong_value.fetch_add(1);
        if (sender_arrived.load() < i) receiver_early.fetch_add(1);
      }
    });
    const VpRef sender = ctx.create_vp([&, receiver](Context& me) {
      for (int i = 0; i < kRounds; ++i) {
        if (i % 3 == 1) spin(2000);
        sender_arrived = i;
        me.send_from_to(receiver, i);
        if (receiver_arrived.load() < i) sender_early.fetch_add(1);
      }
    });
    ctx.send_from_to(receiver, sender);
  });
  EXPECT_EQ(wrong_value.load(), 0);
  EXPECT_EQ(sender_early.load(), 0) << "send_from_to returned before the receiver arrived";
  EXPECT_EQ(receiver_early.load(), 0) << "receive_from_to returned before the sender arrived";
}

// Both arrival orders, made certain with a probe: the second side starts only once the first
// side's request has been handled (so the first side is waiting inside the runtime).
template <class Send, class Receive>
void in_both_orders(std::size_t cores, bool receiver_first, ConstructKind send_kind,
                    ConstructKind receive_kind, Send send, Receive receive) {
  HandledProbe probe;
  Ticker ticker("tick");
  int got = 0;
  VpRef got_from;
  VpRef sender_ref;
  ssr::RunOptions options;
  options.observer = &probe;
  run_ssr(
      cores,
      [&](Context& ctx) {
        ticker.start(ctx);
        const VpRef seed = ctx.self();
        const VpRef receiver = ctx.create_vp([&, seed](Context& me) {
          const VpRef sender = me.receive_from_to<VpRef>(seed);
          if (!receiver_first) {
            while (probe.handled(sender.id(), send_kind) == 0) ticker.tick(me);
          }
          got = receive(me, sender);
          got_from = me.received_from();
          me.send_from_to(seed, 0);
        });
        sender_ref = ctx.create_vp([&, receiver](Context& me) {
          if (receiver_first) {
            // receive_from_to's first request is the one that took the sender's name.
            const std::size_t before = receive_kind == ssr::detail::kReceiveFromTo ? 1 : 0;
            while (probe.handled(receiver.id(), receive_kind) <= before) ticker.tick(me);
          }
          send(me, receiver);
        });
        ctx.send_from_to(receiver, sender_ref);
        ctx.receive_from_to<int>(receiver);
        ticker.stop(ctx);
      },
      options);
  EXPECT_EQ(got, 1234);
  EXPECT_EQ(got_from, sender_ref);
}

const ssr::MessageType<int> kOrdered{"ordered"};

TEST_P(SsrFromTo, WorksWhicheverSideArrivesFirst) {
  for (bool receiver_first : {true, false}) {
    SCOPED_TRACE(receiver_first ? "receiver first" : "sender first");
    in_both_orders(
        cores(), receiver_first, ssr::detail::kSendFromTo, ssr::detail::kReceiveFromTo,
        [](Context& me, VpRef receiver) { me.send_from_to(receiver, 1234); },
        [](Context& me, VpRef sender) { return me.receive_from_to<int>(sender); });
  }
}

TEST_P(SsrFromTo, WorksAcrossCores) {
  static constexpr int kRoundTrips = 200;
  const CoreId far = static_cast<CoreId>(cores() - 1);
  std::vector<CoreId> ping_cores;
  std::vector<CoreId> pong_cores;
  int last = -1;
  run_ssr(cores(), [&](Context& ctx) {
    const VpRef seed = ctx.self();
    const VpRef pong = ctx.create_vp(
        [&, seed](Context& me) {
          const VpRef ping = me.receive_from_to<VpRef>(seed);
          for (int i = 0; i < kRoundTrips; ++i) {
            const int value = me.receive_from_to<int>(ping);
            pong_cores.push_back(me.core());
            me.send_from_to(ping, value + 1);
          }
        },
        CreateOptions{.name = "pong", .core = far});
    const VpRef ping = ctx.create_vp(
        [&, pong](Context& me) {
          int value = 0;
          for (int i = 0; i < kRoundTrips; ++i) {
            me.send_from_to(pong, value);
            value = me.receive_from_to<int>(pong) + 1;
            ping_cores.push_back(me.core());
          }
          last = value;
        },
        CreateOptions{.name = "ping", .core = 0});
    ctx.send_from_to(pong, ping);
  });
  EXPECT_EQ(last, 2 * kRoundTrips);
  ASSERT_EQ(ping_cores.size(), static_cast<std::size_t>(kRoundTrips));
  ASSERT_EQ(pong_cores.size(), static_cast<std::size_t>(kRoundTrips));
  EXPECT_TRUE(std::all_of(ping_cores.begin(), ping_cores.end(), [](CoreId c) { return c == 0; }));
  EXPECT_TRUE(std::all_of(pong_cores.begin(), pong_cores.end(),
                          [far](CoreId c) { return c == far; }));
}

// Many pairs at once: every receiver gets exactly its own sender's messages, in order (a sender
// cannot send its next message before the previous one was received).
TEST_P(SsrFromTo, ManyPairsAtOnce) {
  static constexpr int kPairs = 64;
  static constexpr int kMessages = 25;
  std::vector<int> in_order(kPairs, 0);
  std::vector<int> from_right_sender(kPairs, 0);
  run_ssr(cores(), [&](Context& ctx) {
    const VpRef seed = ctx.self();
    for (int p = 0; p < kPairs; ++p) {
      const VpRef receiver = ctx.create_vp([&, p, seed](Context& me) {
        const VpRef sender = me.receive_from_to<VpRef>(seed);
        for (int m = 0; m < kMessages; ++m) {
          const int value = me.receive_from_to<int>(sender);
          if (value == p * 1000 + m) ++in_order[p];
          if (me.received_from() == sender) ++from_right_sender[p];
        }
      });
      const VpRef sender = ctx.create_vp([p, receiver](Context& me) {
        for (int m = 0; m < kMessages; ++m) me.send_from_to(receiver, p * 1000 + m);
      });
      ctx.send_from_to(receiver, sender);
    }
  });
  for (int p = 0; p < kPairs; ++p) {
    EXPECT_EQ(in_order[p], kMessages) << "pair " << p;
    EXPECT_EQ(from_right_sender[p], kMessages) << "pair " << p;
  }
}

// receive_from_to takes only the named sender's message, even when another sender to the same
// receiver is already waiting.
TEST_P(SsrFromTo, TakesOnlyTheNamedSendersMessage) {
  HandledProbe probe;
  Ticker ticker("tick");
  std::vector<std::string> got;
  ssr::RunOptions options;
  options.observer = &probe;
  run_ssr(
      cores(),
      [&](Context& ctx) {
        ticker.start(ctx);
        const VpRef seed = ctx.self();
        const VpRef receiver = ctx.create_vp([&, seed](Context& me) {
          const auto [a, b] = me.receive_from_to<std::pair<VpRef, VpRef>>(seed);
          // Wait until a's send is parked in the runtime, then ask for b's first.
          while (probe.handled(a.id(), ssr::detail::kSendFromTo) == 0) ticker.tick(me);
          got.push_back(me.receive_from_to<std::string>(b));
          got.push_back(me.receive_from_to<std::string>(a));
          me.send_from_to(seed, 0);
        });
        const VpRef a = ctx.create_vp(
            [receiver](Context& me) { me.send_from_to(receiver, std::string("from a")); });
        const VpRef b = ctx.create_vp(
            [receiver](Context& me) { me.send_from_to(receiver, std::string("from b")); });
        ctx.send_from_to(receiver, std::pair<VpRef, VpRef>{a, b});
        ctx.receive_from_to<int>(receiver);
        ticker.stop(ctx);
      },
      options);
  EXPECT_EQ(got, (std::vector<std::string>{"from b", "from a"}));
}

MOIRAI_INSTANTIATE_MACHINES(SsrFromTo);

// ---------------------------------------------------------------------------------------------
// send_of_type_to / receive_of_type_to
// ---------------------------------------------------------------------------------------------

class SsrOfTypeTo : public CoreCountTest {};

const ssr::MessageType<VpId> kWhoAmI{"who-am-i"};

TEST_P(SsrOfTypeTo, AnonymousSendersAndReceivedFromNamesThem) {
  static constexpr int kSenders = 10;
  std::vector<VpId> created;
  std::vector<VpId> announced;
  std::vector<VpId> named_by_received_from;
  run_ssr(cores(), [&](Context& ctx) {
    const VpRef receiver = ctx.create_vp([&](Context& me) {
      for (int i = 0; i < kSenders; ++i) {
        announced.push_back(me.receive_of_type_to(kWhoAmI));
        named_by_received_from.push_back(me.received_from().id());
      }
    });
    for (int i = 0; i < kSenders; ++i) {
      created.push_back(ctx.create_vp([receiver](Context& me) {
                             me.send_of_type_to(kWhoAmI, receiver, me.self().id());
                           })
                            .id());
    }
  });
  EXPECT_EQ(announced, named_by_received_from) << "received_from() must name each sender";
  std::sort(announced.begin(), announced.end());
  std::sort(created.begin(), created.end());
  EXPECT_EQ(announced, created);
}

TEST_P(SsrOfTypeTo, WorksWhicheverSideArrivesFirst) {
  for (bool receiver_first : {true, false}) {
    SCOPED_TRACE(receiver_first ? "receiver first" : "sender first");
    in_both_orders(
        cores(), receiver_first, ssr::detail::kSendOfTypeTo, ssr::detail::kReceiveOfTypeTo,
        [](Context& me, VpRef receiver) { me.send_of_type_to(kOrdered, receiver, 1234); },
        [](Context& me, VpRef) { return me.receive_of_type_to(kOrdered); });
  }
}

// Two message types of the same C++ type, two receivers: a message goes only to its receiver and
// only to a receive of its own type, whatever order the receiver asks in.
TEST_P(SsrOfTypeTo, MatchesByReceiverAndMessageType) {
  static const ssr::MessageType<int> kRed{"red"};
  static const ssr::MessageType<int> kBlue{"blue"};
  std::vector<int> first_got;
  std::vector<int> second_got;
  run_ssr(cores(), [&](Context& ctx) {
    const VpRef first = ctx.create_vp([&](Context& me) {
      first_got.push_back(me.receive_of_type_to(kBlue));
      first_got.push_back(me.receive_of_type_to(kRed));
      first_got.push_back(me.receive_of_type_to(kBlue));
    });
    const VpRef second = ctx.create_vp([&](Context& me) {
      second_got.push_back(me.receive_of_type_to(kRed));
      second_got.push_back(me.receive_of_type_to(kBlue));
    });
    ctx.create_vp([=](Context& me) { me.send_of_type_to(kRed, first, 1); });
    ctx.create_vp([=](Context& me) { me.send_of_type_to(kBlue, first, 2); });
    ctx.create_vp([=](Context& me) { me.send_of_type_to(kBlue, first, 2); });
    ctx.create_vp([=](Context& me) { me.send_of_type_to(kRed, second, 3); });
    ctx.create_vp([=](Context& me) { me.send_of_type_to(kBlue, second, 4); });
  });
  EXPECT_EQ(first_got, (std::vector<int>{2, 1, 2}));
  EXPECT_EQ(second_got, (std::vector<int>{3, 4}));
}

// "Waits until it was received": a send_of_type_to returns only after its receiver arrived.
TEST_P(SsrOfTypeTo, SenderWaitsUntilReceived) {
  static const ssr::MessageType<int> kNumber{"number"};
  static constexpr int kSenders = 20;
  std::atomic<int> receives_started{0};
  std::atomic<int> sends_returned{0};
  std::atomic<int> early{0};
  run_ssr(cores(), [&](Context& ctx) {
    const VpRef receiver = ctx.create_vp([&](Context& me) {
      for (int i = 0; i < kSenders; ++i) {
        spin(3000);
        receives_started.fetch_add(1);
        me.receive_of_type_to(kNumber);
      }
    });
    for (int i = 0; i < kSenders; ++i) {
      ctx.create_vp([&, receiver](Context& me) {
        me.send_of_type_to(kNumber, receiver, 1);
        // Each receive takes one message: once k sends returned, k receives must have started.
        const int returned = sends_returned.fetch_add(1) + 1;
        if (receives_started.load() < returned) early.fetch_add(1);
      });
    }
  });
  EXPECT_EQ(early.load(), 0);
}

MOIRAI_INSTANTIATE_MACHINES(SsrOfTypeTo);

// ---------------------------------------------------------------------------------------------
// send_of_type / receive_of_type
// ---------------------------------------------------------------------------------------------

class SsrOfType : public CoreCountTest {};

TEST_P(SsrOfType, AnyReceiverTakesAGlobalMessage) {
  static const ssr::MessageType<int> kWork{"work"};
  static constexpr int kSenders = 3;
  static constexpr int kReceivers = 3;
  static constexpr int kEach = 10;
  std::mutex mutex;
  std::vector<int> got;
  std::map<int, VpId> sender_of;  // sender index -> VP
  std::vector<std::pair<int, VpId>> got_from;
  run_ssr(cores(), [&](Context& ctx) {
    for (int r = 0; r < kReceivers; ++r) {
      ctx.create_vp([&](Context& me) {
        for (int i = 0; i < kEach; ++i) {
          const int value = me.receive_of_type(kWork);
          std::lock_guard<std::mutex> hold(mutex);
          got.push_back(value);
          got_from.emplace_back(value / 100, me.received_from().id());
        }
      });
    }
    for (int s = 0; s < kSenders; ++s) {
      const VpRef sender = ctx.create_vp([s](Context& me) {
        for (int i = 0; i < kEach; ++i) me.send_of_type(kWork, s * 100 + i);
      });
      std::lock_guard<std::mutex> hold(mutex);
      sender_of[s] = sender.id();
    }
  });
  std::vector<int> expected;
  for (int s = 0; s < kSenders; ++s) {
    for (int i = 0; i < kEach; ++i) expected.push_back(s * 100 + i);
  }
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, expected) << "every message exactly once";
  for (const auto& [s, from] : got_from) EXPECT_EQ(from, sender_of[s]) << "received_from()";
}

TEST_P(SsrOfType, WorksWhicheverSideArrivesFirst) {
  for (bool receiver_first : {true, false}) {
    SCOPED_TRACE(receiver_first ? "receiver first" : "sender first");
    in_both_orders(
        cores(), receiver_first, ssr::detail::kSendOfType, ssr::detail::kReceiveOfType,
        [](Context& me, VpRef) { me.send_of_type(kOrdered, 1234); },
        [](Context& me, VpRef) { return me.receive_of_type(kOrdered); });
  }
}

TEST_P(SsrOfType, ChannelsAreSeparate) {
  static const ssr::MessageType<std::string> kWords{"words"};
  static const ssr::MessageType<int> kNumbers{"numbers"};
  static const ssr::MessageType<int> kOtherNumbers{"other numbers"};
  std::vector<std::string> words;
  std::vector<int> numbers;
  std::vector<int> other_numbers;
  run_ssr(cores(), [&](Context& ctx) {
    ctx.create_vp([&](Context& me) {
      other_numbers.push_back(me.receive_of_type(kOtherNumbers));
      numbers.push_back(me.receive_of_type(kNumbers));
      words.push_back(me.receive_of_type(kWords));
    });
    ctx.create_vp([](Context& me) { me.send_of_type(kNumbers, 1); });
    ctx.create_vp([](Context& me) { me.send_of_type(kWords, std::string("one")); });
    ctx.create_vp([](Context& me) { me.send_of_type(kOtherNumbers, 2); });
  });
  EXPECT_EQ(words, (std::vector<std::string>{"one"}));
  EXPECT_EQ(numbers, (std::vector<int>{1}));
  EXPECT_EQ(other_numbers, (std::vector<int>{2}));
}

MOIRAI_INSTANTIATE_MACHINES(SsrOfType);

// ---------------------------------------------------------------------------------------------
// singleton
// ---------------------------------------------------------------------------------------------

class SsrSingleton : public CoreCountTest {};

TEST_P(SsrSingleton, RunsOnceInAVpThatReachedIt) {
  static constexpr int kVps = 8;
  ssr::Singleton once("once");
  std::atomic<int> runs{0};
  std::atomic<bool> done{false};
  std::atomic<VpId> ran_in{0};
  std::atomic<int> continued_early{0};
  std::atomic<int> continued{0};
  std::set<VpId> reached;
  std::mutex mutex;
  run_ssr(cores(), [&](Context& ctx) {
    for (int i = 0; i < kVps; ++i) {
      ctx.create_vp([&](Context& me) {
        {
          std::lock_guard<std::mutex> hold(mutex);
          reached.insert(me.self().id());
        }
        me.singleton(once, [&] {
          runs.fetch_add(1);
          ran_in = me.self().id();
          spin(200000);
          done = true;
        });
        if (!done) continued_early.fetch_add(1);
        continued.fetch_add(1);
      });
    }
  });
  EXPECT_EQ(runs.load(), 1);
  EXPECT_EQ(continued.load(), kVps);
  EXPECT_EQ(continued_early.load(), 0);
  EXPECT_EQ(reached.count(ran_in.load()), 1u);
}

TEST_P(SsrSingleton, ReachedAgainIsSkipped) {
  ssr::Singleton once("once");
  int runs = 0;
  run_ssr(cores(), [&](Context& ctx) {
    for (int i = 0; i < 3; ++i) ctx.singleton(once, [&] { ++runs; });
  });
  EXPECT_EQ(runs, 1);
}

TEST_P(SsrSingleton, DistinctSingletonsAreIndependent) {
  ssr::Singleton first("first");
  ssr::Singleton second("second");
  std::atomic<int> first_runs{0};
  std::atomic<int> second_runs{0};
  run_ssr(cores(), [&](Context& ctx) {
    for (int i = 0; i < 6; ++i) {
      ctx.create_vp([&, i](Context& me) {
        if (i % 2 == 0) {
          me.singleton(first, [&] { first_runs.fetch_add(1); });
          me.singleton(second, [&] { second_runs.fetch_add(1); });
        } else {
          me.singleton(second, [&] { second_runs.fetch_add(1); });
          me.singleton(first, [&] { first_runs.fetch_add(1); });
        }
      });
    }
  });
  EXPECT_EQ(first_runs.load(), 1);
  EXPECT_EQ(second_runs.load(), 1);
}

// The block is ordinary VP code: it may use constructs itself (here it creates a helper and
// waits for its answer), and the other VPs still wait for the whole block.
TEST_P(SsrSingleton, BlockMayUseConstructs) {
  static constexpr int kVps = 6;
  ssr::Singleton once("once");
  std::atomic<int> runs{0};
  std::atomic<int> answer{0};
  std::atomic<int> saw_answer{0};
  run_ssr(cores(), [&](Context& ctx) {
    for (int i = 0; i < kVps; ++i) {
      ctx.create_vp([&](Context& me) {
        me.singleton(once, [&] {
          runs.fetch_add(1);
          const VpRef parent = me.self();
          const VpRef helper = me.create_vp([parent](Context& h) { h.send_from_to(parent, 99); });
          answer = me.receive_from_to<int>(helper);
        });
        if (answer.load() == 99) saw_answer.fetch_add(1);
      });
    }
  });
  EXPECT_EQ(runs.load(), 1);
  EXPECT_EQ(saw_answer.load(), kVps);
}

MOIRAI_INSTANTIATE_MACHINES(SsrSingleton);

}  // namespace
}  // namespace moirai::test

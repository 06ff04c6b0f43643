// Deadlock detection: when no VP runs or is ready but some are blocked, ssr::run stops with a
// DeadlockError that names every blocked VP, its construct and its call site. Every run here is
// bounded by a 5 s watchdog: a runtime that misses the deadlock hangs, and the process aborts.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <vector>

#include "moirai/proto_runtime/errors.h"
#include "moirai/ssr/ssr.h"
#include "support/ssr_support.h"
#include "support/test_support.h"

namespace moirai::test {
namespace {

using ssr::Context;
using ssr::VpRef;

constexpr std::chrono::seconds kDeadlockLimit{5};

struct Guard {
  std::atomic<int>* destroyed;
  ~Guard() { destroyed->fetch_add(1); }
};

// run_expecting_deadlock runs `seed` and returns the DeadlockError it must end with.
proto::DeadlockError run_expecting_deadlock(std::size_t cores,
                                            std::function<void(Context&)> seed) {
  try {
    run_ssr(cores, std::move(seed), {}, kDeadlockLimit);
  } catch (const proto::DeadlockError& error) {
    return error;
  }
  ADD_FAILURE() << "ssr::run returned or threw something other than DeadlockError";
  return proto::DeadlockError({});
}

std::string file_of_this_test() { return std::source_location::current().file_name(); }

class SsrDeadlock : public CoreCountTest {};

// Two VPs each wait in receive_from_to for the other.
TEST_P(SsrDeadlock, TwoVpsReceivingFromEachOther) {
  unsigned line_a = 0;
  unsigned line_b = 0;
  VpRef a;
  VpRef b;
  std::atomic<int> destroyed{0};
  std::atomic<int> continued{0};
  const proto::DeadlockError error = run_expecting_deadlock(cores(), [&](Context& ctx) {
    const VpRef seed = ctx.self();
    a = ctx.create_vp(
        [&, seed](Context& me) {
          Guard guard{&destroyed};
          const VpRef other = me.receive_from_to<VpRef>(seed);
          line_a = __LINE__ + 1;
          me.receive_from_to<int>(other);
          continued.fetch_add(1);
        },
        ssr::CreateOptions{.name = "A"});
    const VpRef first = a;
    b = ctx.create_vp(
        [&, first](Context& me) {
          Guard guard{&destroyed};
          line_b = __LINE__ + 1;
          me.receive_from_to<int>(first);
          continued.fetch_add(1);
        },
        ssr::CreateOptions{.name = "B"});
    ctx.send_from_to(a, b);
  });

  const std::vector<proto::BlockedVp>& blocked = error.blocked();
  ASSERT_EQ(blocked.size(), 2u) << error.what();
  EXPECT_EQ(blocked[0].vp, a.id());
  EXPECT_EQ(blocked[0].name, "A");
  EXPECT_EQ(blocked[0].construct, "receive_from_to");
  EXPECT_EQ(std::string(blocked[0].site.file), file_of_this_test());
  EXPECT_EQ(blocked[0].site.line, line_a);
  EXPECT_EQ(blocked[1].vp, b.id());
  EXPECT_EQ(blocked[1].name, "B");
  EXPECT_EQ(blocked[1].construct, "receive_from_to");
  EXPECT_EQ(std::string(blocked[1].site.file), file_of_this_test());
  EXPECT_EQ(blocked[1].site.line, line_b);
  // The message names both VPs, the construct and both call sites.
  const std::string what = error.what();
  EXPECT_NE(what.find("'A'"), std::string::npos) << what;
  EXPECT_NE(what.find("'B'"), std::string::npos) << what;
  EXPECT_NE(what.find("receive_from_to"), std::string::npos) << what;
  EXPECT_NE(what.find(site_of(__FILE__, line_a)), std::string::npos) << what;
  EXPECT_NE(what.find(site_of(__FILE__, line_b)), std::string::npos) << what;
  // The blocked VPs were unwound, not resumed as if their receive had succeeded.
  EXPECT_EQ(destroyed.load(), 2);
  EXPECT_EQ(continued.load(), 0);
}

// A deadlock among some VPs while others are still busy is found once the busy ones finish;
// the VPs that ended are not listed.
TEST_P(SsrDeadlock, FoundAfterTheOtherVpsEnded) {
  static const ssr::MessageType<int> kNever{"never"};
  static const ssr::MessageType<int> kWork{"work"};
  unsigned line = 0;
  VpRef lonely;
  std::atomic<int> work_done{0};
  const proto::DeadlockError error = run_expecting_deadlock(cores(), [&](Context& ctx) {
    lonely = ctx.create_vp(
        [&](Context& me) {
          line = __LINE__ + 1;
          me.receive_of_type(kNever);
        },
        ssr::CreateOptions{.name = "lonely"});
    const VpRef sink = ctx.create_vp([&](Context& me) {
      for (int i = 0; i < 100; ++i) work_done += me.receive_of_type_to(kWork);
    });
    for (int i = 0; i < 100; ++i) ctx.send_of_type_to(kWork, sink, 1);
  });
  EXPECT_EQ(work_done.load(), 100);
  ASSERT_EQ(error.blocked().size(), 1u) << error.what();
  EXPECT_EQ(error.blocked()[0].vp, lonely.id());
  EXPECT_EQ(error.blocked()[0].name, "lonely");
  EXPECT_EQ(error.blocked()[0].construct, "receive_of_type");
  EXPECT_EQ(error.blocked()[0].site.line, line);
  EXPECT_NE(std::string(error.what()).find("never"), std::string::npos)
      << "the report should say which channel it waits on: " << error.what();
}

// Every kind of wait shows up with its own construct name.
TEST_P(SsrDeadlock, ReportsEachConstructItsVpsWaitIn) {
  static const ssr::MessageType<int> kTyped{"typed"};
  static const ssr::MessageType<int> kGlobal{"global"};
  std::vector<std::string> expected;
  std::vector<unsigned> lines(4, 0);
  ssr::Singleton stuck("stuck");
  const proto::DeadlockError error = run_expecting_deadlock(cores(), [&](Context& ctx) {
    const VpRef seed = ctx.self();
    // 1: a send_from_to to the seed, which never receives it.
    ctx.create_vp([&, seed](Context& me) {
      lines[0] = __LINE__ + 1;
      me.send_from_to(seed, 1);
    });
    // 2: a send_of_type_to to the seed, which never receives it.
    ctx.create_vp([&, seed](Context& me) {
      lines[1] = __LINE__ + 1;
      me.send_of_type_to(kTyped, seed, 2);
    });
    // 3: a send_of_type nobody receives.
    ctx.create_vp([&](Context& me) {
      lines[2] = __LINE__ + 1;
      me.send_of_type(kGlobal, 3);
    });
    // 4: the seed owns a singleton and blocks inside its block; a VP waits for the singleton.
    ctx.singleton(stuck, [&] {
      ctx.create_vp([&](Context& me) {
        lines[3] = __LINE__ + 1;
        me.singleton(stuck, [] {});
      });
      static const ssr::MessageType<int> kForever{"forever"};
      ctx.receive_of_type_to(kForever);
    });
  });
  const std::vector<proto::BlockedVp>& blocked = error.blocked();
  ASSERT_EQ(blocked.size(), 5u) << error.what();
  EXPECT_EQ(blocked[0].construct, "receive_of_type_to") << "the seed, first by creation order";
  EXPECT_EQ(blocked[1].construct, "send_from_to");
  EXPECT_EQ(blocked[1].site.line, lines[0]);
  EXPECT_EQ(blocked[2].construct, "send_of_type_to");
  EXPECT_EQ(blocked[2].site.line, lines[1]);
  EXPECT_EQ(blocked[3].construct, "send_of_type");
  EXPECT_EQ(blocked[3].site.line, lines[2]);
  EXPECT_EQ(blocked[4].construct, "singleton");
  EXPECT_EQ(blocked[4].site.line, lines[3]);
  for (const proto::BlockedVp& vp : blocked) {
    EXPECT_EQ(std::string(vp.site.file), file_of_this_test()) << vp.name;
  }
}

MOIRAI_INSTANTIATE_MACHINES(SsrDeadlock);

}  // namespace
}  // namespace moirai::test

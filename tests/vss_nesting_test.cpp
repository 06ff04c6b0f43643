// Tasks that submit tasks, taskwait and taskwait_on: a task's submissions depend among
// themselves, a task ends only after them (an implicit taskwait), a taskwait waits for the
// caller's own submissions, taskwait_on for the last writer of one datum. Each wait is recorded
// as a group of the units it waited for and a constraint from the last of them.
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <string>
#include <vector>

#include "moirai/vss/vss.h"
#include "support/test_support.h"
#include "support/vss_support.h"

namespace moirai::test {
namespace {

using vss::Context;
using vss::in;
using vss::inout;
using vss::out;

class VssNesting : public CoreCountTest {};

TEST_P(VssNesting, ATaskEndsAfterItsSubmissions) {
  const std::size_t n = cores();
  GraphProbe probe;
  int y = 0;
  int z = 0;
  int seen = -1;
  run_vss(n, [&](Context& ctx) {
    ctx.submit([&, n](Context& parent) {
      parent.submit([&, n](Context& me) {
        dawdle(me, n, probe);
        y = 5;
      }, {out(y)}, {.name = "C1"});
      parent.submit([&, n](Context& me) {
        dawdle(me, n, probe);
        z = 2 * y;
      }, {in(y), out(z)}, {.name = "C2"});
    }, {out(z)}, {.name = "P"});
    ctx.submit([&](Context&) { seen = z; }, {in(z)}, {.name = "Q"});
  }, {.observer = &probe});
  EXPECT_EQ(seen, 10);
  EXPECT_EQ(probe.count("dep RAW", "C1", "C2"), 1u);
  EXPECT_EQ(probe.count("dep RAW", "P", "Q"), 1u);
  EXPECT_EQ(probe.count("submit", "P", "C1"), 1u);
  EXPECT_EQ(probe.count("taskwait", "C2", "P"), 1u) << "P's implicit taskwait ends with C2";
}

// A task's submissions form a domain of their own: a child's access to a datum its parent's
// sibling writes is not ordered after that sibling (the parent's own declaration is).
TEST_P(VssNesting, SubmissionsDependOnlyAmongThemselves) {
  GraphProbe probe;
  int x = 0;
  int seen = -1;
  run_vss(cores(), [&](Context& ctx) {
    ctx.submit([&, n = cores()](Context& me) {
      dawdle(me, n, probe);
      x = 1;
    }, {out(x)}, {.name = "W"});
    ctx.submit([&](Context& parent) {
      parent.submit([&](Context&) { seen = x; }, {in(x)}, {.name = "C"});
    }, {in(x)}, {.name = "P"});
  }, {.observer = &probe});
  EXPECT_EQ(seen, 1);
  EXPECT_EQ(probe.count("dep RAW", "W", "P"), 1u);
  EXPECT_EQ(probe.count("dep RAW", "W", "C"), 0u);
  EXPECT_EQ(probe.count("dep RAW"), 1u);
}

TEST_P(VssNesting, TaskwaitWaitsForEverySubmission) {
  const std::size_t n = cores();
  GraphProbe probe;
  std::array<std::atomic<bool>, 3> done{};
  std::array<bool, 3> seen{};
  run_vss(n, [&](Context& ctx) {
    for (std::size_t t = 0; t < done.size(); ++t) {
      ctx.submit([&, t, n](Context& me) {
        dawdle(me, n, probe);
        done[t] = true;
      }, {}, {.name = "T" + std::to_string(t)});
    }
    ctx.taskwait();
    for (std::size_t t = 0; t < done.size(); ++t) seen[t] = done[t].load();
  }, {.observer = &probe});
  for (std::size_t t = 0; t < done.size(); ++t) EXPECT_TRUE(seen[t]) << "T" << t;
  EXPECT_EQ(probe.count("taskwait", "", "main"), 1u) << "freed by the last task to end";
  const std::vector<std::string> groups = probe.group_names();
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0], "taskwait in 'main'");
  EXPECT_EQ(probe.members(kGroupSink), 1u);
  EXPECT_GE(probe.members(kGroupSource), 1u);
  EXPECT_LE(probe.members(kGroupSource), 3u);
}

TEST_P(VssNesting, TaskwaitInsideATaskWaitsForItsOwnChildrenOnly) {
  const std::size_t n = cores();
  GraphProbe probe;
  std::atomic<bool> child_done{false};
  bool seen = false;
  run_vss(n, [&](Context& ctx) {
    ctx.submit([&, n](Context& parent) {
      parent.submit([&, n](Context& me) {
        dawdle(me, n, probe);
        child_done = true;
      }, {}, {.name = "child"});
      parent.taskwait();
      seen = child_done.load();
    }, {}, {.name = "parent"});
  }, {.observer = &probe});
  EXPECT_TRUE(seen);
}

TEST_P(VssNesting, TaskwaitOnWaitsForTheLastWriterOnly) {
  const std::size_t n = cores();
  GraphProbe probe;
  int x = 0;
  int y = 0;
  int seen = -1;
  run_vss(n, [&](Context& ctx) {
    ctx.submit([&, n](Context& me) {
      dawdle(me, n, probe);
      x = 7;
    }, {out(x, "x")}, {.name = "W"});
    ctx.submit([&](Context&) { y = 1; }, {out(y, "y")}, {.name = "U"});
    ctx.taskwait_on(x);
    seen = x;
    ctx.taskwait();
  }, {.observer = &probe});
  EXPECT_EQ(seen, 7);
  EXPECT_EQ(y, 1);
  EXPECT_EQ(probe.count("taskwait_on", "W", "main"), 1u);
  EXPECT_EQ(probe.count("taskwait_on"), 1u);
  bool named = false;
  for (const std::string& name : probe.group_names()) named |= name == "taskwait_on 'x' in 'main'";
  EXPECT_TRUE(named) << "the group names the datum by the name its writer gave it";
}

TEST_P(VssNesting, TaskwaitOnAWholeRegisteredMatrixWaitsForEveryBlock) {
  const std::size_t n = cores();
  GraphProbe probe;
  std::array<std::atomic<int>, 4> m{};
  std::array<int, 4> seen{};
  run_vss(n, [&](Context& ctx) {
    ctx.register_blocks(m, 2, 2, "M");
    for (std::size_t b = 0; b < 4; ++b) {
      ctx.submit([&, b, n](Context& me) {
        dawdle(me, n, probe);
        m[b] = static_cast<int>(b) + 1;
      }, {out(vss::region(m, b / 2, b % 2))});
    }
    ctx.taskwait_on(m);
    for (std::size_t b = 0; b < 4; ++b) seen[b] = m[b].load();
  }, {.observer = &probe});
  EXPECT_EQ(seen, (std::array<int, 4>{1, 2, 3, 4}));
}

TEST_P(VssNesting, TaskwaitOnADatumNoTaskWritesReturnsAtOnce) {
  GraphProbe probe;
  int x = 0;
  bool returned = false;
  run_vss(cores(), [&](Context& ctx) {
    ctx.taskwait_on(x);
    ctx.submit([&](Context& me) { me.taskwait_on(x); }, {}, {.name = "T"});
    ctx.taskwait();
    returned = true;
  }, {.observer = &probe});
  EXPECT_TRUE(returned);
  EXPECT_EQ(probe.count("taskwait_on"), 0u);
}

// A task that declared a datum as input may wait on it: its writer ended before it started.
TEST_P(VssNesting, TaskwaitOnADeclaredInputReturnsAtOnce) {
  int x = 0;
  int seen = -1;
  run_vss(cores(), [&](Context& ctx) {
    ctx.submit([&](Context&) { x = 4; }, {out(x)});
    ctx.submit([&](Context& me) {
      me.taskwait_on(x);
      seen = x;
    }, {in(x)});
  });
  EXPECT_EQ(seen, 4);
}

TEST_P(VssNesting, DeepNestingEndsInOrder) {
  std::vector<int> order;
  std::function<void(Context&, int)> nest = [&](Context& ctx, int depth) {
    if (depth == 0) return;
    ctx.submit([&, depth](Context& me) {
      nest(me, depth - 1);
    }, {}, {.name = "level" + std::to_string(depth)});
    ctx.taskwait();
    order.push_back(depth);
  };
  run_vss(cores(), [&](Context& ctx) { nest(ctx, 6); });
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3, 4, 5, 6}));
}

MOIRAI_INSTANTIATE_MACHINES(VssNesting);

}  // namespace
}  // namespace moirai::test

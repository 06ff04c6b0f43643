// VSs orders tasks by the data they declare, in program order per datum: read after write,
// write after read and write after write; independent readers run at once; blocks of a
// registered matrix are data of their own; pinned tasks run on their core. Each case runs on 1
// and 2 real cores and on sim:40, and checks the constraints the handlers recorded as well as
// what the tasks saw.
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <algorithm>
#include <chrono>
#include <mutex>
#include <set>
#include <string>
#include <thread>
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

class VssDependences : public CoreCountTest {};

TEST_P(VssDependences, ReadAfterWriteSeesTheWrite) {
  const std::size_t n = cores();
  GraphProbe probe;
  EventLog log;
  int x = 0;
  int seen = -1;
  run_vss(n, [&](Context& ctx) {
    ctx.submit([&](Context& me) {
      dawdle(me, n, probe);
      x = 42;
      log.add("A end");
    }, {out(x, "x")}, {.name = "A"});
    ctx.submit([&](Context&) {
      log.add("B start");
      seen = x;
    }, {in(x, "x")}, {.name = "B"});
    ctx.taskwait();
  }, {.observer = &probe});
  EXPECT_EQ(seen, 42);
  EXPECT_TRUE(log.before("A end", "B start"));
  EXPECT_EQ(probe.count("dep RAW", "A", "B"), 1u);
  EXPECT_EQ(probe.count("dep RAW"), 1u);
  EXPECT_EQ(probe.count("submit", "main", "A"), 1u);
  EXPECT_EQ(probe.count("submit", "main", "B"), 1u);
}

TEST_P(VssDependences, WriteAfterReadWaitsForEveryReader) {
  const std::size_t n = cores();
  GraphProbe probe;
  EventLog log;
  int x = 1;
  std::array<int, 2> seen{-1, -1};
  run_vss(n, [&](Context& ctx) {
    for (int r = 0; r < 2; ++r) {
      ctx.submit([&, r](Context& me) {
        dawdle(me, n, probe);
        seen[r] = x;
        log.add("R" + std::to_string(r) + " end");
      }, {in(x)}, {.name = "R" + std::to_string(r)});
    }
    ctx.submit([&](Context&) {
      log.add("W start");
      x = 2;
    }, {out(x)}, {.name = "W"});
    ctx.taskwait();
  }, {.observer = &probe});
  EXPECT_EQ(seen[0], 1);
  EXPECT_EQ(seen[1], 1);
  EXPECT_EQ(x, 2);
  EXPECT_TRUE(log.before("R0 end", "W start"));
  EXPECT_TRUE(log.before("R1 end", "W start"));
  EXPECT_EQ(probe.count("dep WAR", "R0", "W"), 1u);
  EXPECT_EQ(probe.count("dep WAR", "R1", "W"), 1u);
  EXPECT_EQ(probe.count("dep WAR"), 2u);
  EXPECT_EQ(probe.count("dep RAW"), 0u);
}

TEST_P(VssDependences, WriteAfterWriteKeepsProgramOrder) {
  const std::size_t n = cores();
  GraphProbe probe;
  EventLog log;
  int x = 0;
  run_vss(n, [&](Context& ctx) {
    ctx.submit([&](Context& me) {
      dawdle(me, n, probe);
      x = 1;
      log.add("W1 end");
    }, {out(x)}, {.name = "W1"});
    ctx.submit([&](Context&) {
      log.add("W2 start");
      x = 2;
    }, {out(x)}, {.name = "W2"});
    ctx.taskwait();
  }, {.observer = &probe});
  EXPECT_EQ(x, 2);
  EXPECT_TRUE(log.before("W1 end", "W2 start"));
  EXPECT_EQ(probe.count("dep WAW", "W1", "W2"), 1u);
  EXPECT_EQ(probe.count("dep WAW"), 1u);
}

// An inout after a write is a true dependence; two data between one pair record one constraint.
TEST_P(VssDependences, OnePairOfTasksRecordsOneConstraint) {
  GraphProbe probe;
  int x = 0;
  int y = 0;
  run_vss(cores(), [&](Context& ctx) {
    ctx.submit([&, n = cores()](Context& me) {
      dawdle(me, n, probe);
      x = y = 1;
    }, {out(x), out(y)}, {.name = "P"});
    ctx.submit([&](Context&) { x += y; }, {inout(x), in(y)}, {.name = "Q"});
    ctx.taskwait();
  }, {.observer = &probe});
  EXPECT_EQ(x, 2);
  EXPECT_EQ(probe.count("dep RAW", "P", "Q"), 1u);
  EXPECT_EQ(probe.count("dep RAW"), 1u);
  EXPECT_EQ(probe.count("dep WAW"), 0u) << "y's write-after-write is P -> Q again: one constraint";
  EXPECT_EQ(probe.count("dep WAR"), 0u);
}

TEST_P(VssDependences, IndependentReadersRunConcurrently) {
  const std::size_t n = cores();
  int x = 0;
  std::atomic<int> arrived{0};
  std::array<bool, 2> met{false, false};
  std::array<CoreId, 2> core{kAnyCore, kAnyCore};
  run_vss(n, [&](Context& ctx) {
    ctx.submit([&](Context&) { x = 3; }, {out(x)}, {.name = "W"});
    for (int r = 0; r < 2; ++r) {
      ctx.submit([&, r, n](Context& me) {
        core[r] = me.core();
        arrived.fetch_add(1);
        if (n == 2) {  // both must be running at once: wait (boundedly) for the other
          const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
          while (arrived.load() < 2 && std::chrono::steady_clock::now() < give_up) {
            std::this_thread::yield();
          }
        }
        met[r] = arrived.load() == 2;
      }, {in(x)}, {.name = "R" + std::to_string(r)});
    }
    ctx.taskwait();
  });
  EXPECT_NE(core[0], kAnyCore);
  if (n == 2) {
    EXPECT_TRUE(met[0] && met[1]) << "the two readers never ran at the same time on 2 cores";
  }
  if (n > 1) {
    EXPECT_NE(core[0], core[1]) << "independent readers belong on different cores";
  }
}

TEST_P(VssDependences, RegionsOfARegisteredMatrixAreSeparateData) {
  GraphProbe probe;
  std::array<std::array<int, 2>, 2> m{};  // 2 x 2 blocks of one int each
  int total = 0;
  run_vss(cores(), [&](Context& ctx) {
    ctx.register_blocks(m, 2, 2, "M");
    for (std::size_t i = 0; i < 2; ++i) {
      for (std::size_t j = 0; j < 2; ++j) {
        ctx.submit([&, i, j, n = cores()](Context& me) {
          dawdle(me, n, probe);  // still running when U00 and Sum are submitted
          m[i][j] = static_cast<int>(10 * i + j + 1);
        },
                   {out(vss::region(m, i, j))}, {.name = "W" + std::to_string(i) + std::to_string(j)});
      }
    }
    ctx.submit([&, n = cores()](Context& me) {
      dawdle(me, n, probe);
      m[0][0] *= 100;
    }, {inout(vss::region(m, 0, 0))}, {.name = "U00"});
    // The whole matrix stands for every block: after all four writers and U00.
    ctx.submit([&](Context&) { total = m[0][0] + m[0][1] + m[1][0] + m[1][1]; }, {in(m)},
               {.name = "Sum"});
    ctx.taskwait();
  }, {.observer = &probe});
  EXPECT_EQ(total, 100 + 2 + 11 + 12);
  EXPECT_EQ(probe.count("dep RAW", "W00", "U00"), 1u);
  EXPECT_EQ(probe.count("dep RAW", "W01", "U00"), 0u) << "another block is another datum";
  EXPECT_EQ(probe.count("dep RAW", "U00", "Sum"), 1u);
  EXPECT_EQ(probe.count("dep RAW", "W01", "Sum"), 1u);
  EXPECT_EQ(probe.count("dep RAW", "W10", "Sum"), 1u);
  EXPECT_EQ(probe.count("dep RAW", "W11", "Sum"), 1u);
  EXPECT_EQ(probe.count("dep RAW", "W00", "Sum"), 0u) << "U00 wrote block (0,0) last";
  EXPECT_EQ(probe.count("dep RAW"), 5u);
}

TEST_P(VssDependences, PinnedTasksRunOnTheirCore) {
  const std::size_t n = cores();
  std::vector<CoreId> ran(2 * n, kAnyCore);
  int x = 0;
  run_vss(n, [&](Context& ctx) {
    for (std::size_t t = 0; t < ran.size(); ++t) {
      const auto core = static_cast<CoreId>(t % n);
      ctx.submit([&, t](Context& me) {
        ran[t] = me.core();
        ++x;
      }, {inout(x)}, {.name = "pinned" + std::to_string(t), .core = core});
    }
    ctx.taskwait();
  });
  EXPECT_EQ(x, static_cast<int>(ran.size()));
  for (std::size_t t = 0; t < ran.size(); ++t) EXPECT_EQ(ran[t], t % n) << "task " << t;
}

// Many small tasks, chained and fanned out: every one runs once and in order per datum.
TEST_P(VssDependences, ManyTasksEachRunOnceInOrder) {
  constexpr int kChains = 8;
  constexpr int kLength = 200;
  std::array<int, kChains> chain{};
  std::array<bool, kChains> in_order{};
  in_order.fill(true);
  const proto::RunStats stats = run_vss(cores(), [&](Context& ctx) {
    for (int step = 0; step < kLength; ++step) {
      for (int c = 0; c < kChains; ++c) {
        ctx.submit([&, c, step](Context&) {
          if (chain[c] != step) in_order[c] = false;
          ++chain[c];
        }, {inout(chain[c])});
      }
    }
  });
  for (int c = 0; c < kChains; ++c) {
    EXPECT_EQ(chain[c], kLength);
    EXPECT_TRUE(in_order[c]) << "chain " << c;
  }
  EXPECT_EQ(stats.vps_created, 1u + kChains * kLength);
}

// AliveProbe follows how many VPs exist at once: created, and not yet past their end handler.
class AliveProbe : public RuntimeObserver {
 public:
  void vp_created(CoreId, VpId, const std::string&, const CallSite&, CoreId) override {
    std::lock_guard<std::mutex> hold(mutex_);
    peak_ = std::max(peak_, ++alive_);
  }
  void handler_exit(CoreId, ConstructKind kind, UnitId) override {
    std::lock_guard<std::mutex> hold(mutex_);
    if (kind == proto::kEndVp) --alive_;
  }
  std::size_t peak() const {
    std::lock_guard<std::mutex> hold(mutex_);
    return peak_;
  }

 private:
  mutable std::mutex mutex_;
  std::size_t alive_ = 0;
  std::size_t peak_ = 0;
};

// A loop submitting thousands of ready tasks does not give each a VP (and a stack) at once:
// a few wait in the assigner's queues per core, the rest as records.
TEST_P(VssDependences, ManyReadyTasksHoldFewVps) {
  constexpr int kTasks = 5000;
  AliveProbe probe;
  std::atomic<int> ran{0};
  run_vss(cores(), [&](Context& ctx) {
    for (int t = 0; t < kTasks; ++t) ctx.submit([&](Context&) { ++ran; });
  }, {.observer = &probe});
  EXPECT_EQ(ran.load(), kTasks);
  // The assigner's window (2 per core, plus 2), the tasks running and the seed.
  EXPECT_LE(probe.peak(), 3 * cores() + 4);
}

MOIRAI_INSTANTIATE_MACHINES(VssDependences);

}  // namespace
}  // namespace moirai::test

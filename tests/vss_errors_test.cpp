// What goes wrong in a VSs program is reported where it happened: misuse throws
// proto::UsageError at the construct's call site (catchable in the task), an exception escaping
// a task ends the run naming the task and where it was submitted, and tasks blocked for good
// end the run as a deadlock whose report names the datum they wait for.
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <chrono>
#include <functional>
#include <stdexcept>
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

struct Misuse {
  const char* name;
  // commit runs in a task and ends in the misuse; it sets `line` just before the offending call.
  std::function<void(Context&, unsigned& line)> commit;
  std::string mentions;  // words the message must contain
};

int shared_datum = 0;
std::array<int, 4> matrix{};

std::vector<Misuse> misuses() {
  return {
      {"ConflictingModes",
       [](Context& ctx, unsigned& line) {
         line = __LINE__ + 1;
         ctx.submit([](Context&) {}, {in(shared_datum, "s"), out(shared_datum, "s")});
       },
       "datum 's' is declared both in and out"},
      {"UnregisteredRegion",
       [](Context& ctx, unsigned& line) {
         line = __LINE__ + 1;
         ctx.submit([](Context&) {}, {in(vss::region(matrix, 0, 1))});
       },
       "no register_blocks call registered"},
      {"RegionOutsideTheMatrix",
       [](Context& ctx, unsigned& line) {
         ctx.register_blocks(matrix, 2, 2, "M");
         line = __LINE__ + 1;
         ctx.submit([](Context&) {}, {inout(vss::region(matrix, 2, 0))});
       },
       "region (2,0) of M lies outside its 2 x 2 blocks"},
      {"RegisterAgainWithAnotherShape",
       [](Context& ctx, unsigned& line) {
         ctx.register_blocks(matrix, 2, 2, "M");
         line = __LINE__ + 1;
         ctx.register_blocks(matrix, 4, 1);
       },
       "registered already as 2 x 2"},
      {"RegisterNoBlocks",
       [](Context& ctx, unsigned& line) {
         line = __LINE__ + 1;
         ctx.register_blocks(matrix, 0, 4, "M");
       },
       "has no block"},
      {"RegisterWhileInUseAsAWhole",
       [](Context& ctx, unsigned& line) {
         // The writer is still alive at the register call: on sim:40 its declared work keeps it
         // running in virtual time; on 1 core it cannot start before this task's next construct;
         // on 2 real cores it waits until the call was made (the flag is set as the call's
         // UsageError leaves this function), however late a loaded machine runs this task.
         static std::atomic<bool> registered;
         registered.store(false);
         struct Registered {
           ~Registered() { registered.store(true); }
         } after_the_call;
         ctx.submit([](Context& me) {
           me.charge_work(1'000'000);
           if (me.core_count() == 2) {
             while (!registered.load()) {
             }
           }
         }, {out(matrix, "M")});
         ctx.submit([](Context&) {}, {in(matrix, "M")});  // pending: the writer is still alive
         line = __LINE__ + 1;
         ctx.register_blocks(matrix, 2, 2, "M");
       },
       "accessed as a whole object by tasks not ended yet"},
      {"PinBeyondTheCores",
       [](Context& ctx, unsigned& line) {
         line = __LINE__ + 1;
         ctx.submit([](Context&) {}, {}, {.name = "far", .core = 4095});
       },
       "cannot pin task 'far' to core 4095"},
      {"StackBelowTheMinimum",
       [](Context& ctx, unsigned& line) {
         line = __LINE__ + 1;
         ctx.submit([](Context&) {}, {}, {.name = "tiny", .core = kAnyCore, .stack_size = 1024});
       },
       "below the 16 KiB minimum"},
      {"TaskwaitOnItsOwnOutput",
       [](Context& ctx, unsigned& line) {
         // The calling task (see the fixture) declared `shared_datum` as out.
         line = __LINE__ + 1;
         ctx.taskwait_on(shared_datum);
       },
       "declared 's' as out: it is that datum's pending writer itself"},
      {"TaskwaitOnAnAncestorsOutput",
       [](Context& ctx, unsigned& line) {
         ctx.submit([&](Context& child) {
           line = __LINE__ + 1;
           child.taskwait_on(shared_datum);
         }, {}, {.name = "child"});
         ctx.taskwait();  // the child's UsageError ends it: VpFailure, checked by the caller
       },
       "inside which task 'child' runs"},
  };
}

class VssMisuse : public ::testing::TestWithParam<std::tuple<std::size_t, Misuse>> {};

TEST_P(VssMisuse, ThrowsUsageErrorNamingTheCallSite) {
  const auto& [cores, misuse] = GetParam();
  std::string what;
  unsigned line = 0;
  bool continued = false;
  bool caught = false;
  std::string failure;
  try {
    run_vss(cores, [&](Context& ctx) {
      ctx.submit([&](Context& task) {
        try {
          misuse.commit(task, line);
        } catch (const proto::UsageError& error) {
          caught = true;
          what = error.what();
        }
        continued = true;  // a caught UsageError leaves the task usable
      }, {out(shared_datum, "s")}, {.name = "offender"});
    });
  } catch (const proto::VpFailure& error) {
    failure = error.what();  // a UsageError in a child the task did not catch
  }
  const std::string message = caught ? what : failure;
  EXPECT_TRUE(caught || !failure.empty()) << "no UsageError";
  if (caught) {
    EXPECT_TRUE(continued);
  }
  EXPECT_NE(message.find(site_of(__FILE__, line)), std::string::npos)
      << message << "\n(expected the call site " << site_of(__FILE__, line) << ")";
  EXPECT_NE(message.find(misuse.mentions), std::string::npos) << message;
}

std::string misuse_name(const ::testing::TestParamInfo<std::tuple<std::size_t, Misuse>>& param) {
  return std::string(std::get<1>(param.param).name) + "_" +
         core_count_name({std::get<0>(param.param), param.index});
}

INSTANTIATE_TEST_SUITE_P(Machines, VssMisuse,
                         ::testing::Combine(::testing::Values(std::size_t{1}, std::size_t{2},
                                                              kSimulatedCores),
                                            ::testing::ValuesIn(misuses())),
                         misuse_name);

class VssFailures : public CoreCountTest {};

TEST_P(VssFailures, AnExceptionNamesTheTaskAndWhereItWasSubmitted) {
  unsigned line = 0;
  try {
    run_vss(cores(), [&](Context& ctx) {
      int x = 0;
      ctx.submit([](Context&) {}, {out(x)});
      line = __LINE__ + 1;
      ctx.submit([](Context&) { throw std::runtime_error("kaput"); }, {in(x)}, {.name = "boom"});
      ctx.taskwait();
    });
    ADD_FAILURE() << "the run did not fail";
  } catch (const proto::VpFailure& failure) {
    const std::string what = failure.what();
    EXPECT_EQ(failure.vp_name(), "boom");
    EXPECT_EQ(failure.created_at().line, line);
    EXPECT_NE(what.find("'boom'"), std::string::npos) << what;
    EXPECT_NE(what.find(site_of(__FILE__, line)), std::string::npos) << what;
    EXPECT_NE(what.find("kaput"), std::string::npos) << what;
  }
}

// The default name of a task is its submission site.
TEST_P(VssFailures, AnUnnamedTaskIsNamedByItsSubmitCall) {
  unsigned line = 0;
  try {
    run_vss(cores(), [&](Context& ctx) {
      line = __LINE__ + 1;
      ctx.submit([](Context&) { throw std::runtime_error("unnamed"); });
    });
    ADD_FAILURE() << "the run did not fail";
  } catch (const proto::VpFailure& failure) {
    EXPECT_EQ(failure.vp_name(), "task@" + site_of(__FILE__, line));
  }
}

// A waits for x's last writer S, submitted after it; S waits for A (write after read of y).
TEST_P(VssFailures, ACycleThroughTaskwaitOnIsReportedAsADeadlockNamingTheDatum) {
  int x = 0;
  int y = 0;
  int nobody = 0;
  std::atomic<bool> submitted{false};
  unsigned wait_line = 0;
  unsigned seed_line = 0;
  try {
    run_vss(cores(), [&](Context& ctx) {
      ctx.submit([&](Context& a) {
        while (!submitted.load()) a.taskwait_on(nobody);  // lets the seed go on meanwhile
        wait_line = __LINE__ + 1;
        a.taskwait_on(x);
      }, {in(y, "y")}, {.name = "A"});
      ctx.submit([&](Context&) { x = 1; }, {inout(y, "y"), out(x, "x")}, {.name = "S"});
      submitted = true;
      seed_line = __LINE__ + 1;
      ctx.taskwait();
    }, {}, std::chrono::seconds(60));
    ADD_FAILURE() << "the run did not end in a deadlock";
  } catch (const proto::DeadlockError& error) {
    ASSERT_EQ(error.blocked().size(), 2u) << error.what();
    const proto::BlockedVp& seed = error.blocked()[0];
    const proto::BlockedVp& a = error.blocked()[1];
    EXPECT_EQ(seed.name, "main");
    EXPECT_EQ(seed.construct, "taskwait");
    EXPECT_EQ(seed.site.line, seed_line);
    EXPECT_EQ(seed.waits_for, "2 tasks it submitted to end");
    EXPECT_EQ(a.name, "A");
    EXPECT_EQ(a.construct, "taskwait_on");
    EXPECT_EQ(a.site.line, wait_line);
    EXPECT_NE(a.waits_for.find("datum 'x' to be written by task 'S'"), std::string::npos) << a.waits_for;
    EXPECT_NE(a.waits_for.find("not started: it waits for 1 task to end"), std::string::npos)
        << a.waits_for;
    EXPECT_NE(std::string(error.what()).find("datum 'x'"), std::string::npos);
  }
}

MOIRAI_INSTANTIATE_MACHINES(VssFailures);

}  // namespace
}  // namespace moirai::test

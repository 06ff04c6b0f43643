// An exception escaping a VP ends the run cleanly: ssr::run throws proto::VpFailure naming the
// VP, its creation site and the original message; cause() is the original exception; every
// other VP is unwound (destructors on its stack run).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <stdexcept>
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

struct Guard {
  std::atomic<int>* destroyed;
  ~Guard() { destroyed->fetch_add(1); }
};

class SsrFailure : public CoreCountTest {};

TEST_P(SsrFailure, ExceptionSurfacesAsVpFailureAndOthersUnwind) {
  static const ssr::MessageType<int> kReady{"ready"};
  static const ssr::MessageType<int> kNeverSent{"never sent"};
  static const ssr::MessageType<int> kNeverReceived{"never received"};
  static constexpr int kWaiters = 6;
  std::atomic<int> destroyed{0};
  std::atomic<int> resumed{0};
  unsigned created_line = 0;
  VpRef thrower;
  try {
    run_ssr(cores(), [&](Context& ctx) {
      Guard seed_guard{&destroyed};
      created_line = __LINE__ + 1;
      thrower = ctx.create_vp(
          [&](Context& me) {
            Guard guard{&destroyed};
            // Every waiter is past its first construct before this VP throws.
            for (int i = 0; i < kWaiters; ++i) me.receive_of_type_to(kReady);
            throw std::runtime_error("boom: the partial result was negative");
          },
          ssr::CreateOptions{.name = "thrower"});
      const VpRef seed = ctx.self();
      for (int i = 0; i < kWaiters; ++i) {
        ctx.create_vp([&, i, seed](Context& me) {
          Guard guard{&destroyed};
          me.send_of_type_to(kReady, thrower, i);
          // Block in a different construct each; none of them is ever satisfied.
          switch (i % 3) {
            case 0: me.receive_of_type(kNeverSent); break;
            case 1: me.receive_from_to<int>(seed); break;
            default: me.send_of_type(kNeverReceived, 1); break;
          }
          resumed.fetch_add(1);
        });
      }
      static const ssr::MessageType<int> kForever{"forever"};
      ctx.receive_of_type_to(kForever);
      resumed.fetch_add(1);
    });
    ADD_FAILURE() << "ssr::run returned normally";
  } catch (const proto::VpFailure& failure) {
    const std::string what = failure.what();
    EXPECT_EQ(failure.vp(), thrower.id());
    EXPECT_EQ(failure.vp_name(), "thrower");
    EXPECT_EQ(failure.created_at().line, created_line);
    EXPECT_NE(what.find("thrower"), std::string::npos) << what;
    EXPECT_NE(what.find(site_of(__FILE__, created_line)), std::string::npos) << what;
    EXPECT_NE(what.find("boom: the partial result was negative"), std::string::npos) << what;
    try {
      std::rethrow_exception(failure.cause());
    } catch (const std::runtime_error& cause) {
      EXPECT_STREQ(cause.what(), "boom: the partial result was negative");
    } catch (...) {
      ADD_FAILURE() << "cause() does not rethrow the original std::runtime_error";
    }
  }
  EXPECT_EQ(destroyed.load(), kWaiters + 2) << "every VP stack (waiters, seed, thrower) unwinds";
  EXPECT_EQ(resumed.load(), 0) << "no blocked VP may continue as if its construct succeeded";
}

TEST_P(SsrFailure, ExceptionInTheSeedNamesTheSeed) {
  ssr::RunOptions options;
  options.seed_name = "divider";
  try {
    run_ssr(cores(), [](Context&) { throw std::out_of_range("piece 17 of 16"); }, options);
    ADD_FAILURE() << "ssr::run returned normally";
  } catch (const proto::VpFailure& failure) {
    EXPECT_EQ(failure.vp_name(), "divider");
    EXPECT_NE(std::string(failure.what()).find("divider"), std::string::npos) << failure.what();
    EXPECT_NE(std::string(failure.what()).find("piece 17 of 16"), std::string::npos);
    EXPECT_THROW(std::rethrow_exception(failure.cause()), std::out_of_range);
  }
}

TEST_P(SsrFailure, NonStandardExceptionIsCarriedToo) {
  try {
    run_ssr(cores(), [](Context& ctx) {
      ctx.create_vp([](Context&) { throw 42; }, ssr::CreateOptions{.name = "int-thrower"});
    });
    ADD_FAILURE() << "ssr::run returned normally";
  } catch (const proto::VpFailure& failure) {
    EXPECT_EQ(failure.vp_name(), "int-thrower");
    try {
      std::rethrow_exception(failure.cause());
    } catch (int value) {
      EXPECT_EQ(value, 42);
    } catch (...) {
      ADD_FAILURE() << "cause() does not rethrow the int";
    }
  }
}

// A VP that catches an exception of its own keeps running: only escaping exceptions end a run.
TEST_P(SsrFailure, CaughtExceptionDoesNotEndTheRun) {
  std::atomic<int> finished{0};
  run_ssr(cores(), [&](Context& ctx) {
    for (int i = 0; i < 4; ++i) {
      ctx.create_vp([&](Context& me) {
        try {
          me.create_vp([](Context&) {});
          throw std::runtime_error("handled locally");
        } catch (const std::runtime_error&) {
        }
        me.create_vp([](Context&) {});
        finished.fetch_add(1);
      });
    }
  });
  EXPECT_EQ(finished.load(), 4);
}

// When two VPs fail, the run reports one of them and still unwinds everything (both VPs have
// started before either throws: a VP that never started has no stack to unwind).
TEST_P(SsrFailure, TwoFailuresReportOne) {
  static const ssr::MessageType<int> kStarted{"started"};
  std::atomic<int> destroyed{0};
  try {
    run_ssr(cores(), [&](Context& ctx) {
      const VpRef seed = ctx.self();
      std::vector<VpRef> failing;
      for (int i = 0; i < 2; ++i) {
        failing.push_back(ctx.create_vp(
            [&, seed](Context& me) {
              Guard guard{&destroyed};
              me.send_of_type_to(kStarted, seed, 1);
              me.receive_from_to<int>(seed);  // the go: both have started by now
              throw std::runtime_error("failed");
            },
            ssr::CreateOptions{.name = "failing"}));
      }
      ctx.receive_of_type_to(kStarted);
      ctx.receive_of_type_to(kStarted);
      for (const VpRef vp : failing) ctx.send_from_to(vp, 1);
    });
    ADD_FAILURE() << "ssr::run returned normally";
  } catch (const proto::VpFailure& failure) {
    EXPECT_EQ(failure.vp_name(), "failing");
  }
  EXPECT_EQ(destroyed.load(), 2);
}

// RAII that uses a construct on scope exit ("tell the results VP I am gone").
struct SayByeOnExit {
  Context& ctx;
  const ssr::MessageType<int>& channel;
  std::atomic<int>* said = nullptr;
  ~SayByeOnExit() {
    ctx.send_of_type(channel, 1);
    if (said != nullptr) said->fetch_add(1);  // the send returned: a receiver took it
  }
};

// While a user exception unwinds a VP, that VP is still alive: a destructor may use constructs.
TEST_P(SsrFailure, DestructorMayUseConstructsWhileAnExceptionUnwinds) {
  static const ssr::MessageType<int> kBye{"bye"};
  std::atomic<int> said{0};
  EXPECT_THROW(run_ssr(cores(),
                       [&](Context& ctx) {
                         ctx.create_vp([](Context& me) { me.receive_of_type(kBye); });
                         ctx.create_vp([&](Context& me) {
                           SayByeOnExit bye{me, kBye, &said};
                           throw std::runtime_error("fails after saying bye");
                         });
                       }),
               proto::VpFailure);
  // (The receiver's code after its receive may never run: the run stops on the failure.)
  EXPECT_EQ(said.load(), 1);
}

// When the run stops (a failure elsewhere, or a deadlock), the remaining VPs are unwound. A
// destructor on such a VP that calls a construct must not take the process down: the run must
// still end with its VpFailure / DeadlockError. Run in a death-test child so that a terminate
// fails this test only.
void run_with_bye_guards(std::size_t cores, bool deadlock) {
  static const ssr::MessageType<int> kBye{"bye"};
  static const ssr::MessageType<int> kNever{"never"};
  try {
    run_ssr(cores, [deadlock](Context& ctx) {
      ctx.create_vp([](Context& me) {
        SayByeOnExit bye{me, kBye};
        me.receive_of_type(kNever);  // blocked when the run stops
      });
      if (!deadlock) {
        ctx.create_vp([](Context& me) {
          me.receive_of_type_to(kNever);
          me.receive_of_type_to(kNever);
        });
        ctx.create_vp([](Context&) { throw std::runtime_error("fails"); });
      }
    });
  } catch (const proto::VpFailure&) {
    if (!deadlock) {
      std::fprintf(stderr, "run ended with VpFailure\n");
      std::exit(0);
    }
  } catch (const proto::DeadlockError&) {
    if (deadlock) {
      std::fprintf(stderr, "run ended with DeadlockError\n");
      std::exit(0);
    }
  }
  std::fprintf(stderr, "run ended some other way\n");
  std::exit(1);
}

TEST_P(SsrFailure, ConstructInADestructorDuringUnwindAfterFailure) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(run_with_bye_guards(cores(), /*deadlock=*/false), ::testing::ExitedWithCode(0),
              "run ended with VpFailure");
}

TEST_P(SsrFailure, ConstructInADestructorDuringUnwindAfterDeadlock) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(run_with_bye_guards(cores(), /*deadlock=*/true), ::testing::ExitedWithCode(0),
              "run ended with DeadlockError");
}

MOIRAI_INSTANTIATE_MACHINES(SsrFailure);

}  // namespace
}  // namespace moirai::test

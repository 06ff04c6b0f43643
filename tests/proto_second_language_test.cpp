// The proto-runtime runs a language it has never heard of: the test-only fork/join language
// (support/fork_join.h), with its own constructs and a single global queue as its assigner.
// This binary links moirai::proto_runtime only: no SSR anywhere.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <source_location>
#include <stdexcept>
#include <string>
#include <vector>

#include "moirai/proto_runtime/errors.h"
#include "moirai/proto_runtime/language_table.h"
#include "moirai/proto_runtime/real_machine.h"
#include "moirai/proto_runtime/run.h"
#include "moirai/proto_runtime/runtime.h"
#include "moirai/proto_runtime/sim_machine.h"
#include "support/fork_join.h"
#include "support/test_support.h"

namespace moirai::test {
namespace {

using proto::VirtualProcessor;

// ForkJoinRun executes `seed` as the first VP of a fork/join run on `cores` real cores.
struct ForkJoinRun {
  explicit ForkJoinRun(std::size_t cores, proto::RuntimeConfig config = {})
      : machine(cores), runtime(machine, language, config) {}
  void operator()(proto::VpFunction seed, std::chrono::seconds limit = kRunLimit) {
    within(limit, "proto::Runtime::run (fork/join)", [&] {
      runtime.run(std::move(seed), proto::VpOptions{"seed", kAnyCore, 0});
      return 0;
    });
  }
  proto::RealMachine machine;
  fj::ForkJoin language;
  proto::Runtime runtime;
};

struct Guard {
  std::atomic<int>* destroyed;
  ~Guard() { destroyed->fetch_add(1); }
};

class ForkJoinLanguage : public CoreCountTest {};

// Parallel Fibonacci: each VP above the cutoff forks two children, joins them and adds their
// results (written into its own frame, which outlives the children thanks to the join).
TEST_P(ForkJoinLanguage, ComputesFibonacciWithForkAndJoin) {
  static constexpr int kN = 18;
  static constexpr int kCutoff = 9;
  std::atomic<std::uint64_t> forks{0};
  std::atomic<std::uint64_t> joins{0};
  std::atomic<int> bad_core{0};
  const std::size_t n = cores();
  std::function<std::uint64_t(VirtualProcessor&, int)> fib = [&](VirtualProcessor& self, int k) {
    if (self.last_core() >= n) bad_core.fetch_add(1);
    if (k < kCutoff) {
      std::uint64_t a = 0, b = 1;
      for (int i = 0; i < k; ++i) b = std::exchange(a, b) + b;
      return a;
    }
    std::uint64_t left = 0;
    std::uint64_t right = 0;
    fj::fork(self, [&, k](VirtualProcessor& me) { left = fib(me, k - 1); });
    fj::fork(self, [&, k](VirtualProcessor& me) { right = fib(me, k - 2); });
    forks += 2;
    fj::join(self);
    joins += 1;
    return left + right;
  };
  std::uint64_t result = 0;
  ForkJoinRun run(n);
  run([&](VirtualProcessor& self) { result = fib(self, kN); });
  EXPECT_EQ(result, 2584u);
  EXPECT_EQ(bad_core.load(), 0);

  const proto::RunStats stats = run.runtime.stats();
  const std::uint64_t vps = forks + 1;
  EXPECT_EQ(stats.vps_created, vps);
  // Every VP: one unit per construct plus one; every unit ends with one request.
  EXPECT_EQ(stats.units_animated, forks + joins + vps);
  EXPECT_EQ(stats.requests_handled, forks + joins + vps);
  EXPECT_EQ(run.language.handled(), stats.requests_handled);
  // The plugin's assigner did all the placing: the seed, both sides of each fork, each join.
  EXPECT_EQ(run.language.on_ready_calls(), 1 + 2 * forks + joins);
  EXPECT_EQ(run.language.chosen(), stats.units_animated);
}

// Deadlock detection and its report work for any language: construct names and wait
// descriptions come from the plugin.
TEST_P(ForkJoinLanguage, DeadlockIsReportedInTheLanguagesWords) {
  std::atomic<int> destroyed{0};
  unsigned park_line = 0;
  unsigned join_line = 0;
  ForkJoinRun run(cores());
  try {
    run(
        [&](VirtualProcessor& self) {
          Guard guard{&destroyed};
          fj::fork(
              self,
              [&](VirtualProcessor& me) {
                Guard inner{&destroyed};
                park_line = __LINE__ + 1;
                fj::park(me);
              },
              "parked child");
          join_line = __LINE__ + 1;
          fj::join(self);
        });
    ADD_FAILURE() << "the run did not end in a deadlock";
  } catch (const proto::DeadlockError& error) {
    ASSERT_EQ(error.blocked().size(), 2u) << error.what();
    EXPECT_EQ(error.blocked()[0].name, "seed");
    EXPECT_EQ(error.blocked()[0].construct, "join");
    EXPECT_EQ(error.blocked()[0].waits_for, "1 children to end");
    EXPECT_EQ(error.blocked()[0].site.line, join_line);
    EXPECT_EQ(error.blocked()[1].name, "parked child");
    EXPECT_EQ(error.blocked()[1].construct, "park");
    EXPECT_EQ(error.blocked()[1].waits_for, "nothing (parked for good)");
    EXPECT_EQ(error.blocked()[1].site.line, park_line);
    EXPECT_NE(std::string(error.what()).find("parked for good"), std::string::npos);
  }
  EXPECT_EQ(destroyed.load(), 2) << "both blocked VPs are unwound";
}

TEST_P(ForkJoinLanguage, ExceptionSurfacesAsVpFailure) {
  ForkJoinRun run(cores());
  try {
    run([&](VirtualProcessor& self) {
      fj::fork(self, [](VirtualProcessor&) { throw std::runtime_error("leaf failed"); },
               "leaf");
      fj::join(self);
    });
    ADD_FAILURE() << "the run did not fail";
  } catch (const proto::VpFailure& failure) {
    EXPECT_EQ(failure.vp_name(), "leaf");
    EXPECT_NE(std::string(failure.what()).find("leaf failed"), std::string::npos);
    EXPECT_THROW(std::rethrow_exception(failure.cause()), std::runtime_error);
  }
}

// RuntimeServices::fail makes the construct throw UsageError naming its call site.
TEST_P(ForkJoinLanguage, RefusedConstructThrowsUsageErrorAtItsCallSite) {
  std::string what;
  unsigned line = 0;
  bool continued = false;
  ForkJoinRun run(cores());
  run([&](VirtualProcessor& self) {
    try {
      line = __LINE__ + 1;
      fj::simple(self, fj::kRefuse);
    } catch (const proto::UsageError& error) {
      what = error.what();
    }
    fj::fork(self, [](VirtualProcessor&) {});
    fj::join(self);
    continued = true;
  });
  EXPECT_NE(what.find(site_of(__FILE__, line)), std::string::npos) << what;
  EXPECT_NE(what.find("fork/join refuses this construct"), std::string::npos) << what;
  EXPECT_TRUE(continued);
}

// A handler that throws is a plugin bug: the run stops (it must not hang or crash) and reports
// it against the VP the handler served.
TEST_P(ForkJoinLanguage, ThrowingHandlerStopsTheRun) {
  std::atomic<int> destroyed{0};
  ForkJoinRun run(cores());
  try {
    run([&](VirtualProcessor& self) {
      Guard guard{&destroyed};
      fj::simple(self, fj::kBroken);
    });
    ADD_FAILURE() << "the run did not report the broken handler";
  } catch (const proto::VpFailure& failure) {
    EXPECT_EQ(failure.vp_name(), "seed");
    EXPECT_NE(std::string(failure.what()).find("handler is broken"), std::string::npos)
        << failure.what();
  }
  EXPECT_EQ(destroyed.load(), 1);
}

TEST_P(ForkJoinLanguage, ARuntimeRunsOnce) {
  ForkJoinRun run(cores());
  run([](VirtualProcessor&) {});
  EXPECT_THROW(run.runtime.run([](VirtualProcessor&) {}), std::logic_error);
}

MOIRAI_INSTANTIATE_CORE_COUNTS(ForkJoinLanguage);

// The language kit: proto::run makes the language for the machine's cores, turns the program's
// first body into its seed VP and runs it, as ssr::run and vss::run do for their languages
// (docs/adding-a-language.md).
TEST(ForkJoinKit, ProtoRunMakesTheLanguageAndRunsItsSeed) {
  proto::SimMachine machine(proto::SimConfig{});
  int children = 0;
  const proto::RunStats stats = proto::run<fj::ForkJoin>(
      machine,
      [&](VirtualProcessor& self) {
        for (int i = 0; i < 3; ++i) fj::fork(self, [&](VirtualProcessor&) { ++children; });
        fj::join(self);
      },
      proto::RunOptions{.seed_name = "seed"}, CallSite::from(std::source_location::current()));
  EXPECT_EQ(children, 3);
  EXPECT_EQ(stats.vps_created, 4u);
}

// A simulated machine asked to (SimConfig::language_costs, as a program's --machine sim:N is)
// prices a construct its model has no line for by the language's table: fork/join's fork
// handler costs 900 ticks there, the generic handler otherwise. One core: every cost adds up.
TEST(ForkJoinKit, ASimulatedMachinePricesConstructsByTheLanguagesTable) {
  const auto makespan = [](bool language_costs) {
    proto::SimConfig config;
    config.language_costs = language_costs;
    proto::SimMachine machine(config);
    proto::run<fj::ForkJoin>(
        machine,
        [](VirtualProcessor& self) {
          fj::fork(self, [](VirtualProcessor&) {});
          fj::join(self);
        },
        {}, CallSite::from(std::source_location::current()));
    return machine.makespan();
  };
  EXPECT_EQ(makespan(true) - makespan(false), 900 - proto::CostModel::default_model().handler);
}

// A table is written in kind order; a row out of place is refused, naming it.
TEST(ForkJoinKit, ARowOutOfKindOrderIsRefused) {
  try {
    const proto::LanguageTable table("mixed-up", {{proto::kEndVp, {"end", ConstructRole::end, ""}},
                                                  {fj::kJoin, {"join", ConstructRole::wait, ""}}});
    ADD_FAILURE() << "the table was accepted";
  } catch (const std::logic_error& error) {
    EXPECT_STREQ(error.what(), "mixed-up's construct table lists 'join' (kind 2) at kind 1");
  }
}

// A word is given once: a trace holds one text for each of the report's words.
TEST(ForkJoinKit, AWordGivenTwiceIsRefused) {
  try {
    const proto::LanguageTable table("wordy", {{proto::kEndVp, {"end", ConstructRole::end, ""}}},
                                     proto::CostModel::default_model(),
                                     {.placement = LanguagePlacement::any_core, .words = {{"vp", "strand"}, {"vp", "thread"}}});
    ADD_FAILURE() << "the table was accepted";
  } catch (const std::logic_error& error) {
    EXPECT_STREQ(error.what(), "wordy gives the word 'vp' twice");
  }
}

}  // namespace
}  // namespace moirai::test

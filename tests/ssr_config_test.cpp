// Run configurations the machine cannot honour fail before any VP runs, with proto::ConfigError
// (run.h: ssr::run throws DeadlockError, VpFailure or ConfigError).
#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <stdexcept>
#include <string>

#include "moirai/proto_runtime/errors.h"
#include "moirai/proto_runtime/real_machine.h"
#include "moirai/ssr/ssr.h"
#include "support/ssr_support.h"
#include "support/test_support.h"

namespace moirai::test {
namespace {

using ssr::Context;

// expect_config_error runs `options` and expects ConfigError whose message mentions `mentions`,
// with the seed never run.
void expect_config_error(ssr::RunOptions options, const std::string& mentions) {
  std::atomic<bool> seed_ran{false};
  try {
    within(kRunLimit, "ssr::run with a bad configuration", [&] {
      return ssr::run([&](Context&) { seed_ran = true; }, options);
    });
    ADD_FAILURE() << "ssr::run accepted the configuration";
  } catch (const proto::ConfigError& error) {
    EXPECT_NE(std::string(error.what()).find(mentions), std::string::npos) << error.what();
  } catch (const std::exception& other) {
    ADD_FAILURE() << "expected proto::ConfigError, got: " << other.what();
  }
  EXPECT_FALSE(seed_ran.load()) << "no VP may run under a refused configuration";
}

TEST(SsrConfig, MoreCoresThanTheMachineHas) {
  ssr::RunOptions options;
  options.cores = 99;
  expect_config_error(options, "99");
}

TEST(SsrConfig, StackBelowTheMinimum) {
  ssr::RunOptions options;
  options.stack_size = 4096;
  expect_config_error(options, "4096");
}

TEST(SsrConfig, SeedPinnedToACoreTheRunDoesNotHave) {
  ssr::RunOptions options;
  options.cores = 1;
  options.seed_core = 1;
  expect_config_error(options, "core 1");
}

TEST(SsrConfig, ZeroCoresMeansEveryCore) {
  std::size_t seen = 0;
  ssr::RunOptions options;
  options.cores = 0;
  within(kRunLimit, "ssr::run on every core", [&] {
    return ssr::run([&](Context& ctx) { seen = ctx.core_count(); }, options);
  });
  EXPECT_EQ(seen, proto::RealMachine::available_cores());
}

// Runs share no hidden global state: two runs at once, from two threads, each get their own
// VPs and messages (MessageType objects are static and shared by both).
TEST(SsrRuns, TwoRunsAtOnceDoNotInterfere) {
  static const ssr::MessageType<int> kShared{"shared"};
  auto program = [](int base) {
    return [base](Context& ctx) {
      const ssr::VpRef seed = ctx.self();
      for (int i = 0; i < 200; ++i) {
        ctx.create_vp([seed, base, i](Context& me) { me.send_of_type_to(kShared, seed, base + i); });
      }
      long long sum = 0;
      for (int i = 0; i < 200; ++i) sum += ctx.receive_of_type_to(kShared);
      if (sum != 200LL * base + 199 * 200 / 2) throw std::logic_error("messages crossed runs");
    };
  };
  auto first = std::async(std::launch::async, [&] {
    return within(kRunLimit, "first of two concurrent runs",
                  [&] { return ssr::run(program(1000), ssr::RunOptions{.cores = 2}); });
  });
  auto second = std::async(std::launch::async, [&] {
    return within(kRunLimit, "second of two concurrent runs",
                  [&] { return ssr::run(program(5000), ssr::RunOptions{.cores = 1}); });
  });
  EXPECT_EQ(first.get().vps_created, 201u);
  EXPECT_EQ(second.get().vps_created, 201u);
}

// One machine drives several runs in turn (a benchmark loop does this).
TEST(SsrRuns, AMachineDrivesRunsInTurn) {
  proto::RealMachine machine(2);
  for (int round = 0; round < 5; ++round) {
    std::atomic<int> ran{0};
    const proto::RunStats stats = within(kRunLimit, "a run on a reused machine", [&] {
      return ssr::run(machine, [&](Context& ctx) {
        for (int i = 0; i < 10; ++i) ctx.create_vp([&](Context&) { ran.fetch_add(1); });
      });
    });
    EXPECT_EQ(ran.load(), 10) << "round " << round;
    EXPECT_EQ(stats.vps_created, 11u) << "round " << round;
  }
}

}  // namespace
}  // namespace moirai::test

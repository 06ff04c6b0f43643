// Lock domains: the runtime runs the handlers of requests on different domains at the same time,
// never two handlers of one domain, takes two domains in one order, and keeps a language that
// names none under its one lock. The test-only "touch" language (support/domain_lang.h) counts.
#include <gtest/gtest.h>

#include <cstdint>
#include <mutex>
#include <thread>
#include <string>
#include <utility>
#include <vector>

#include "moirai/proto_runtime/real_machine.h"
#include "moirai/proto_runtime/runtime.h"
#include "moirai/proto_runtime/sim_machine.h"
#include "support/domain_lang.h"
#include "support/fork_join.h"
#include "support/test_support.h"

namespace moirai::test {
namespace {

using proto::VirtualProcessor;

// WaitWatcher hears the runtime's lock waits: a wait that began, and each domain named and waited.
struct WaitWatcher final : RuntimeObserver {
  std::atomic<bool> waiting{false};
  std::mutex mutex;
  std::vector<std::string> named;
  std::vector<std::pair<CoreId, LockDomain>> waited;  // (released by, domain)
  void lock_wait_begin(CoreId) override { waiting.store(true); }
  void lock_domain_named(CoreId, LockDomain domain, const std::string& name) override {
    std::lock_guard guard(mutex);
    named.push_back(std::to_string(domain) + ": " + name);
  }
  void lock_wait_end(CoreId, CoreId released_by, LockDomain domain) override {
    std::lock_guard guard(mutex);
    waited.emplace_back(released_by, domain);
  }
};

// run_touch runs `seed` on `machine` with `language` within the suite's time limit.
void run_touch(proto::Machine& machine, touch::Touch& language, proto::VpFunction seed,
               RuntimeObserver* observer = nullptr) {
  proto::Runtime runtime(machine, language, {.observer = observer});
  within(kRunLimit, "proto::Runtime::run (touch)", [&] {
    runtime.run(std::move(seed), proto::VpOptions{"seed", 0, 0});
    return 0;
  });
}

// Two VPs, one per core, each touch a cell of their own and wait in the handler until the other
// handler is in flight too: under one lock for all handlers the second could never start.
TEST(LockDomains, HandlersOfTwoDomainsAreInFlightAtOnce) {
  proto::RealMachine machine(2);
  touch::Touch language(2);
  WaitWatcher watcher;
  language.give_up_when(&watcher.waiting);
  run_touch(machine, language, [](VirtualProcessor& self) {
    // Core 1's first: the seed's own core runs the child queued before the seed.
    touch::spawn(self, 1, [](VirtualProcessor& vp) { touch::touch(vp, 2, /*meet=*/true); });
    touch::spawn(self, 0, [](VirtualProcessor& vp) { touch::touch(vp, 1, /*meet=*/true); });
  }, &watcher);
  EXPECT_GE(language.met(), 1u);
  EXPECT_EQ(language.gave_up(), 0u);
  EXPECT_EQ(language.overlaps(), 0u);
  EXPECT_TRUE(watcher.waited.empty());
}

// The control: the same program in a language that names no domains never has two handlers in
// flight: the second core waits for the one lock (the runtime says so), and each handler gives up.
TEST(LockDomains, ALanguageNamingNoneRunsOneHandlerAtATime) {
  proto::RealMachine machine(2);
  touch::Touch language(2);
  language.with_domains(false);
  WaitWatcher watcher;
  language.give_up_when(&watcher.waiting);
  run_touch(machine, language, [](VirtualProcessor& self) {
    // Core 1's first: the seed's own core runs the child queued before the seed.
    touch::spawn(self, 1, [](VirtualProcessor& vp) { touch::touch(vp, 2, /*meet=*/true); });
    touch::spawn(self, 0, [](VirtualProcessor& vp) { touch::touch(vp, 1, /*meet=*/true); });
  }, &watcher);
  EXPECT_EQ(language.met(), 0u);
  EXPECT_EQ(language.gave_up(), 2u);
  EXPECT_FALSE(watcher.waited.empty());
}

// Four VPs on two cores hammer three cells, alone and in pairs named in either order: no handler
// finds another of its domain in flight, no count is lost, and the pairs (taken in one order
// whatever the order named) never deadlock.
TEST(LockDomains, HandlersOfOneDomainNeverOverlap) {
  constexpr int kRounds = 4000;
  proto::RealMachine machine(2);
  touch::Touch language(2);
  run_touch(machine, language, [](VirtualProcessor& self) {
    for (CoreId core : {0u, 1u, 0u, 1u}) {
      touch::spawn(self, core, [core](VirtualProcessor& vp) {
        for (int k = 0; k < kRounds; ++k) {
          touch::touch(vp, 1);
          touch::touch(vp, 2 + k % 2);
          if (core == 0) {
            touch::touch_two(vp, 1, 2);
          } else {
            touch::touch_two(vp, 2, 1);
          }
        }
      });
    }
  });
  EXPECT_EQ(language.overlaps(), 0u);
  EXPECT_EQ(language.touches(1), 4u * 2 * kRounds);
  EXPECT_EQ(language.touches(2), 4u * kRounds / 2 + 4u * kRounds);
  EXPECT_EQ(language.touches(3), 4u * kRounds / 2);
}

// A core that waits for a domain another core holds reports the wait with the domain, named in
// the language's words, and the core that released it: the holder keeps its handler running
// until the runtime says the other core waits (the runtime's word, not a time).
TEST(LockDomains, AWaitForADomainIsReportedNamedWithItsHolder) {
  proto::RealMachine machine(2);
  touch::Touch language(2);
  WaitWatcher watcher;
  language.give_up_when(&watcher.waiting);
  proto::Runtime runtime(machine, language, {.observer = &watcher});
  within(kRunLimit, "proto::Runtime::run (touch, a wait)", [&] {
    runtime.run(
        [&language](VirtualProcessor& self) {
          touch::spawn(self, 1, [](VirtualProcessor& vp) { touch::touch(vp, 5, /*meet=*/true); });
          touch::spawn(self, 0, [&language](VirtualProcessor& vp) {
            while (!language.in_flight(5)) std::this_thread::yield();  // core 1 holds cell 5
            touch::touch(vp, 5);
          });
        },
        proto::VpOptions{"seed", 0, 0});
    return 0;
  });
  EXPECT_EQ(language.gave_up(), 1u);  // core 1 held on until core 0's wait began
  EXPECT_EQ(language.overlaps(), 0u);
  EXPECT_EQ(language.touches(5), 2u);
  ASSERT_EQ(watcher.waited.size(), 1u);
  EXPECT_EQ(watcher.waited[0], (std::pair<CoreId, LockDomain>{1, 5}));
  EXPECT_EQ(watcher.named, (std::vector<std::string>{"5: cell 5"}));
}

// A simulated machine runs the same program to the same counts.
TEST(LockDomains, ASimulatedMachineRunsADomainLanguage) {
  proto::SimConfig config;
  config.topology = proto::SimTopology{1, 2};
  proto::SimMachine machine(config);
  touch::Touch language(2);
  run_touch(machine, language, [](VirtualProcessor& self) {
    for (CoreId core : {0u, 1u}) {
      touch::spawn(self, core, [](VirtualProcessor& vp) {
        for (int k = 0; k < 100; ++k) touch::touch_two(vp, 1, 2);
      });
    }
  });
  EXPECT_EQ(language.overlaps(), 0u);
  EXPECT_EQ(language.touches(1), 200u);
}

// The fork/join language names no domains: on two cores its handlers (which share one map of
// VP states) never overlap, as before lock domains.
TEST(LockDomains, AForkJoinRunOnTwoCoresNeverOverlapsItsHandlers) {
  proto::RealMachine machine(2);
  fj::ForkJoin language;
  proto::Runtime runtime(machine, language, {});
  std::atomic<int> leaves{0};
  within(kRunLimit, "proto::Runtime::run (fork/join)", [&] {
    runtime.run(
        [&](VirtualProcessor& self) {
          for (int k = 0; k < 200; ++k) {
            fj::fork(self, [&](VirtualProcessor&) { leaves.fetch_add(1); });
          }
          fj::join(self);
        },
        proto::VpOptions{"seed", kAnyCore, 0});
    return 0;
  });
  EXPECT_EQ(leaves.load(), 200);
  EXPECT_EQ(language.overlaps(), 0u);
}

}  // namespace
}  // namespace moirai::test

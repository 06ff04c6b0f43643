// A VP handed to an idle core reaches it whether the core still spins or has parked: the
// machine's idle loop polls CoreScheduler::handed_work, and Machine::notify_handed wakes a
// parked core (real_machine.cpp). A lost wake-up shows as a hang, which `within` turns into an
// abort naming the test.
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <chrono>

#include "moirai/proto_runtime/real_machine.h"
#include "support/test_support.h"

namespace moirai::test {
namespace {

using Clock = std::chrono::steady_clock;

// Handing: core 0 hands core 1 a "VP" (a flag) each round, once core 1 has gone idle, after a
// delay that lets core 1 spin, park, or be on the way to parking (kIdleSpinNs is 50 us).
class Handing final : public proto::CoreScheduler {
 public:
  Handing(proto::RealMachine& machine, std::size_t rounds) : machine_(machine), rounds_(rounds) {}

  Step step(CoreId core) override {
    if (core == 1) {
      if (handed_.exchange(false, std::memory_order_acq_rel) &&
          taken_.fetch_add(1, std::memory_order_relaxed) + 1 == rounds_) {
        return Step::finished;
      }
      idle_.fetch_add(1, std::memory_order_release);
      return Step::idle;
    }
    if (round_ == rounds_) return Step::finished;
    // Core 1 went idle after taking the previous round's VP (or at its start).
    while (idle_.load(std::memory_order_acquire) <= round_) {
    }
    constexpr std::array<int, 8> kDelayUs{0, 5, 30, 45, 50, 55, 80, 400};
    const auto until = Clock::now() + std::chrono::microseconds(kDelayUs[round_ % kDelayUs.size()]);
    while (Clock::now() < until) {
    }
    ++round_;
    handed_.store(true, std::memory_order_release);
    machine_.notify_handed(1);
    return Step::animated;
  }

  bool handed_work(CoreId core) const noexcept override {
    return core == 1 && handed_.load(std::memory_order_seq_cst);
  }

  std::size_t taken() const { return taken_.load(); }

 private:
  proto::RealMachine& machine_;
  const std::size_t rounds_;
  std::size_t round_ = 0;  // core 0's own
  std::atomic<bool> handed_{false};
  std::atomic<std::size_t> taken_{0};
  std::atomic<std::size_t> idle_{0};
};

TEST(RealMachineWake, AHandedVpReachesACoreThatSpinsParksOrIsParking) {
  // A hand-over goes from one core to another: one processing unit cannot show it.
  if (proto::RealMachine::available_cores() < 2) {
    GTEST_SKIP() << "this machine has " << proto::RealMachine::available_cores()
                 << " processing unit; handing a VP to another core needs 2";
  }
  proto::RealMachine machine(2);
  constexpr std::size_t kRounds = 400;
  Handing scheduler(machine, kRounds);
  within(kRunLimit, "handing a VP to an idle core 400 times", [&] { machine.drive(scheduler); });
  EXPECT_EQ(scheduler.taken(), kRounds);
}

}  // namespace
}  // namespace moirai::test

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

// Handing: core 0 hands core 1 a "VP" (a flag) each round, once core 1 has taken every VP handed
// so far and gone idle, after a delay that lets core 1 spin, park, or be on the way to parking
// (kIdleSpinNs is 50 us). Core 1 may step more than once per round: a notify_handed that saw it
// announce its sleep bumps its wake-up word even when its last look already found the VP, and the
// next step then finds nothing. So core 1 publishes how many VPs it had taken when it went idle,
// and core 0 waits for exactly the rounds it handed (counting idle steps let core 0 hand again
// before the previous VP was taken: two rounds became one take and core 1 idled forever).
class Handing final : public proto::CoreScheduler {
 public:
  Handing(proto::RealMachine& machine, std::size_t rounds) : machine_(machine), rounds_(rounds) {}

  Step step(CoreId core) override {
    if (core == 1) {
      if (broken_.load(std::memory_order_acquire)) return Step::finished;
      std::size_t taken = taken_.load(std::memory_order_relaxed);
      if (handed_.exchange(false, std::memory_order_acq_rel)) {
        taken_.store(++taken, std::memory_order_relaxed);
        if (taken == rounds_) return Step::finished;
      }
      idle_after_.store(taken, std::memory_order_release);
      return Step::idle;
    }
    if (round_ == rounds_) return Step::finished;
    // Core 1 took the previous round's VP and went idle after it (or at its start).
    while (idle_after_.load(std::memory_order_acquire) != round_) {
    }
    // How long after core 1 went idle the VP arrives is what the test varies (spinning, parking,
    // in between), so here a time is the subject, not a wait for a state.
    constexpr std::array<int, 8> kDelayUs{0, 5, 30, 45, 50, 55, 80, 400};
    const auto until = Clock::now() + std::chrono::microseconds(kDelayUs[round_ % kDelayUs.size()]);
    while (Clock::now() < until) {
    }
    ++round_;
    if (handed_.exchange(true, std::memory_order_acq_rel)) {
      // The previous VP is still there: the handshake is broken. End both cores instead of
      // handing on (core 1 would wait forever for the round that was lost).
      double_hand_round_ = round_;
      broken_.store(true, std::memory_order_release);
      machine_.notify_work(1);
      return Step::finished;
    }
    machine_.notify_handed(1);
    return Step::animated;
  }

  bool handed_work(CoreId core) const noexcept override {
    return core == 1 && handed_.load(std::memory_order_seq_cst);
  }

  std::size_t taken() const { return taken_.load(); }
  // double_hand_round is the round whose VP found the previous one untaken, 0 if none did.
  std::size_t double_hand_round() const { return double_hand_round_; }

 private:
  proto::RealMachine& machine_;
  const std::size_t rounds_;
  std::size_t round_ = 0;              // core 0's own
  std::size_t double_hand_round_ = 0;  // core 0's own, read after the run
  std::atomic<bool> handed_{false};
  std::atomic<bool> broken_{false};
  std::atomic<std::size_t> taken_{0};       // written by core 1 only
  std::atomic<std::size_t> idle_after_{0};  // VPs core 1 had taken when it last went idle
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
  EXPECT_EQ(scheduler.double_hand_round(), 0U)
      << "core 0 handed a VP while the previous round's was still untaken";
  EXPECT_EQ(scheduler.taken(), kRounds);
}

}  // namespace
}  // namespace moirai::test

// The RuntimeObserver sees every instrumentation point, balanced and properly nested per core,
// each on the thread of the core it names, and its counts agree exactly with RunStats.
//
// Idle periods: Runtime::step emits idle_end at its top whenever the core's previous step was
// idle, and a core leaves its loop only through a step that returns `finished`, so every idle
// period is closed, also the last one of a run (the core is woken to finish). The invariant is
// therefore idle_begin == idle_end on every core, with no nesting.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "moirai/core/runtime_observer.h"
#include "moirai/proto_runtime/errors.h"
#include "moirai/ssr/ssr.h"
#include "support/ssr_support.h"
#include "support/test_support.h"

namespace moirai::test {
namespace {

using ssr::Context;
using ssr::VpRef;

// CheckingObserver counts every point and checks the per-core protocol as it goes. Each core's
// state is touched only by that core's thread (as the interface promises; checked too).
class CheckingObserver final : public RuntimeObserver {
 public:
  struct Core {
    std::uint64_t unit_begin = 0, unit_end = 0, handler_enter = 0, handler_exit = 0;
    std::uint64_t assigner_enter = 0, assigner_exit = 0, lock_wait_begin = 0, lock_wait_end = 0;
    std::uint64_t idle_begin = 0, idle_end = 0, chosen = 0, end_requests = 0;
    std::vector<UnitId> units_begun, units_ended, units_handled;
    std::vector<std::string> violations;
    // protocol state
    bool in_unit = false, in_handler = false, in_assigner = false, in_lock_wait = false,
         idle = false;
    VpId unit_vp = 0;
    UnitId unit = 0, handler_unit = 0, just_chosen = 0;
    ConstructKind handler_kind = 0;
    std::thread::id thread;
    bool thread_known = false;
  };

  explicit CheckingObserver(std::size_t cores) : cores_(cores) {}

  void unit_begin(CoreId core, VpId vp, UnitId unit) override {
    Core& c = at(core, "unit_begin");
    ++c.unit_begin;
    expect(c, !c.in_unit && !c.in_handler && !c.in_assigner && !c.idle,
           "unit_begin while busy or idle");
    expect(c, c.just_chosen == unit, "unit_begin for a unit the assigner did not just choose");
    c.just_chosen = 0;
    c.in_unit = true;
    c.unit_vp = vp;
    c.unit = unit;
    c.units_begun.push_back(unit);
  }
  void unit_end(CoreId core, VpId vp, UnitId unit, ConstructKind ended_by,
                const CallSite&) override {
    Core& c = at(core, "unit_end");
    ++c.unit_end;
    expect(c, c.in_unit && c.unit_vp == vp && c.unit == unit, "unit_end does not match unit_begin");
    c.in_unit = false;
    c.units_ended.push_back(unit);
    if (ended_by == proto::kEndVp) ++c.end_requests;
  }
  void handler_enter(CoreId core, ConstructKind kind, UnitId unit) override {
    Core& c = at(core, "handler_enter");
    ++c.handler_enter;
    expect(c, !c.in_unit && !c.in_handler && !c.in_assigner && !c.idle,
           "handler_enter while busy or idle");
    c.in_handler = true;
    c.handler_kind = kind;
    c.handler_unit = unit;
    c.units_handled.push_back(unit);
  }
  void handler_exit(CoreId core, ConstructKind kind, UnitId unit) override {
    Core& c = at(core, "handler_exit");
    ++c.handler_exit;
    expect(c, c.in_handler && c.handler_kind == kind && c.handler_unit == unit,
           "handler_exit does not match handler_enter");
    c.in_handler = false;
  }
  void assigner_enter(CoreId core) override {
    Core& c = at(core, "assigner_enter");
    ++c.assigner_enter;
    expect(c, !c.in_unit && !c.in_handler && !c.in_assigner && !c.idle,
           "assigner_enter while busy or idle");
    c.in_assigner = true;
  }
  void assigner_exit(CoreId core, UnitId chosen) override {
    Core& c = at(core, "assigner_exit");
    ++c.assigner_exit;
    expect(c, c.in_assigner, "assigner_exit without assigner_enter");
    c.in_assigner = false;
    c.just_chosen = chosen;
    if (chosen != 0) ++c.chosen;
  }
  void lock_wait_begin(CoreId core) override {
    Core& c = at(core, "lock_wait_begin");
    ++c.lock_wait_begin;
    expect(c, !c.in_lock_wait && !c.in_unit && !c.idle, "lock_wait_begin nested, in a unit or idle");
    c.in_lock_wait = true;
  }
  void lock_wait_end(CoreId core, CoreId /*released_by*/, LockDomain /*domain*/) override {
    Core& c = at(core, "lock_wait_end");
    ++c.lock_wait_end;
    expect(c, c.in_lock_wait, "lock_wait_end without lock_wait_begin");
    c.in_lock_wait = false;
  }
  void idle_begin(CoreId core) override {
    Core& c = at(core, "idle_begin");
    ++c.idle_begin;
    expect(c, !c.idle && !c.in_unit && !c.in_handler && !c.in_assigner,
           "idle_begin while idle or busy");
    c.idle = true;
  }
  void idle_end(CoreId core) override {
    Core& c = at(core, "idle_end");
    ++c.idle_end;
    expect(c, c.idle, "idle_end without idle_begin");
    c.idle = false;
  }

  const Core& core(std::size_t k) const { return cores_[k]; }
  std::size_t core_count() const { return cores_.size(); }
  std::uint64_t foreign_core_calls() const { return foreign_.load(); }

  template <class Field>
  std::uint64_t total(Field field) const {
    std::uint64_t sum = 0;
    for (const Core& c : cores_) sum += c.*field;
    return sum;
  }

 private:
  Core& at(CoreId core, const char* point) {
    if (core >= cores_.size()) {
      foreign_.fetch_add(1);
      static Core dummy;  // never inspected
      (void)point;
      return dummy;
    }
    Core& c = cores_[core];
    if (!c.thread_known) {
      c.thread = std::this_thread::get_id();
      c.thread_known = true;
    } else if (c.thread != std::this_thread::get_id()) {
      c.violations.push_back(std::string(point) + " on another thread than the core's");
    }
    return c;
  }
  static void expect(Core& c, bool ok, const char* what) {
    if (!ok) c.violations.push_back(what);
  }

  std::vector<Core> cores_;
  std::atomic<std::uint64_t> foreign_{0};
};

// check_balanced asserts the invariants that hold at the end of every run, whatever its outcome.
void check_balanced(const CheckingObserver& observer) {
  EXPECT_EQ(observer.foreign_core_calls(), 0u) << "a point named a core the run does not have";
  for (std::size_t k = 0; k < observer.core_count(); ++k) {
    SCOPED_TRACE("core " + std::to_string(k));
    const CheckingObserver::Core& c = observer.core(k);
    std::ostringstream violations;
    for (std::size_t i = 0; i < c.violations.size() && i < 5; ++i) {
      violations << "\n  " << c.violations[i];
    }
    EXPECT_TRUE(c.violations.empty()) << c.violations.size() << " violations:" << violations.str();
    EXPECT_EQ(c.unit_begin, c.unit_end);
    EXPECT_EQ(c.handler_enter, c.handler_exit);
    EXPECT_EQ(c.assigner_enter, c.assigner_exit);
    EXPECT_EQ(c.lock_wait_begin, c.lock_wait_end);
    EXPECT_EQ(c.idle_begin, c.idle_end) << "every idle period is closed";
    EXPECT_EQ(c.chosen, c.unit_begin) << "each unit the assigner chose was animated";
    EXPECT_FALSE(c.in_unit || c.in_handler || c.in_assigner || c.in_lock_wait || c.idle);
  }
}

// A program with some of everything, cross-core traffic and idle time.
void busy_program(Context& ctx, ssr::Singleton& once) {
  static const ssr::MessageType<int> kPartial{"partial"};
  static const ssr::MessageType<int> kJob{"job"};
  const VpRef seed = ctx.self();
  const CoreId far = static_cast<CoreId>(ctx.core_count() - 1);
  const VpRef results = ctx.create_vp(
      [seed](Context& me) {
        int sum = 0;
        for (int i = 0; i < 40; ++i) sum += me.receive_of_type_to(kPartial);
        me.send_from_to(seed, sum);
      },
      ssr::CreateOptions{.name = "results", .core = far});
  for (int w = 0; w < 8; ++w) {
    ctx.create_vp(
        [results, &once](Context& me) {
          me.singleton(once, [] {
            volatile unsigned spin = 0;
            for (int k = 0; k < 100000; ++k) spin = spin + static_cast<unsigned>(k);
          });
          for (int i = 0; i < 5; ++i) {
            const int job = me.receive_of_type(kJob);
            volatile unsigned spin = 0;
            for (int k = 0; k < 20000; ++k) spin = spin + static_cast<unsigned>(k);
            me.send_of_type_to(kPartial, results, job);
          }
        },
        ssr::CreateOptions{.name = "worker", .core = static_cast<CoreId>(w % ctx.core_count())});
  }
  for (int j = 0; j < 40; ++j) ctx.send_of_type(kJob, 1);
  if (ctx.receive_from_to<int>(results) != 40) throw std::logic_error("lost a partial result");
}

class SsrObserver : public CoreCountTest {};

TEST_P(SsrObserver, CountsAgreeWithRunStats) {
  CheckingObserver observer(cores());
  ssr::RunOptions options;
  options.observer = &observer;
  ssr::Singleton once("once");
  const proto::RunStats stats =
      run_ssr(cores(), [&](Context& ctx) { busy_program(ctx, once); }, options);
  check_balanced(observer);
  EXPECT_EQ(observer.total(&CheckingObserver::Core::unit_begin), stats.units_animated);
  EXPECT_EQ(observer.total(&CheckingObserver::Core::unit_end), stats.units_animated);
  EXPECT_EQ(observer.total(&CheckingObserver::Core::handler_enter), stats.requests_handled);
  EXPECT_EQ(observer.total(&CheckingObserver::Core::handler_exit), stats.requests_handled);
  EXPECT_EQ(observer.total(&CheckingObserver::Core::end_requests), stats.vps_created)
      << "each VP's last unit ends with the end request";
  EXPECT_EQ(stats.vps_created, 10u);

  // Every unit is animated once, ended once, and its request handled once.
  std::vector<UnitId> begun, ended, handled;
  for (std::size_t k = 0; k < cores(); ++k) {
    const auto& c = observer.core(k);
    begun.insert(begun.end(), c.units_begun.begin(), c.units_begun.end());
    ended.insert(ended.end(), c.units_ended.begin(), c.units_ended.end());
    handled.insert(handled.end(), c.units_handled.begin(), c.units_handled.end());
  }
  std::sort(begun.begin(), begun.end());
  std::sort(ended.begin(), ended.end());
  std::sort(handled.begin(), handled.end());
  EXPECT_EQ(std::adjacent_find(begun.begin(), begun.end()), begun.end()) << "a unit ran twice";
  EXPECT_EQ(begun, ended);
  EXPECT_EQ(begun, handled);
  EXPECT_EQ(std::count(begun.begin(), begun.end(), UnitId{0}), 0) << "unit 0 means no unit";
}

// The same invariants hold when a run ends in a deadlock or a failure.
TEST_P(SsrObserver, BalancedAfterDeadlock) {
  CheckingObserver observer(cores());
  ssr::RunOptions options;
  options.observer = &observer;
  EXPECT_THROW(run_ssr(
                   cores(),
                   [](Context& ctx) {
                     static const ssr::MessageType<int> kNever{"never"};
                     for (int i = 0; i < 4; ++i) {
                       ctx.create_vp([](Context& me) { me.receive_of_type(kNever); });
                     }
                   },
                   options),
               proto::DeadlockError);
  check_balanced(observer);
}

TEST_P(SsrObserver, BalancedAfterFailure) {
  CheckingObserver observer(cores());
  ssr::RunOptions options;
  options.observer = &observer;
  EXPECT_THROW(run_ssr(
                   cores(),
                   [](Context& ctx) {
                     static const ssr::MessageType<int> kNever{"never"};
                     for (int i = 0; i < 4; ++i) {
                       ctx.create_vp([](Context& me) { me.receive_of_type(kNever); });
                     }
                     ctx.create_vp([](Context&) { throw std::runtime_error("fail"); });
                   },
                   options),
               proto::VpFailure);
  check_balanced(observer);
}

MOIRAI_INSTANTIATE_MACHINES(SsrObserver);

}  // namespace
}  // namespace moirai::test

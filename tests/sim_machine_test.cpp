// The simulated machine: declared work gives exact, repeatable virtual time; the runtime lock is
// a resource whose waits are recorded; 1024 cores run; bad specs and cost models are refused.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <functional>
#include <fstream>
#include <string>
#include <tuple>
#include <vector>

#include "moirai/instrument/trace_recorder.h"
#include "moirai/proto_runtime/errors.h"
#include "moirai/proto_runtime/sim_machine.h"
#include "moirai/ssr/ssr.h"
#include "moirai/trace/reader.h"
#include "support/test_support.h"

namespace moirai::test {
namespace {

inline const ssr::MessageType<int> kDone{"done"};

std::string temp_path(const std::string& name) {
  return ::testing::TempDir() + "moirai_sim_" + name + "_" + std::to_string(::getpid()) + ".mtrace";
}

// fan_out: the seed creates `workers` VPs pinned round-robin, each charges `work` ticks and
// reports to the seed.
void fan_out(ssr::Context& ctx, int workers, std::uint64_t work) {
  const ssr::VpRef seed = ctx.self();
  for (int w = 0; w < workers; ++w) {
    ctx.create_vp(
        [seed, work](ssr::Context& me) {
          me.charge_work(work);
          me.send_of_type_to(kDone, seed, 1);
        },
        {.name = "worker", .core = static_cast<CoreId>(w % ctx.core_count())});
  }
  int done = 0;
  for (int w = 0; w < workers; ++w) done += ctx.receive_of_type_to(kDone);
  EXPECT_EQ(done, workers);
}

proto::SimConfig sim(std::size_t cores, proto::CostModel costs = proto::CostModel::default_model()) {
  return proto::SimConfig{.topology = {1, cores}, .work = proto::SimWork::declared, .factor = 1.0,
                          .costs = costs};
}

trace::Trace record(proto::SimMachine& machine, const std::string& name,
                    const std::function<void(ssr::Context&)>& seed) {
  const std::string path = temp_path(name);
  {
    instrument::TraceRecorder recorder(instrument::RecorderOptions{path, {}, "test", 256 * 1024});
    ssr::RunOptions options;
    options.observer = &recorder;
    within(kRunLimit, name, [&] { ssr::run(machine, seed, options); });
    recorder.finish();
  }
  trace::Trace trace = trace::read_trace(path);
  std::remove(path.c_str());
  // Chunks of different cores reach the file in the writer thread's order; each core's own
  // records are in its order. Sorting by core makes two traces comparable record by record.
  const auto by_core = [](const auto& a, const auto& b) { return a.core < b.core; };
  std::stable_sort(trace.units.begin(), trace.units.end(), by_core);
  std::stable_sort(trace.idle.begin(), trace.idle.end(), by_core);
  std::stable_sort(trace.lock_handoffs.begin(), trace.lock_handoffs.end(), by_core);
  std::sort(trace.constraints.begin(), trace.constraints.end(), [](const auto& a, const auto& b) {
    return std::tie(a.time, a.from, a.to) < std::tie(b.time, b.from, b.to);
  });
  return trace;
}

// The header's wall-clock and host fields differ between runs; everything else must not.
constexpr const char* kHostFields[] = {"start_unix_ns", "unit_record_cost_ns", "host", "command_line"};

TEST(SimMachine, DeclaredWorkGivesIdenticalTracesTwice) {
  const auto seed = [](ssr::Context& ctx) { fan_out(ctx, 100, 5000); };
  proto::SimMachine first(sim(8));
  proto::SimMachine second(sim(8));
  trace::Trace a = record(first, "repeat_a", seed);
  trace::Trace b = record(second, "repeat_b", seed);
  for (const char* key : kHostFields) {
    a.metadata.erase(key);
    b.metadata.erase(key);
  }
  EXPECT_EQ(a.metadata, b.metadata);
  EXPECT_EQ(a.metadata.at("clock_source"), "virtual");
  EXPECT_EQ(a.metadata.at("machine"), "sim:8");
  EXPECT_EQ(a.metadata.at("sim_work"), "declared");
  // Chunks of different cores reach the file in the writer thread's order: compare each core's
  // records in their own (deterministic) order, and constraints in time order.
  for (trace::Trace* t : {&a, &b}) {
    std::stable_sort(t->units.begin(), t->units.end(), [](const auto& x, const auto& y) { return x.core < y.core; });
    std::stable_sort(t->idle.begin(), t->idle.end(), [](const auto& x, const auto& y) { return x.core < y.core; });
    std::sort(t->constraints.begin(), t->constraints.end(), [](const auto& x, const auto& y) {
      return std::tie(x.time, x.from, x.to, x.construct, x.match) < std::tie(y.time, y.from, y.to, y.construct, y.match);
    });
  }
  ASSERT_EQ(a.units.size(), b.units.size());
  ASSERT_GT(a.units.size(), 200u);
  for (std::size_t i = 0; i < a.units.size(); ++i) {
    EXPECT_EQ(a.units[i].core, b.units[i].core);
    EXPECT_EQ(0, std::memcmp(&a.units[i].record, &b.units[i].record, sizeof a.units[i].record)) << "unit " << i;
  }
  ASSERT_EQ(a.idle.size(), b.idle.size());
  for (std::size_t i = 0; i < a.idle.size(); ++i) {
    EXPECT_EQ(std::tie(a.idle[i].core, a.idle[i].begin, a.idle[i].end),
              std::tie(b.idle[i].core, b.idle[i].begin, b.idle[i].end));
  }
  ASSERT_EQ(a.constraints.size(), b.constraints.size());
  for (std::size_t i = 0; i < a.constraints.size(); ++i) {
    EXPECT_EQ(0, std::memcmp(&a.constraints[i], &b.constraints[i], sizeof a.constraints[i]));
  }
  ASSERT_EQ(a.lock_handoffs.size(), b.lock_handoffs.size());
  EXPECT_EQ(first.makespan(), second.makespan());
}

// One VP on one core: create nothing, charge twice, end. Every cost is known, so the makespan is
// the exact sum: assigner + switch + work + communication + lock + end_vp handler (SSR names lock
// domains: its assigner takes no lock, its end takes the VP's domain).
TEST(SimMachine, MakespanIsTheCostModelsExactSum) {
  const proto::CostModel costs{.clock_hz = 1e9, .switch_ticks = 7, .communication = 11, .communications = {}, .lock = 13, .lock_handoff = 0,
                               .assigner = 17, .wake = 19, .wake_parked = 19, .idle_spin = 0, .handler = 23, .handlers = {{"end_vp", 29}}, .work = {}, .omp = {}};
  proto::SimMachine machine(sim(1, costs));
  within(kRunLimit, "exact sum", [&] {
    ssr::run(machine, [](ssr::Context& ctx) {
      ctx.charge_work(1000);
      ctx.charge_work(234);
    });
  });
  EXPECT_EQ(machine.makespan(), 17u + 7 + 1234 + 11 + 13 + 29);
  EXPECT_EQ(machine.units(), 1u);
}

// known_workload_makespan runs a seed on core 0 whose first unit (work 50) ends in create_vp
// and whose next unit (work 70) ends it; the child, pinned to core 1, does 1000 ticks. Core 1
// wakes when the child is made ready. Handlers: create_vp 100, end_vp 20, others 10.
std::uint64_t known_workload_makespan(std::uint64_t lock_contended) {
  const proto::CostModel costs{.clock_hz = 1e9, .switch_ticks = 5, .communication = 3, .communications = {}, .lock = 2, .lock_handoff = 0,
                               .lock_contended = lock_contended, .assigner = 4, .wake = 0, .wake_parked = 0, .idle_spin = 0,
                               .handler = 10, .handlers = {{"create_vp", 100}, {"end_vp", 20}}, .work = {}, .omp = {}};
  proto::SimMachine machine(sim(2, costs));
  within(kRunLimit, "known workload", [&] {
    ssr::run(machine, [](ssr::Context& ctx) {
      ctx.charge_work(50);
      ctx.create_vp([](ssr::Context& me) { me.charge_work(1000); }, {.name = "child", .core = 1});
      ctx.charge_work(70);
    }, ssr::RunOptions{.seed_core = 0});
  });
  return machine.makespan();
}

// A seed and a child on two cores: each unit's cost is known, so is the sum.
TEST(SimMachine, MakespanOfAKnownWorkloadOnTwoCores) {
  // SSR names lock domains: its assigner takes no lock, a creation none, an end its VP's domain.
  // Core 0 at 0: assigner 4, switch 5 -> unit at 9, work 50 -> 59, comm 3 -> 62, create handler
  // 100 -> 162; the child is made ready for core 1 at 162. Core 1 found nothing at 4 and idles.
  // Core 1, woken at 162: assigner 4 -> 166, switch 5 -> 171, work 1000 -> 1171, comm 3, lock 2
  // (the child's domain), end_vp 20 -> 1196. Core 0 ends the seed long before.
  EXPECT_EQ(known_workload_makespan(0), 1196u);
  // No core waits for a domain another holds there: a contended hand-off costs nothing.
  EXPECT_EQ(known_workload_makespan(50), 1196u);
}

// Two cores pass one singleton at about the same virtual time: each hold after a wait for its
// domain costs lock.contended more (here every wait delays the run), and the trace names the
// domain waited for.
TEST(SimMachine, AHoldAfterADomainWaitCostsTheContendedHandOffAndIsNamed) {
  const auto makespan = [](std::uint64_t contended, trace::Trace* out) {
    proto::CostModel costs{.clock_hz = 1e9, .switch_ticks = 5, .communication = 3, .communications = {}, .lock = 2,
                           .lock_handoff = 0, .lock_contended = contended, .assigner = 4, .wake = 0, .wake_parked = 0,
                           .idle_spin = 0, .handler = 1000, .handlers = {}, .work = {}, .omp = {}};
    proto::SimMachine machine(sim(2, costs));
    static ssr::Singleton gate("gate");
    const auto seed = [](ssr::Context& ctx) {
      ctx.create_vp([](ssr::Context& me) { me.singleton(gate, [] {}); }, {.name = "child", .core = 1});
      ctx.singleton(gate, [] {});
    };
    trace::Trace trace = record(machine, contended == 0 ? "domain_wait_0" : "domain_wait_50", seed);
    if (out != nullptr) *out = std::move(trace);
    return machine.makespan();
  };
  trace::Trace trace;
  const std::uint64_t uncontended = makespan(0, nullptr);
  const std::uint64_t contended = makespan(50, &trace);
  ASSERT_FALSE(trace.lock_handoffs.empty());
  EXPECT_EQ(contended, uncontended + 50 * trace.lock_handoffs.size());
  const std::uint16_t domain = trace.lock_handoffs.front().record.domain;
  ASSERT_NE(domain, 0u);
  EXPECT_EQ(trace.lock_domains.at(domain).name, "singleton 'gate'");
}

TEST(SimMachine, ContendingCoresWaitForTheLockAndTheTraceShowsIt) {
  proto::CostModel costs = proto::CostModel::default_model();
  costs.handler = 5000;  // long handlers: two cores ending units together must queue
  proto::SimMachine machine(sim(4, costs));
  const trace::Trace trace = record(machine, "contention", [](ssr::Context& ctx) { fan_out(ctx, 16, 100); });
  ASSERT_FALSE(trace.lock_handoffs.empty());
  std::size_t waited_units = 0;
  for (const trace::Unit& unit : trace.units) {
    if (unit.record.locked > unit.record.end) ++waited_units;
  }
  EXPECT_GT(waited_units, 0u);
  for (const auto& handoff : trace.lock_handoffs) {
    EXPECT_NE(handoff.core, handoff.record.from);
    EXPECT_LT(handoff.record.waited, handoff.record.acquired);
  }
}

TEST(SimMachine, ThousandAndTwentyFourCoresRun) {
  proto::SimMachine machine(sim(1024));
  const trace::Trace trace = record(machine, "big", [](ssr::Context& ctx) { fan_out(ctx, 2048, 10000); });
  EXPECT_EQ(trace.core_count, 1024u);
  std::vector<bool> used(1024, false);
  for (const trace::Unit& unit : trace.units) used[unit.core] = true;
  EXPECT_EQ(std::count(used.begin(), used.end(), true), 1024);
}

TEST(SimMachine, GroupedTopologyIsWrittenLikeHwlocs) {
  proto::SimMachine machine(proto::SimConfig{.topology = proto::SimTopology::parse("sim:4x10")});
  EXPECT_EQ(machine.core_count(), 40u);
  EXPECT_EQ(machine.describe_core(12), "virtual core 12 (socket 1)");
  const trace::Trace trace = record(machine, "grouped", [](ssr::Context& ctx) { fan_out(ctx, 40, 10); });
  EXPECT_EQ(trace.metadata.at("machine"), "sim:4x10");
  EXPECT_EQ(trace.metadata.at("topology"), "packages:4 cores:40 pus:40");
}

TEST(SimMachine, MeasuredWorkScalesHostTime) {
  proto::SimConfig config = sim(2);
  config.work = proto::SimWork::measured;
  config.factor = 1000.0;
  proto::SimMachine machine(config);
  within(kRunLimit, "measured", [&] {
    ssr::run(machine, [](ssr::Context&) {
      volatile double x = 0;
      for (int i = 0; i < 200000; ++i) x = x + 1.0;  // well over a microsecond of host time
    });
  });
  EXPECT_GT(machine.makespan(), 1'000'000u);  // >1 us host time x 1000 at 1 GHz
}

TEST(SimTopology, BadSpecsAreRefusedByName) {
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"sim:0", "at least 1"},         {"sim:abc", "'abc' is not a whole number"},
      {"sim:", "is not a whole number"}, {"sim:4x", "cores per socket '' is not"},
      {"sim:x4", "socket count '' is not"}, {"sim:5000", "more than 4096"},
      {"sim:-3", "is not a whole number"}, {"real:2", "expected sim:N or sim:SxC"}};
  for (const auto& [spec, message] : bad) {
    try {
      (void)proto::SimTopology::parse(spec);
      ADD_FAILURE() << spec << " was accepted";
    } catch (const proto::ConfigError& error) {
      EXPECT_NE(std::string(error.what()).find(message), std::string::npos)
          << spec << ": " << error.what();
    }
  }
  EXPECT_EQ(proto::SimTopology::parse("sim:40").text(), "sim:40");
  EXPECT_EQ(proto::SimTopology::parse("sim:4x10").cores(), 40u);
}

// Each unit's declared work is recorded beside its span (trace format 3.1), on a simulated
// machine as on real cores (CLI test apps.calibrate.fit.matmul fits from a real run's).
TEST(SimMachine, TheTraceKeepsEachUnitsDeclaredWork) {
  proto::SimMachine machine(sim(2));
  const trace::Trace trace = record(machine, "declared", [](ssr::Context& ctx) {
    ctx.charge_work(300);
    ctx.charge_work(45);
    ctx.create_vp([](ssr::Context& me) { me.charge_work(1000); }, {.name = "child", .core = 1});
  });
  std::vector<std::uint64_t> declared;
  for (const trace::Unit& unit : trace.units) declared.push_back(unit.declared);
  std::sort(declared.begin(), declared.end());
  EXPECT_EQ(declared, (std::vector<std::uint64_t>{0, 345, 1000}));
}

// The known workload again, with a wake-up in two parts: core 1 went idle at 4 and its child is
// ready at 162, after 158 ticks of idling. With a spin longer than that it is woken in `wake` (7);
// with a shorter one it has parked and takes `wake.parked` (300). The run's end wakes core 0,
// idle since 276, the same way.
TEST(SimMachine, AnIdleCoreIsWokenCheaplyWhileItSpinsAndDearlyOnceParked) {
  for (const std::uint64_t spin : {100'000u, 100u}) {
    proto::CostModel costs{.clock_hz = 1e9, .switch_ticks = 5, .communication = 3, .communications = {}, .lock = 2, .lock_handoff = 0,
                           .assigner = 4, .wake = 7, .wake_parked = 300, .idle_spin = spin, .handler = 10,
                           .handlers = {{"create_vp", 100}, {"end_vp", 20}}, .work = {}, .omp = {}};
    proto::SimMachine machine(sim(2, costs));
    within(kRunLimit, "two-part wake", [&] {
      ssr::run(machine, [](ssr::Context& ctx) {
        ctx.charge_work(50);
        ctx.create_vp([](ssr::Context& me) { me.charge_work(1000); }, {.name = "child", .core = 1});
        ctx.charge_work(70);
      }, ssr::RunOptions{.seed_core = 0});
    });
    // Core 1 went idle at 4 (SSR's assigner takes no lock) and the child is ready at 162.
    // Spinning: core 1 looks at 169, ends at 169 + 4 + 5 + 1000 + 3 + 2 + 20 = 1203, and core 0
    // is woken to stop at 1210. Parked: core 1 looks at 462, ends at 1496, core 0 stops at 1796.
    EXPECT_EQ(machine.makespan(), spin > 1000 ? 1210u : 1796u) << "idle_spin " << spin;
  }
}

// Two units of 1000 ticks start together on two cores whose work stretches by half per other
// busy core: each advances at 1 / 1.5 while both run, so both end at 1500, not 1000.
TEST(SimMachine, BusyCoresStretchEachOthersWork) {
  for (const double stretch : {0.0, 0.5}) {
    proto::CostModel costs{.clock_hz = 1e9, .switch_ticks = 0, .communication = 0, .communications = {}, .lock = 0, .lock_handoff = 0,
                           .assigner = 0, .wake = 0, .wake_parked = 0, .idle_spin = 0, .handler = 0, .handlers = {}, .work = {}, .omp = {}};
    costs.work.stretch_socket = stretch;
    proto::SimMachine machine(sim(2, costs));
    within(kRunLimit, "stretch", [&] {
      ssr::run(machine, [](ssr::Context& ctx) {
        ctx.create_vp([](ssr::Context& me) { me.charge_work(1000); }, {.name = "child", .core = 1});
        ctx.charge_work(1000);
      }, ssr::RunOptions{.seed_core = 0});
    });
    EXPECT_EQ(machine.makespan(), stretch == 0 ? 1000u : 1500u) << "stretch " << stretch;
  }
}

// The same work on the two cores of sim:2 with a speed spread of 0.2: core 0 takes the upper
// quartile of the normal distribution (1 + 0.2 x 0.6745), core 1 the lower; a rate scales both.
TEST(SimMachine, CoresSpreadInSpeedAndDeclaredWorkHasARate) {
  proto::CostModel costs{.clock_hz = 1e9, .switch_ticks = 0, .communication = 0, .communications = {}, .lock = 0, .lock_handoff = 0,
                         .assigner = 0, .wake = 0, .wake_parked = 0, .idle_spin = 0, .handler = 0, .handlers = {}, .work = {}, .omp = {}};
  costs.work.core_spread = 0.2;
  costs.work.rate = 2.0;
  for (const CoreId core : {CoreId{0}, CoreId{1}}) {
    proto::SimMachine machine(sim(2, costs));
    within(kRunLimit, "spread", [&] {
      ssr::run(machine, [](ssr::Context& ctx) { ctx.charge_work(10000); }, ssr::RunOptions{.seed_core = core});
    });
    const double expected = 20000 * (core == 0 ? 1 + 0.2 * 0.6744897 : 1 - 0.2 * 0.6744897);
    EXPECT_NEAR(static_cast<double>(machine.makespan()), expected, 1.0) << "core " << core;
  }
}

TEST(CostModel, ParsesItsOwnTextAndNamesBadLines) {
  proto::CostModel model = proto::CostModel::default_model();
  model.handlers["singleton end"] = 77;
  model.work.rate = 1.75;
  model.work.site_rates["apps/matmul/matmul.cpp:102"] = 13.5;
  model.work.stretch_socket = 0.03;
  model.work.core_spread = 0.17;
  model.lock_contended = 91;
  model.omp = proto::CostModel::OpenMpTasks{64, 94, 97, 126};
  const proto::CostModel again = proto::CostModel::parse(model.text(), "text");
  EXPECT_EQ(again.text(), model.text());
  EXPECT_EQ(again.lock_contended, 91u);
  EXPECT_EQ(again.handler_cost("singleton end"), 77u);
  EXPECT_DOUBLE_EQ(again.work.rate_at("apps/matmul/matmul.cpp:102"), 13.5);
  EXPECT_DOUBLE_EQ(again.work.rate_at("apps/matmul/matmul.cpp:111"), 1.75);
  EXPECT_DOUBLE_EQ(again.work.stretch_socket, 0.03);
  EXPECT_DOUBLE_EQ(again.work.core_spread, 0.17);
  ASSERT_TRUE(again.omp.has_value());
  EXPECT_EQ(again.omp->create, 64u);
  EXPECT_EQ(again.omp->create_dep, 94u);
  EXPECT_EQ(again.omp->end, 97u);
  EXPECT_EQ(again.omp->end_dep, 126u);
  // A model without work lines says so by omitting them (models written before them read back),
  // and so does one without libomp's figures (the compiled-in model has none).
  EXPECT_EQ(proto::CostModel::default_model().text().find("work_rate"), std::string::npos);
  EXPECT_EQ(proto::CostModel::default_model().text().find("omp."), std::string::npos);
  EXPECT_FALSE(proto::CostModel::parse("lock = 3", "m").omp.has_value());
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"switch 5", "m:1: expected 'key = value'"},
      {"# ok\nlock = -1", "m:2: lock: '-1' is not a whole number"},
      {"lock.contended = much", "m:1: lock.contended: 'much' is not a whole number"},
      {"frobnicate = 3", "m:1: unknown key 'frobnicate'"},
      {"clock_hz = 0", "m:1: clock_hz: '0' is not a positive number"},
      {"\n\nassigner = 12x", "m:3: assigner: '12x'"},
      {"= 4", "m:1: a key is missing"},
      {"work_rate = 0", "m:1: work_rate: '0' is not a positive number"},
      {"stretch.socket = -0.1", "m:1: stretch.socket: '-0.1' is not a non-negative number"},
      {"core_spread = lots", "m:1: core_spread: 'lots'"},
      {"work_rate.a.cpp:3 = x", "m:1: work_rate.a.cpp:3: 'x'"},
      {"omp.task_start = 5", "m:1: unknown key 'omp.task_start' (the omp.* lines are omp.task_create"},
      {"omp.task_create = 5\nomp.task_end = 6", "m:1: omp.task_create_dep missing: the omp.* lines come four together"},
      {"omp.task_end = fast", "m:1: omp.task_end: 'fast' is not a whole number"}};
  for (const auto& [text, message] : bad) {
    try {
      (void)proto::CostModel::parse(text, "m");
      ADD_FAILURE() << text << " was accepted";
    } catch (const proto::ConfigError& error) {
      EXPECT_NE(std::string(error.what()).find(message), std::string::npos) << error.what();
    }
  }
  EXPECT_THROW((void)proto::CostModel::load("/nonexistent/model.txt"), proto::ConfigError);
}

}  // namespace
}  // namespace moirai::test

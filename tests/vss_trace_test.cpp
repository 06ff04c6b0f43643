// A recorded VSs run reads back as the language "VSs" with its construct names, one constraint
// per dependence (of its kind), one per submission and one per taskwait, and a group per
// taskwait.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "moirai/instrument/trace_recorder.h"
#include "moirai/proto_runtime/sim_machine.h"
#include "moirai/trace/reader.h"
#include "moirai/vss/vss.h"
#include "support/test_support.h"
#include "support/vss_support.h"

namespace moirai::test {
namespace {

using vss::Context;
using vss::in;
using vss::out;

// all_submitted: the seed submitted every task. W waits for it on 2 real cores, so that every
// dependence is there to record (one on an ended task is none), however late a loaded machine
// runs the seed; on 1 core W cannot start before the seed's taskwait, and on sim:40 its
// declared work keeps it running in virtual time.
std::atomic<bool> all_submitted{false};

// W writes x; R0 and R1 read it; W2 overwrites it (after both readers); W3 overwrites it again.
void program(Context& ctx) {
  static int x = 0;
  all_submitted.store(false);
  ctx.submit([](Context& me) {
    me.charge_work(100'000);
    if (me.core_count() == 2) {
      while (!all_submitted.load()) {
      }
    }
    x = 1;
  }, {out(x, "x")}, {.name = "W"});
  for (int r = 0; r < 2; ++r) {
    ctx.submit([](Context& me) { me.charge_work(50'000); }, {in(x, "x")},
               {.name = "R" + std::to_string(r)});
  }
  ctx.submit([](Context& me) { me.charge_work(10'000); x = 2; }, {out(x, "x")}, {.name = "W2"});
  ctx.submit([](Context& me) { me.charge_work(10'000); x = 3; }, {out(x, "x")}, {.name = "W3"});
  all_submitted.store(true);
  ctx.taskwait();
}

trace::Trace record(std::size_t cores) {
  const std::string path = ::testing::TempDir() + "moirai_vss_trace_" +
                           std::to_string(cores) + "_" + std::to_string(::getpid()) + ".mtrace";
  {
    instrument::TraceRecorder recorder({path, {}, "vss_trace_test", 4096});
    within(kRunLimit, "recorded vss::run", [&] {
      if (cores == kSimulatedCores) {
        proto::SimMachine machine(proto::SimConfig{.topology = {1, cores}});
        return vss::run(machine, program, {.observer = &recorder});
      }
      return vss::run(program, {.cores = cores, .observer = &recorder});
    });
    recorder.finish();
  }
  trace::Trace trace = trace::read_trace(path);
  std::remove(path.c_str());
  return trace;
}

class VssTrace : public CoreCountTest {};

TEST_P(VssTrace, ReadsBackAsVssWithOneConstraintPerDependence) {
  const trace::Trace trace = record(cores());
  ASSERT_TRUE(trace.complete) << trace.cut;
  EXPECT_EQ(trace.metadata.at("language"), "VSs");
  const std::vector<std::string> names = {"end",      "submit",      "dep RAW",        "dep WAR",
                                          "dep WAW",  "taskwait",    "taskwait_on",
                                          "register_blocks"};
  EXPECT_EQ(trace.constructs, names);

  std::map<std::string, std::size_t> by_construct;
  for (const trace::ConstraintRecord& c : trace.constraints) ++by_construct[trace.construct_name(c.construct)];
  EXPECT_EQ(by_construct["submit"], 5u);
  EXPECT_EQ(by_construct["dep RAW"], 2u);  // W -> R0, W -> R1
  EXPECT_EQ(by_construct["dep WAR"], 2u);  // R0 -> W2, R1 -> W2
  EXPECT_EQ(by_construct["dep WAW"], 1u);  // W2 -> W3
  EXPECT_LE(by_construct["taskwait"], 1u);
  EXPECT_EQ(by_construct["taskwait_on"], 0u);

  // Every constraint joins units the trace has, the freeing one ending before the freed begins.
  std::map<std::uint64_t, const trace::Unit*> units;
  for (const trace::Unit& unit : trace.units) units[unit.record.unit] = &unit;
  for (const trace::ConstraintRecord& c : trace.constraints) {
    ASSERT_TRUE(units.count(c.from) && units.count(c.to)) << trace.construct_name(c.construct);
    EXPECT_LE(units[c.from]->record.end, units[c.to]->record.begin) << trace.construct_name(c.construct);
  }
  // Six tasks (the seed included), each a VP named as submitted.
  std::map<std::uint64_t, std::string> by_id;
  for (const trace::Trace::Vp& vp : trace.vps) by_id[vp.id] = vp.name;
  std::vector<std::string> vps;
  for (const auto& [id, name] : by_id) vps.push_back(name);
  EXPECT_EQ(vps, (std::vector<std::string>{"main", "W", "R0", "R1", "W2", "W3"}));
}

// On the simulated machine the seed surely waits in its taskwait: its group is in the trace.
TEST(VssTraceSim, TheTaskwaitIsAGroupOfTheUnitsItWaitedFor) {
  const trace::Trace trace = record(kSimulatedCores);
  ASSERT_EQ(trace.groups.size(), 1u);
  EXPECT_EQ(trace.groups[0].name, "taskwait in 'main'");
  EXPECT_EQ(trace.construct_name(trace.groups[0].construct), "taskwait");
  std::size_t sources = 0;
  std::size_t sinks = 0;
  for (const trace::Trace::Member& member : trace.group_members) {
    (member.record.role == kGroupSource ? sources : sinks) += 1;
  }
  EXPECT_GE(sources, 1u);
  EXPECT_EQ(sinks, 1u);
  std::size_t taskwaits = 0;
  for (const trace::ConstraintRecord& c : trace.constraints) {
    taskwaits += trace.construct_name(c.construct) == "taskwait" ? 1 : 0;
  }
  EXPECT_EQ(taskwaits, 1u);
}

MOIRAI_INSTANTIATE_MACHINES(VssTrace);

}  // namespace
}  // namespace moirai::test

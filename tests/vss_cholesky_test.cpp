// The tiled Cholesky app on a simulated machine, recorded and read back: its tasks are the known
// counts of potrf, trsm, syrk and gemm, its dependence constraints are exactly the edges of the
// known task graph of the algorithm, and the critical path of the recorded run is the graph's
// longest chain: 3T - 2 tasks for T x T tiles.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "cholesky.h"
#include "moirai/instrument/trace_recorder.h"
#include "moirai/proto_runtime/sim_machine.h"
#include "moirai/trace/reader.h"
#include "moirai/visualize/analyses/report.h"
#include "moirai/visualize/model/unit_graph.h"
#include "support/cholesky_graph.h"
#include "support/test_support.h"

namespace moirai::test {
namespace {

// kTaskWork is what every task declares (uniform_work), far more than submitting every task
// takes the seed in virtual time, so each dependence is still pending when it is declared.
constexpr std::uint64_t kTaskWork = 10'000'000;


class VssCholesky : public ::testing::TestWithParam<std::size_t> {};

TEST_P(VssCholesky, RecordedRunMatchesTheKnownTaskGraph) {
  const std::size_t t = GetParam();
  const std::string path = ::testing::TempDir() + "moirai_vss_cholesky_" + std::to_string(t) +
                           "_" + std::to_string(::getpid()) + ".mtrace";
  cholesky::CholeskyResult result;
  {
    instrument::TraceRecorder recorder({path, {}, "vss_cholesky_test", 64 * 1024});
    cholesky::CholeskyConfig config;
    config.tiles = t;
    config.tile_size = 4;
    config.check = true;
    config.observer = &recorder;
    config.uniform_work = kTaskWork;
    result = within(kRunLimit, "cholesky on sim:8", [&] {
      proto::SimMachine machine(proto::SimConfig{.topology = {1, 8}});
      return cholesky::run_cholesky(machine, config);
    });
    recorder.finish();
  }
  const trace::Trace trace = trace::read_trace(path);
  std::remove(path.c_str());
  ASSERT_TRUE(trace.complete) << trace.cut;
  EXPECT_TRUE(result.check_passed);
  EXPECT_EQ(trace.metadata.at("language"), "VSs");

  // Tasks: the known counts, each a VP of the trace named after its kernel and tiles.
  const cholesky::TaskCounts expected = cholesky::expected_tasks(t);
  EXPECT_EQ(expected.potrf, t);
  EXPECT_EQ(expected.trsm, t * (t - 1) / 2);
  EXPECT_EQ(expected.syrk, t * (t - 1) / 2);
  EXPECT_EQ(expected.gemm, t * (t - 1) * (t - 2) / 6);
  EXPECT_EQ(result.tasks, expected);
  const KnownGraph graph(t);
  ASSERT_EQ(graph.tasks.size(), expected.total());
  std::map<std::uint64_t, std::string> vp_name;
  for (const trace::Trace::Vp& vp : trace.vps) vp_name[vp.id] = vp.name;
  ASSERT_EQ(vp_name.size(), expected.total() + 1) << "the tasks and the seed";
  std::set<std::string> names;
  for (const auto& [id, vp] : vp_name) names.insert(vp);
  for (const std::string& task : graph.tasks) EXPECT_TRUE(names.count(task)) << task;

  // Dependences: one constraint per edge of the known graph, all read after write.
  std::map<std::uint64_t, std::string> unit_task;
  for (const trace::Unit& unit : trace.units) unit_task[unit.record.unit] = vp_name[unit.record.vp];
  std::set<std::pair<std::string, std::string>> recorded;
  std::size_t dependences = 0;
  std::size_t submits = 0;
  for (const trace::ConstraintRecord& c : trace.constraints) {
    const std::string kind = trace.construct_name(c.construct);
    if (kind == "submit") ++submits;
    if (kind.rfind("dep ", 0) != 0) continue;
    ++dependences;
    EXPECT_EQ(kind, "dep RAW") << unit_task[c.from] << " -> " << unit_task[c.to];
    recorded.insert({unit_task[c.from], unit_task[c.to]});
  }
  EXPECT_EQ(dependences, graph.edges.size());
  EXPECT_EQ(recorded, graph.edges);
  EXPECT_EQ(submits, expected.total());

  // The critical path of the run is the graph's longest chain of tasks.
  const std::size_t chain = graph.longest_chain();
  EXPECT_EQ(chain, 3 * t - 2);
  const visualize::UnitGraph units = visualize::build_unit_graph(trace);
  const visualize::CriticalPath path_found = visualize::critical_path(units, trace);
  EXPECT_EQ(path_found.work, chain * kTaskWork);
  std::size_t task_units = 0;
  for (const std::uint32_t node : path_found.nodes) task_units += units.nodes[node].work() > 0 ? 1 : 0;
  EXPECT_EQ(task_units, chain);
  EXPECT_EQ(path_found.total_work, expected.total() * kTaskWork);
}

INSTANTIATE_TEST_SUITE_P(Tiles, VssCholesky, ::testing::Values(2, 3, 4, 6),
                         [](const ::testing::TestParamInfo<std::size_t>& tiles) {
                           return std::to_string(tiles.param) + "x" + std::to_string(tiles.param);
                         });

// The report reads a VSs run as it reads SSR's: Cholesky's DAG on 16 simulated cores allows about
// 8-way parallelism (8 x 8 tiles, the kernels' declared work), so the first hint is the critical
// path, naming gemm's call site, the chain's most frequent long task. Tiles of 64 give tasks of
// 0.1-0.3 ms, well above the fitted runtime costs (tiles of 16 were all overhead: a parked core
// alone takes 43 us to wake).
TEST(VssCholeskyReport, ADagNarrowerThanTheMachineIsCriticalPathBound) {
  const std::string path = ::testing::TempDir() + "moirai_vss_cholesky_report_" + std::to_string(::getpid()) + ".mtrace";
  {
    instrument::TraceRecorder recorder({path, {}, "vss_cholesky_test", 64 * 1024});
    cholesky::CholeskyConfig config;
    config.tiles = 8;
    config.tile_size = 64;
    config.observer = &recorder;
    within(kRunLimit, "cholesky on sim:16", [&] {
      proto::SimMachine machine(proto::SimConfig{.topology = {1, 16}});
      return cholesky::run_cholesky(machine, config);
    });
    recorder.finish();
  }
  const trace::Trace trace = trace::read_trace(path);
  std::remove(path.c_str());
  const visualize::Report report = visualize::build_report(trace);
  ASSERT_FALSE(report.hints.empty());
  const visualize::Hint& first = report.hints.front();
  EXPECT_EQ(first.rule, "critical-path") << first.message;
  EXPECT_NE(first.site.find("apps/cholesky/cholesky.cpp:"), std::string::npos) << first.site;
  EXPECT_NE(first.message.find("cannot be used whatever the placement"), std::string::npos) << first.message;
}

}  // namespace
}  // namespace moirai::test

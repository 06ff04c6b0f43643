// The unit graph and its critical path against hand-built traces worked out by hand
// (support/known_traces.h), and against a trace the runtime recorded.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "moirai/trace/reader.h"
#include "moirai/visualize/analyses/report.h"
#include "moirai/visualize/model/unit_graph.h"
#include "support/known_traces.h"

namespace {

using namespace moirai;
using visualize::ArcKind;

std::vector<std::uint64_t> units_of(const visualize::UnitGraph& graph, const std::vector<std::uint32_t>& nodes) {
  std::vector<std::uint64_t> units;
  for (std::uint32_t n : nodes) units.push_back(graph.nodes[n].unit);
  return units;
}

TEST(UnitGraph, RendezvousRunHasItsArcsAndCriticalPath) {
  const trace::Trace trace = test_support::read_written(test_support::write_rendezvous_trace, "rendezvous");
  const visualize::UnitGraph graph = visualize::build_unit_graph(trace);
  ASSERT_EQ(graph.nodes.size(), 5u);
  EXPECT_EQ(graph.makespan, 520u);
  EXPECT_EQ(graph.unresolved, 0u);
  EXPECT_EQ(graph.arc_count(ArcKind::constraint), 3u);
  EXPECT_EQ(graph.arc_count(ArcKind::same_vp), 3u);   // u1 -> u2 -> u4, u3 -> u5
  EXPECT_EQ(graph.arc_count(ArcKind::same_core), 3u); // core 0: u1 u2 u4, core 1: u3 u5
  ASSERT_EQ(graph.arc_count(ArcKind::lock_handoff), 1u);
  for (const visualize::UnitArc& arc : graph.arcs) {
    if (arc.kind == ArcKind::lock_handoff) {
      EXPECT_EQ(graph.nodes[arc.from].unit, 5u);  // released on core 1 during u5
      EXPECT_EQ(graph.nodes[arc.to].unit, 4u);    // waited for on core 0 by u4
    }
    if (arc.kind == ArcKind::constraint && arc.construct >= 2) {  // both crossing arcs
      EXPECT_EQ(arc.match, 1u);
    }
    if (arc.kind != ArcKind::lock_handoff) {  // time order is topological
      EXPECT_LT(arc.from, arc.to);
    }
  }
  // Work and overhead stay apart on each node.
  const visualize::UnitNode& u4 = graph.nodes[graph.node_of(4)];
  EXPECT_EQ(u4.work(), 50u);
  EXPECT_EQ(u4.overhead(), 20u);
  EXPECT_EQ(graph.node_of(99), UINT32_MAX);

  const visualize::CriticalPath path = visualize::critical_path(graph, trace);
  EXPECT_EQ(units_of(graph, path.nodes), (std::vector<std::uint64_t>{1, 3, 4}));
  ASSERT_EQ(path.arcs.size(), 2u);
  EXPECT_EQ(path.work, 450u);
  EXPECT_EQ(path.cycles, 510u);
  EXPECT_EQ(path.total_work, 660u);
  EXPECT_EQ(path.makespan, 520u);
  EXPECT_DOUBLE_EQ(path.parallelism, 660.0 / 450.0);
  EXPECT_EQ(path.arcs_by_kind, (std::map<std::string, std::uint64_t>{{"create_vp", 1}, {"send_from_to", 1}}));
}

TEST(UnitGraph, TypedSendRunHasItsDepthsAndCriticalPath) {
  const trace::Trace trace = test_support::read_written([](const std::string& p) { test_support::write_typed_send_trace(p); }, "typed");
  const visualize::UnitGraph graph = visualize::build_unit_graph(trace);
  ASSERT_EQ(graph.nodes.size(), 9u);
  const visualize::CriticalPath path = visualize::critical_path(graph, trace);
  EXPECT_EQ(units_of(graph, path.nodes), (std::vector<std::uint64_t>{1, 3, 4, 9}));
  EXPECT_EQ(path.work, 270u);
  EXPECT_DOUBLE_EQ(path.parallelism, 410.0 / 270.0);
  EXPECT_EQ(path.arcs_by_kind,
            (std::map<std::string, std::uint64_t>{{"create_vp", 1}, {"same VP", 1}, {"send_of_type_to", 1}}));
  // Depth in units: the row just below the deepest unit constraining it.
  const visualize::LongestPaths rows =
      visualize::longest_paths(graph, std::vector<std::uint64_t>(graph.nodes.size(), 1));
  const std::map<std::uint64_t, std::uint64_t> expected = {{1, 0}, {2, 1}, {3, 1}, {4, 2}, {5, 2},
                                                           {6, 3}, {7, 3}, {8, 4}, {9, 4}};
  for (const auto& [unit, row] : expected) EXPECT_EQ(rows.start[graph.node_of(unit)], row) << "unit " << unit;
}

TEST(UnitGraph, ConstraintArcsPerKindEqualTheRecordedConstraints) {
  const trace::Trace trace =
      trace::read_trace(std::string(MOIRAI_SOURCE_DIR) + "/tests/fuzz/corpus/trace_reader/singleton_counters.mtrace");
  const visualize::UnitGraph graph = visualize::build_unit_graph(trace);
  EXPECT_EQ(graph.unresolved, 0u);
  std::map<std::uint16_t, std::size_t> recorded, drawn;
  for (const trace::ConstraintRecord& c : trace.constraints) ++recorded[c.construct];
  for (const visualize::UnitArc& arc : graph.arcs) {
    if (arc.kind == ArcKind::constraint) ++drawn[arc.construct];
  }
  EXPECT_EQ(drawn, recorded);
  // Same-core arcs: every core's units less one; same-VP arcs: every VP's units less one.
  std::map<std::uint32_t, std::size_t> per_core;
  std::map<std::uint64_t, std::size_t> per_vp;
  for (const trace::Unit& unit : trace.units) {
    ++per_core[unit.core];
    ++per_vp[unit.record.vp];
  }
  EXPECT_EQ(graph.arc_count(ArcKind::same_core), trace.units.size() - per_core.size());
  EXPECT_EQ(graph.arc_count(ArcKind::same_vp), trace.units.size() - per_vp.size());
  const visualize::CriticalPath path = visualize::critical_path(graph, trace);
  EXPECT_LE(path.work, path.cycles);
  EXPECT_LE(path.cycles, path.makespan);
  EXPECT_GE(path.parallelism, 1.0);
}

// Unit and VP ids far apart take the sorted-table path instead of the dense one.
TEST(UnitGraph, SparseIdsResolveToo) {
  constexpr std::uint64_t kFar = 1'000'000'000'000;
  const trace::Trace trace = test_support::read_written(
      [](const std::string& p) {
        test_support::TraceBuilder b(1);
        b.unit(0, 5, 7, 0, 1, 11, 12, 1, 1);
        b.constraint(0, 1, 5, kFar, 11);
        b.unit(0, kFar, kFar, 12, 13, 33, 34, 0, 1);
        b.write(p);
      },
      "sparse");
  const visualize::UnitGraph graph = visualize::build_unit_graph(trace);
  EXPECT_TRUE(graph.dense_node.empty());
  EXPECT_EQ(graph.node_of(kFar), 1u);
  EXPECT_EQ(graph.node_of(6), UINT32_MAX);
  EXPECT_EQ(graph.arc_count(ArcKind::constraint), 1u);
  EXPECT_EQ(graph.arc_count(ArcKind::same_vp), 0u);
  const visualize::CriticalPath path = visualize::critical_path(graph, trace);
  EXPECT_EQ(path.work, 30u);
  EXPECT_EQ(path.nodes.size(), 2u);
}

TEST(UnitGraph, EmptyTraceHasNoPath) {
  const trace::Trace trace = test_support::read_written([](const std::string& p) { test_support::TraceBuilder(1).write(p); }, "empty");
  const visualize::UnitGraph graph = visualize::build_unit_graph(trace);
  EXPECT_TRUE(graph.nodes.empty());
  const visualize::CriticalPath path = visualize::critical_path(graph, trace);
  EXPECT_TRUE(path.nodes.empty());
  EXPECT_EQ(path.parallelism, 0.0);
}

// The report's critical-path block carries the same numbers, in text and JSON.
TEST(UnitGraph, ReportStatesTheCriticalPath) {
  const trace::Trace trace = test_support::read_written(test_support::write_rendezvous_trace, "report");
  const visualize::Report report = visualize::build_report(trace);
  EXPECT_EQ(report.critical_path_work, 450u);
  EXPECT_EQ(report.critical_path_cycles, 510u);
  EXPECT_EQ(report.critical_path_units, 3u);
  EXPECT_DOUBLE_EQ(report.critical_path_share, 450.0 / 520.0);
  EXPECT_DOUBLE_EQ(report.parallelism, 660.0 / 450.0);
  EXPECT_EQ(report.critical_path_arcs, (std::map<std::string, std::uint64_t>{{"create_vp", 1}, {"send_from_to", 1}}));
  std::ostringstream text, json;
  visualize::print_report(text, trace, report);
  visualize::print_report_json(json, trace, report);
  EXPECT_NE(text.str().find("critical path: 0.000 ms of work (86.5% of the makespan), 0.001 ms with overhead, 3 units; parallelism 1.47"),
            std::string::npos) << text.str();
  EXPECT_NE(text.str().find("its arcs: create_vp: 1 send_from_to: 1"), std::string::npos) << text.str();
  EXPECT_EQ(nlohmann::json::parse(json.str())["critical_path"],
            nlohmann::json::parse(R"({"work_s":450e-9,"cycles_s":510e-9,"units":3,"share_of_makespan":0.865385,"parallelism":1.466667,)"
                                  R"("arcs":{"create_vp":1,"send_from_to":1}})"))
      << json.str();
}

}  // namespace

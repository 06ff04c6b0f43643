// Every OpenMP construct the OMPT tool records, in known numbers (tests/omp/omp_constructs.cpp):
// each becomes the unit boundaries and the constraints docs/openmp.md says, the units of each
// core tile its time, and what the trace cannot hold (nested teams' extra threads, an undeferred
// task) is counted in it rather than lost silently.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "moirai/trace/reader.h"
#include "support/openmp_run.h"

namespace moirai::test {
namespace {

TEST(OmpConstructs, EachConstructBecomesItsBoundariesAndConstraints) {
  const trace::Trace trace = record_openmp({MOIRAI_OMP_CONSTRUCTS}, "constructs");
  ASSERT_TRUE(trace.complete) << trace.cut;
  std::map<std::string, std::size_t> ended_by, constraints;
  std::map<std::uint64_t, const trace::Unit*> unit;
  for (const trace::Unit& u : trace.units) {
    ++ended_by[trace.construct_name(u.record.ended_by)];
    unit[u.record.unit] = &u;
  }
  for (const trace::ConstraintRecord& c : trace.constraints) {
    ++constraints[trace.construct_name(c.construct)];
    EXPECT_TRUE(unit.count(c.from) && unit.count(c.to)) << trace.construct_name(c.construct) << " " << c.from << " -> " << c.to;
  }
  // 20 critical sections and 20 lock holds over 2 threads: entering ends a unit, the body is a
  // unit ending where the section is left, and each holder but the first was freed by the last.
  EXPECT_EQ(ended_by["critical"], 20u);
  EXPECT_EQ(ended_by["critical end"], 20u);
  EXPECT_EQ(ended_by["lock"], 20u);
  EXPECT_EQ(ended_by["unlock"], 20u);
  EXPECT_EQ(constraints["critical end"], 19u);
  EXPECT_EQ(constraints["unlock"], 19u);
  for (const trace::ConstraintRecord& c : trace.constraints) {
    const std::string kind = trace.construct_name(c.construct);
    if (kind != "critical end" && kind != "unlock") continue;
    EXPECT_EQ(trace.construct_name(unit.at(c.from)->record.ended_by), kind) << "freed by a unit that left the section";
    EXPECT_EQ(trace.construct_name(unit.at(c.to)->record.ended_by), kind) << "frees the unit that runs the section";
  }
  // Seven tasks (four in a taskgroup, an undeferred one, a detached one and the one fulfilling
  // it), each created once; one taskgroup end and one taskwait, each freed by a finished task.
  EXPECT_EQ(constraints["task"], 7u);
  EXPECT_EQ(ended_by["task"], 7u);
  EXPECT_EQ(constraints["taskgroup"], 1u);
  EXPECT_EQ(constraints["taskwait"], 1u);
  // Two parallel regions of two threads, then two nested ones whose masters are recorded cores.
  EXPECT_EQ(constraints["parallel"], 6u);
  EXPECT_GE(constraints["barrier"], 4u);
  EXPECT_GE(ended_by["loop chunk"], 1u);
  EXPECT_GE(std::stoi(trace.metadata.at("omp_unrecorded_threads")), 1) << "the nested teams' second threads";
  EXPECT_EQ(trace.metadata.at("omp_undeferred_tasks"), "1");
  EXPECT_GE(std::stoi(trace.metadata.at("omp_task_switches")), 1) << "the undeferred task (and the taskyield, when a task was ready)";
  // What OMPT cannot show is said in the trace (docs/openmp.md lists the same).
  const std::string& limits = trace.metadata.at("ompt_limits");
  for (const char* limit : {"undeferred", "untied", "barrier", "after a callback returns", "runtime's start"}) {
    EXPECT_NE(limits.find(limit), std::string::npos) << limit << " not in: " << limits;
  }
  // The units of a core tile its time: each begins after the one before it ended.
  std::map<std::uint32_t, std::vector<const trace::Unit*>> by_core;
  for (const trace::Unit& u : trace.units) by_core[u.core].push_back(&u);
  for (auto& [core, units] : by_core) {
    for (std::size_t i = 1; i < units.size(); ++i) {
      EXPECT_LE(units[i - 1]->record.handler_end, units[i]->record.assign) << "core " << core << " unit " << units[i]->record.unit;
      EXPECT_LE(units[i]->record.assign, units[i]->record.begin);
      EXPECT_LE(units[i]->record.begin, units[i]->record.end);
    }
  }
}

}  // namespace
}  // namespace moirai::test

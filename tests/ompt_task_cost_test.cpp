// libomp's work per task, given to the OMPT tool (MOIRAI_OMPT_TASK_COST), is booked out of the
// units that went on after libomp created or completed a task: each such unit gives the estimate
// (or, when it did less work, all its work) to an `estimated` chore at the end of its decision
// span, so that on every core work + the runtime's overhead is still the recorded stretch, and the
// trace says what was estimated and whence (docs/openmp.md, "libomp's own work, estimated").
// Known estimates, given rather than measured, make the booking exact.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "moirai/trace/reader.h"
#include "moirai/visualize/analyses/report.h"
#include "moirai/visualize/analyses/run_summary.h"
#include "support/openmp_run.h"
#include "task_cost.h"

namespace moirai::test {
namespace {

// The estimate given, in ns: four values the test can tell apart.
constexpr double kCreate = 50, kCreateDep = 80, kEnd = 60, kEndDep = 90;
const std::string kCost = "task_create=50,task_create_dep=80,task_end=60,task_end_dep=90";

// Booked is what the tool booked in one trace, by the libomp work a unit went on after.
struct Booked {
  std::size_t creations = 0, completions = 0;  // units that went on after a creation, a completion
  std::size_t unbooked_creations = 0;          // ... that gave nothing (an undeferred task's)
  std::size_t booked_completions = 0;          // ... that gave something
  std::size_t clamped = 0;                     // gave all their work, less than the estimate
  std::uint64_t ticks = 0;
};

// check_booking checks every estimated chore of `trace` and every unit that may carry one, and
// returns what was booked. `with_depend`: the program's tasks have depend clauses.
Booked check_booking(const trace::Trace& trace, bool with_depend) {
  Booked booked;
  const auto ticks = [&](double ns) { return static_cast<std::uint64_t>(std::llround(ns * trace.clock_hz / 1e9)); };
  // The tool converts each figure (a dependence's share apart) as the test does here.
  const std::uint64_t creation = with_depend ? ticks(kCreate) + ticks(kCreateDep - kCreate) : ticks(kCreate);
  const std::uint64_t completion = with_depend ? ticks(kEndDep) : ticks(kEnd);
  // Each core's units in time order, and the estimated chore that ends at each unit's begin.
  std::map<std::uint32_t, std::vector<const trace::Unit*>> by_core;
  for (const trace::Unit& u : trace.units) by_core[u.core].push_back(&u);
  std::map<std::pair<std::uint32_t, std::uint64_t>, const trace::ChoreRecord*> chore_at;  // (core, end)
  for (const trace::Trace::ChoreSpan& chore : trace.chores) {
    EXPECT_EQ(chore.record.chore, static_cast<std::uint16_t>(Chore::estimated)) << "an OpenMP trace's only chore";
    EXPECT_LT(chore.record.begin, chore.record.end) << "a chore of no time is not recorded";
    chore_at[{chore.core, chore.record.end}] = &chore.record;
  }
  std::size_t placed = 0;
  for (auto& [core, units] : by_core) {
    std::sort(units.begin(), units.end(), [](const trace::Unit* a, const trace::Unit* b) { return a->record.assign < b->record.assign; });
    for (std::size_t i = 0; i < units.size(); ++i) {
      const trace::UnitRecord& r = units[i]->record;
      auto chore = chore_at.find({core, r.begin});
      const std::uint64_t given = chore == chore_at.end() ? 0 : chore->second->end - chore->second->begin;
      if (chore != chore_at.end()) {
        ++placed;
        EXPECT_GE(chore->second->begin, r.assign) << "unit " << r.unit << ": the chore lies in its decision span";
      }
      // A unit goes on after libomp's work when it began in the callback that ended the unit before
      // it on its core (no idle between): after a creation, the creator's own next unit; after a
      // completion, the unit of the task the completed one returned to.
      const trace::UnitRecord* before = i > 0 ? &units[i - 1]->record : nullptr;
      const bool adjacent = before != nullptr && before->handler_end == r.assign;
      const std::string ended = before != nullptr ? trace.construct_name(before->ended_by) : "";
      const bool after_creation = adjacent && ended == "task" && before->vp == r.vp;
      const bool after_completion = adjacent && ended == "end" && before->vp != r.vp;
      if (!after_creation && !after_completion) {
        EXPECT_EQ(given, 0u) << "unit " << r.unit << " on core " << core << " did not go on after libomp's work";
        continue;
      }
      const std::uint64_t estimate = after_creation ? creation : completion;
      ++(after_creation ? booked.creations : booked.completions);
      booked.ticks += given;
      // Work + the booked overhead is the recorded stretch: a unit gives the estimate, or all its
      // work when it did less; or nothing, where libomp did no such work (an undeferred task is
      // not queued; a detached task completes when its event is fulfilled).
      EXPECT_LE(given, estimate) << "unit " << r.unit << " on core " << core << " after " << ended;
      if (r.begin == r.end && given < estimate) {
        ++booked.clamped;
      } else if (given == 0) {
        booked.unbooked_creations += after_creation;
      } else {
        EXPECT_EQ(given, estimate) << "unit " << r.unit << " on core " << core << " gave part of the estimate but kept work";
      }
      booked.booked_completions += after_completion && given > 0;
    }
  }
  EXPECT_EQ(placed, trace.chores.size()) << "every estimated chore ends where a unit begins";
  return booked;
}

// check_accounts checks what the trace and the views say of the booking.
void check_accounts(const trace::Trace& trace, const Booked& booked, const std::string& name) {
  // The trace says the estimate, whence it came and what was booked.
  EXPECT_EQ(trace.metadata.at("omp_task_cost"), "task_create=50.0,task_create_dep=80.0,task_end=60.0,task_end_dep=90.0 ns");
  EXPECT_EQ(trace.metadata.at("omp_task_cost_source"), "given by the test");
  EXPECT_NE(trace.metadata.at("ompt_limits").find("estimate"), std::string::npos);
  EXPECT_EQ(trace.metadata.at("estimated_runtime_work"),
            "units=" + std::to_string(trace.chores.size()) + ",ticks=" + std::to_string(booked.ticks) +
                ",clamped=" + std::to_string(booked.clamped))
      << name;
  // On every core the life-line's segments, the estimated work among them, add up to the core's
  // recorded stretch, and the estimate is the runtime's overhead, not work.
  const visualize::RunSummary summary = visualize::summarize(trace);
  std::vector<std::uint64_t> stretch(trace.core_count, 0), chores(trace.core_count, 0);
  for (const trace::Unit& u : trace.units) stretch[u.core] += u.record.handler_end - u.record.assign;
  for (const trace::Span& idle : trace.idle) stretch[idle.core] += idle.end - idle.begin;
  for (const trace::Trace::ChoreSpan& c : trace.chores) chores[c.core] += c.record.end - c.record.begin;
  std::uint64_t all = 0;
  for (std::uint32_t core = 0; core < trace.core_count; ++core) {
    const visualize::CoreTime& c = summary.cores[core];
    EXPECT_EQ(c.total(), stretch[core]) << name << " core " << core << ": work + overhead + idle is the recorded stretch";
    EXPECT_EQ(c.estimated, chores[core]) << name << " core " << core;
    EXPECT_EQ(c.overhead(), c.decision + c.communication + c.constraint_update + c.estimated) << name;
    all += chores[core];
  }
  const visualize::Report report = visualize::build_report(trace);
  EXPECT_EQ(report.overhead.estimated, all) << name << ": the report counts it as the runtime's overhead";
}

// A recursive fib: tasks without depend clauses, each created by a recorded thread.
TEST(OmpTaskCost, FibsUnitsGiveTheEstimateOfEachCreation) {
  const trace::Trace trace = record_openmp({MOIRAI_OMP_FIB, "--n", "12", "--cutoff", "4", "--check"}, "task_cost_fib", 2,
                                           {"MOIRAI_OMPT_TASK_COST=" + kCost, "MOIRAI_OMPT_TASK_COST_SOURCE=given by the test"});
  ASSERT_TRUE(trace.complete) << trace.cut;
  const Booked booked = check_booking(trace, false);
  // fib(12) with cutoff 4: 2 tasks per call above the cutoff, each creator's next unit booked.
  std::size_t tasks = 0;
  for (const trace::Trace::Vp& vp : trace.vps) tasks += vp.name == "task";
  EXPECT_GT(tasks, 0u);
  EXPECT_EQ(booked.creations, tasks);
  EXPECT_EQ(booked.unbooked_creations, 0u);
  check_accounts(trace, booked, "fib");
}

// Tiled Cholesky: every task has depend clauses, which add their share to each creation.
TEST(OmpTaskCost, CholeskysDependencesAddTheirShare) {
  const trace::Trace trace = record_openmp({MOIRAI_OMP_CHOLESKY, "--tiles", "4", "--tile-size", "16", "--check"},
                                           "task_cost_cholesky", 2,
                                           {"MOIRAI_OMPT_TASK_COST=" + kCost, "MOIRAI_OMPT_TASK_COST_SOURCE=given by the test"});
  ASSERT_TRUE(trace.complete) << trace.cut;
  const Booked booked = check_booking(trace, true);
  std::size_t tasks = 0;
  for (const trace::Trace::Vp& vp : trace.vps) tasks += vp.name == "task";
  EXPECT_EQ(tasks, 20u) << "4 x 4 tiles";
  EXPECT_EQ(booked.creations, tasks);
  EXPECT_EQ(booked.unbooked_creations, 0u);
  check_accounts(trace, booked, "cholesky");
}

// An undeferred task (if(0)) runs inside its creator: libomp completes it after the callback, in
// the creator's unit that goes on, which gives the completion's estimate (and no creation's:
// an undeferred task is not queued).
TEST(OmpTaskCost, AnUndeferredTasksCompletionIsBookedInTheCreatorsNextUnit) {
  const trace::Trace trace = record_openmp({MOIRAI_OMP_CONSTRUCTS}, "task_cost_constructs", 2,
                                           {"MOIRAI_OMPT_TASK_COST=" + kCost, "MOIRAI_OMPT_TASK_COST_SOURCE=given by the test"});
  ASSERT_TRUE(trace.complete) << trace.cut;
  const Booked booked = check_booking(trace, false);
  EXPECT_EQ(booked.unbooked_creations, std::stoul(trace.metadata.at("omp_undeferred_tasks"))) << "the if(0) task's";
  EXPECT_GE(booked.booked_completions, 1u) << "the undeferred task's creator went on after its completion";
  check_accounts(trace, booked, "constructs");
}

// The figures' text (MOIRAI_OMPT_TASK_COST, the probe's first line) reads back; text the tool
// could misread is refused, naming what is wrong.
TEST(OmpTaskCost, TheFiguresTextReadsBackAndBadTextIsNamed) {
  const ompt::TaskCost cost = ompt::parse_task_cost(kCost);
  EXPECT_DOUBLE_EQ(cost.create, kCreate);
  EXPECT_DOUBLE_EQ(cost.create_dep, kCreateDep);
  EXPECT_DOUBLE_EQ(cost.end, kEnd);
  EXPECT_DOUBLE_EQ(cost.end_dep, kEndDep);
  EXPECT_EQ(ompt::task_cost_text(cost), "task_create=50.0,task_create_dep=80.0,task_end=60.0,task_end_dep=90.0");
  EXPECT_EQ(ompt::task_cost_text(ompt::parse_task_cost(ompt::task_cost_text(cost))), ompt::task_cost_text(cost));
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"task_create=50,task_create_dep=80,task_end=60", "task_end_dep missing"},
      {"task_create=50,task_create=50,task_create_dep=80,task_end=60,task_end_dep=90", "task_create given twice"},
      {"task_create=fast,task_create_dep=80,task_end=60,task_end_dep=90", "task_create: 'fast' is not a number of ns"},
      {"task_create=-1,task_create_dep=80,task_end=60,task_end_dep=90", "task_create: '-1'"},
      {"task_create=2e6,task_create_dep=80,task_end=60,task_end_dep=90", "from 0 to 1e6"},
      {"task_start=5", "unknown key 'task_start'"},
      {"task_create", "'task_create' in 'task_create' is not key=ns"}};
  for (const auto& [text, message] : bad) {
    try {
      (void)ompt::parse_task_cost(text);
      ADD_FAILURE() << text << " was accepted";
    } catch (const std::invalid_argument& error) {
      EXPECT_NE(std::string(error.what()).find(message), std::string::npos) << error.what();
    }
  }
}

// Without an estimate the units keep libomp's work, and the trace says so.
TEST(OmpTaskCost, WithoutAnEstimateNothingIsBooked) {
  const trace::Trace trace = record_openmp({MOIRAI_OMP_FIB, "--n", "10", "--cutoff", "4"}, "task_cost_none", 2,
                                           {"MOIRAI_OMPT_TASK_COST="});
  ASSERT_TRUE(trace.complete) << trace.cut;
  EXPECT_TRUE(trace.chores.empty());
  EXPECT_EQ(trace.metadata.at("omp_task_cost"), "none");
  EXPECT_EQ(trace.metadata.count("estimated_runtime_work"), 0u);
}

}  // namespace
}  // namespace moirai::test

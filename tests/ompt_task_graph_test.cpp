// OpenMP programs recorded through OMPT (libmoirai_ompt.so in LLVM's libomp) on 2 real threads:
// the recorded units and constraints are the program's known task graph. Tiled Cholesky with
// `depend` clauses has exactly the textbook dependences (its first task waits until every task
// is created, so that each dependence is still pending when the runtime sees it: OMPT reports a
// dependence only on a task that has not finished); a recursive fib with task + taskwait is a
// task tree whose every taskwait is freed by the child that completed last. Taskgroups,
// taskloops and detached tasks (tests/omp/omp_cases.cpp) keep every task's creator and every
// constraint between recorded units.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "moirai/trace/openmp_words.h"
#include "moirai/trace/reader.h"
#include "moirai/visualize/analyses/critical_path.h"
#include "moirai/visualize/model/unit_graph.h"
#include "support/cholesky_graph.h"
#include "support/openmp_run.h"

namespace moirai::test {
namespace {

// TaskView indexes an OpenMP trace by task: each explicit task is a VP named "task".
struct TaskView {
  const trace::Trace& trace;
  std::map<std::uint64_t, const trace::Unit*> unit;     // by unit id
  std::map<std::uint64_t, std::vector<const trace::Unit*>> units_of;  // by VP, in unit-id order
  std::vector<std::uint64_t> tasks;                     // explicit tasks' VPs, in creation order

  explicit TaskView(const trace::Trace& t) : trace(t) {
    for (const trace::Unit& u : t.units) {
      unit[u.record.unit] = &u;
      units_of[u.record.vp].push_back(&u);
    }
    for (auto& [vp, list] : units_of) {
      std::sort(list.begin(), list.end(), [](const trace::Unit* a, const trace::Unit* b) { return a->record.unit < b->record.unit; });
    }
    for (const trace::Trace::Vp& vp : t.vps) {
      if (vp.name == "task") tasks.push_back(vp.id);
    }
    std::sort(tasks.begin(), tasks.end());
  }
  std::uint64_t vp_of(std::uint64_t unit_id) const {
    auto found = unit.find(unit_id);
    return found != unit.end() ? found->second->record.vp : 0;
  }
  std::vector<const trace::ConstraintRecord*> constraints(const std::string& construct) const {
    std::vector<const trace::ConstraintRecord*> found;
    for (const trace::ConstraintRecord& c : trace.constraints) {
      if (trace.construct_name(c.construct) == construct) found.push_back(&c);
    }
    return found;
  }
};

class OmpCholesky : public ::testing::TestWithParam<std::size_t> {};

TEST_P(OmpCholesky, RecordedDependencesAreTheKnownTaskGraph) {
  const std::size_t t = GetParam();
  const trace::Trace trace = record_openmp({MOIRAI_OMP_CHOLESKY, "--tiles", std::to_string(t), "--tile-size", "16",
                                            "--gate", "--check"},
                                           "cholesky" + std::to_string(t));
  ASSERT_TRUE(trace.complete) << trace.cut;
  EXPECT_EQ(trace.metadata.at("language"), "OpenMP");
  EXPECT_EQ(trace.core_count, 2u);
  // OpenMP's words and placement travel in its trace, and are what the format history gives an
  // OpenMP trace from before they did.
  EXPECT_EQ(trace.language_choices.words, trace::kFormat35OpenMpWords);
  EXPECT_EQ(trace.language_choices.placement, LanguagePlacement::any_core);
  const TaskView view(trace);
  const KnownGraph graph(t);
  ASSERT_EQ(view.tasks.size(), graph.tasks.size()) << "one VP per task";
  // The program creates the tasks in the graph's order, from one thread: VP ids follow it.
  std::map<std::uint64_t, std::string> task_name;
  std::map<std::string, std::set<std::uint32_t>> kernel_sites;
  for (std::size_t i = 0; i < view.tasks.size(); ++i) {
    task_name[view.tasks[i]] = graph.tasks[i];
    const auto vp = std::find_if(trace.vps.begin(), trace.vps.end(), [&](const auto& v) { return v.id == view.tasks[i]; });
    kernel_sites[graph.tasks[i].substr(0, graph.tasks[i].find('('))].insert(vp->site);
  }
  // Each kernel's tasks come from one task construct, a different one per kernel.
  std::set<std::uint32_t> sites;
  for (const auto& [kernel, its_sites] : kernel_sites) {
    EXPECT_EQ(its_sites.size(), 1u) << kernel;
    sites.insert(its_sites.begin(), its_sites.end());
    EXPECT_NE(trace.site_name(*its_sites.begin()).find("cholesky"), std::string::npos) << trace.site_name(*its_sites.begin());
  }
  EXPECT_EQ(sites.size(), t > 2 ? 4u : 3u) << "potrf, trsm, syrk and (from 3 tiles) gemm";
  // Every task is created once, by the task construct.
  EXPECT_EQ(view.constraints("task").size(), graph.tasks.size());
  // Dependences: one constraint per edge of the known graph.
  std::set<std::pair<std::string, std::string>> recorded;
  const auto depends = view.constraints("depend");
  for (const trace::ConstraintRecord* c : depends) {
    recorded.insert({task_name[view.vp_of(c->from)], task_name[view.vp_of(c->to)]});
    EXPECT_EQ(view.units_of.at(view.vp_of(c->to)).front()->record.unit, c->to) << "a dependence frees a task's first unit";
  }
  EXPECT_EQ(depends.size(), graph.edges.size());
  EXPECT_EQ(recorded, graph.edges);
  // The longest chain of the recorded dependences is the algorithm's critical path.
  std::map<std::string, std::size_t> depth;
  std::size_t longest = 0;
  for (const std::string& task : graph.tasks) {
    std::size_t d = 1;
    for (const auto& [from, to] : recorded) {
      if (to == task) d = std::max(d, depth[from] + 1);
    }
    depth[task] = d;
    longest = std::max(longest, d);
  }
  EXPECT_EQ(longest, 3 * t - 2);
  EXPECT_EQ(graph.longest_chain(), 3 * t - 2);
  // The UCC reads it: its critical path runs through every kernel's tasks of the chain.
  const visualize::UnitGraph units = visualize::build_unit_graph(trace);
  const visualize::CriticalPath path = visualize::critical_path(units, trace);
  EXPECT_GT(path.nodes.size(), 0u);
  EXPECT_LE(path.work, path.total_work);
}

INSTANTIATE_TEST_SUITE_P(Tiles, OmpCholesky, ::testing::Values(2, 3, 4, 6),
                         [](const ::testing::TestParamInfo<std::size_t>& tiles) {
                           return std::to_string(tiles.param) + "x" + std::to_string(tiles.param);
                         });

// fib_tasks is how many tasks fib(n) creates with the app's cutoff: two per call above it.
std::size_t fib_tasks(int n, int cutoff) { return n <= cutoff || n < 2 ? 0 : 2 + fib_tasks(n - 1, cutoff) + fib_tasks(n - 2, cutoff); }

TEST(OmpFib, TheUccIsTheTaskTreeAndEachTaskwaitIsFreedByTheLastChild) {
  const int n = 20;
  const int cutoff = 8;
  const trace::Trace trace = record_openmp({MOIRAI_OMP_FIB, "--n", std::to_string(n), "--cutoff", std::to_string(cutoff), "--check"}, "fib");
  ASSERT_TRUE(trace.complete) << trace.cut;
  const TaskView view(trace);
  EXPECT_EQ(view.tasks.size(), fib_tasks(n, cutoff));
  // The task tree: each task has exactly one creator, which was created before it (or is the
  // implicit task of the parallel region).
  std::map<std::uint64_t, std::uint64_t> parent;
  std::map<std::uint64_t, std::vector<std::uint64_t>> children;
  for (const trace::ConstraintRecord* c : view.constraints("task")) {
    const std::uint64_t child = view.vp_of(c->to);
    EXPECT_EQ(view.units_of.at(child).front()->record.unit, c->to) << "creation frees the task's first unit";
    EXPECT_TRUE(parent.emplace(child, view.vp_of(c->from)).second) << "task VP " << child << " created twice";
    children[view.vp_of(c->from)].push_back(child);
    EXPECT_LT(view.vp_of(c->from), child);
  }
  EXPECT_EQ(parent.size(), view.tasks.size());
  std::size_t roots = 0;
  for (const auto& [child, creator] : parent) {
    if (!std::binary_search(view.tasks.begin(), view.tasks.end(), creator)) ++roots;
  }
  EXPECT_EQ(roots, 2u) << "fib(n) in the single region creates fib(n-1) and fib(n-2)";
  // Every taskwait: freed by the child (created before it) whose last unit ended last.
  std::size_t taskwaits = 0;
  for (const trace::ConstraintRecord* c : view.constraints("taskwait")) {
    ++taskwaits;
    const std::uint64_t waiter = view.vp_of(c->to);
    const std::uint64_t* last = nullptr;
    std::uint64_t last_end = 0;
    std::uint64_t last_unit = 0;
    for (const std::uint64_t& child : children[waiter]) {
      const trace::Unit* final_unit = view.units_of.at(child).back();
      if (final_unit->record.unit > c->to) continue;  // created after this taskwait
      if (last == nullptr || final_unit->record.end >= last_end) {
        last = &child;
        last_end = final_unit->record.end;
        last_unit = final_unit->record.unit;
      }
    }
    ASSERT_NE(last, nullptr) << "a taskwait of VP " << waiter << " without children";
    // The tool orders siblings' ends under their parent's lock; only the cores' clocks can
    // disagree with that order, by their skew (a virtual machine's vCPUs: well under 2 us).
    const trace::Unit& freed_by = *view.unit.at(c->from);
    EXPECT_TRUE(c->from == last_unit ||
                (view.vp_of(c->from) != 0 && parent.at(view.vp_of(c->from)) == waiter && freed_by.core != view.unit.at(last_unit)->core &&
                 freed_by.record.end + static_cast<std::uint64_t>(trace.clock_hz * 2e-6) >= last_end))
        << "taskwait of VP " << waiter << " freed by unit " << c->from << " ending at " << freed_by.record.end << " on core "
        << freed_by.core << ", but unit " << last_unit << " of the last child ended at " << last_end << " on core "
        << view.unit.at(last_unit)->core;
    EXPECT_EQ(trace.construct_name(view.unit.at(c->from)->record.ended_by), "end");
  }
  std::size_t waiting_tasks = 0;
  for (const auto& [creator, its_children] : children) waiting_tasks += its_children.empty() ? 0 : 1;
  EXPECT_EQ(taskwaits, waiting_tasks) << "one taskwait per task that created children";
}

// expect_whole checks what every OpenMP trace must hold: every constraint joins two recorded
// units, and every explicit task is created once, by a task construct that ended its creator's
// unit, and ends with its "end".
void expect_whole(const TaskView& view) {
  for (const trace::ConstraintRecord& c : view.trace.constraints) {
    EXPECT_TRUE(view.unit.count(c.from) == 1 && view.unit.count(c.to) == 1)
        << view.trace.construct_name(c.construct) << " constraint " << c.from << " -> " << c.to << " names a unit never recorded";
  }
  std::map<std::uint64_t, int> created;
  for (const trace::ConstraintRecord* c : view.constraints("task")) {
    ++created[view.vp_of(c->to)];
    EXPECT_EQ(view.trace.construct_name(view.unit.at(c->from)->record.ended_by), "task");
  }
  for (const std::uint64_t task : view.tasks) {
    EXPECT_EQ(created[task], 1) << "task VP " << task;
    EXPECT_EQ(view.trace.construct_name(view.units_of.at(task).back()->record.ended_by), "end") << "task VP " << task;
  }
}

// ConstructRun is one case of tests/omp/omp_cases.cpp (constructs whose OMPT event order once
// misled the tool) recorded whole, with `tasks` explicit tasks.
struct ConstructRun {
  const trace::Trace trace;
  const TaskView view;
  ConstructRun(const std::string& name, std::size_t tasks, const std::string& environment = "OMP_CANCELLATION=false")
      : trace(record_openmp({"/usr/bin/env", environment, MOIRAI_OMP_CASES, name}, name)), view(trace) {
    EXPECT_TRUE(trace.complete) << trace.cut;
    EXPECT_EQ(view.tasks.size(), tasks) << name;
    expect_whole(view);
  }
};

// A taskgroup's region opens before its tasks are created: the creator's unit goes on until the
// taskgroup's end, where it waits for the child that completes last.
TEST(OmpConstructs, TaskgroupEndsTheCreatorsUnitAtItsEnd) {
  const ConstructRun run("taskgroup", 4);
  const TaskView& view = run.view;
  const auto waits = view.constraints("taskgroup");
  ASSERT_EQ(waits.size(), 1u);
  EXPECT_TRUE(std::binary_search(view.tasks.begin(), view.tasks.end(), view.vp_of(waits[0]->from))) << "freed by a child";
  std::uint64_t last_creation = 0;
  for (const trace::ConstraintRecord* c : view.constraints("task")) {
    last_creation = std::max(last_creation, view.unit.at(c->from)->record.end);
  }
  std::size_t ended_at_taskgroup = 0;
  for (const trace::Unit* u : view.units_of.at(view.vp_of(waits[0]->to))) {
    if (view.trace.construct_name(u->record.ended_by) != "taskgroup") continue;
    ++ended_at_taskgroup;
    EXPECT_GE(u->record.end, last_creation) << "the unit waiting at the taskgroup ended before its tasks were created";
  }
  EXPECT_EQ(ended_at_taskgroup, 1u);
}

// A taskloop's tasks are created inside its implicit taskgroup.
TEST(OmpConstructs, TaskloopTasksHaveTheirCreator) {
  const ConstructRun run("taskloop", 6);
  EXPECT_EQ(run.view.constraints("taskgroup").size(), 1u);
}

// An undeferred task with a depend clause (libomp waits on its dependences through a stand-in
// task, which is no VP) and detach: its body ends before its event is fulfilled, and the creator
// goes on on the same thread, creating the second task.
TEST(OmpConstructs, DetachedTaskEndsItsUnitAndItsCreatorGoesOn) {
  const ConstructRun run("detach", 2);
  EXPECT_EQ(run.view.constraints("taskwait").size(), 1u);
}

// A task that fulfils its own event while it runs (early fulfilment) goes on to its end, where it
// completes and frees the taskwait.
TEST(OmpConstructs, EarlyFulfilledTaskCompletesAtItsEnd) {
  const ConstructRun run("fulfilled", 1);
  const auto waits = run.view.constraints("taskwait");
  ASSERT_EQ(waits.size(), 1u);
  EXPECT_EQ(waits[0]->from, run.view.units_of.at(run.view.tasks.at(0)).back()->record.unit);
}

// Tasks cancelled before they ran (their taskgroup cancelled) end where the runtime discards them.
TEST(OmpConstructs, CancelledTasksEndWhereTheRuntimeDiscardsThem) {
  const ConstructRun run("cancel", 20, "OMP_CANCELLATION=true");
  EXPECT_EQ(run.view.constraints("taskgroup").size(), 1u);
}

// The trace says how the runtime placed its threads: each core's PU when OMP_PROC_BIND bound it,
// "unbound" when nothing did, and the environment that decided it.
TEST(OmpBinding, TheTraceSaysWhichPuEachThreadRanOn) {
  const trace::Trace bound = record_openmp({MOIRAI_OMP_FIB, "--n", "12"}, "bound", 2, {"OMP_PROC_BIND=true", "OMP_PLACES=cores"});
  ASSERT_TRUE(bound.complete) << bound.cut;
  EXPECT_EQ(bound.metadata.at("omp_proc_bind"), "true");
  EXPECT_EQ(bound.metadata.at("omp_places"), "cores");
  const std::string& places = bound.metadata.at("omp_core_binding");
  EXPECT_TRUE(places.starts_with("0:pu") && places.find(",1:pu") != std::string::npos) << places;
  const trace::Trace free = record_openmp({MOIRAI_OMP_FIB, "--n", "12"}, "unbound", 2, {"OMP_PROC_BIND=false"});
  ASSERT_TRUE(free.complete) << free.cut;
  EXPECT_EQ(free.metadata.at("omp_proc_bind"), "false");
  EXPECT_TRUE(free.metadata.at("omp_core_binding").starts_with("0:unbound (")) << free.metadata.at("omp_core_binding");
  EXPECT_EQ(free.metadata.at("omp_unrecorded_threads"), "0");
  EXPECT_EQ(free.metadata.at("language"), "OpenMP");
  EXPECT_NE(free.metadata.at("omp_runtime").find("LLVM OMP"), std::string::npos);
}

}  // namespace
}  // namespace moirai::test

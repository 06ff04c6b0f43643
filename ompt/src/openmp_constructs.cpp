#include "openmp_constructs.h"

#include <utility>

namespace moirai::ompt {

std::vector<ConstructInfo> openmp_constructs() {
  using R = ConstructRole;
  std::vector<ConstructInfo> table(kConstructCount);
  table[kTaskEnd] = {"end", R::end, ""};
  table[kTask] = {"task", R::create, "darkgreen"};
  table[kDepend] = {"depend", R::dependence, "blue"};
  table[kTaskwait] = {"taskwait", R::wait, "purple"};
  table[kTaskgroup] = {"taskgroup", R::wait, "purple4"};
  table[kBarrier] = {"barrier", R::wait, "orangered"};
  table[kCritical] = {"critical", R::exclusive, "firebrick"};
  table[kCriticalEnd] = {"critical end", R::exclusive_end, "firebrick"};
  table[kLock] = {"lock", R::exclusive, "sienna"};
  table[kUnlock] = {"unlock", R::exclusive_end, "sienna"};
  table[kLoopChunk] = {"loop chunk", R::other, "gray40"};
  table[kParallel] = {"parallel", R::create, "darkgreen"};
  table[kTaskSwitch] = {"task switch", R::other, ""};
  return table;
}

LanguageInfo openmp_language() {
  LanguageChoices choices;
  choices.placement = LanguagePlacement::any_core;
  // Where the paper says VP and core, OpenMP says task and thread; its cures name its clauses.
  choices.words = {
      {"vp", "task"},
      {"vps", "tasks"},
      {"creator_cure", "create the tasks from several threads (a taskloop, or each thread creating its share)"},
      {"unit_size_cure",
       "make each task do more work (coarser tasks, or a cutoff below which no task is created); most units end at the "
       "call site named here"},
      {"tail_cure", "share the loop's or the tasks' work out as the threads free up: schedule(dynamic) or a balanced split"},
      {"unused_cure",
       "check that every thread gets work: tasks created where the other threads can take them, a loop shared by the team"},
      {"serial_cure", "split its work across tasks or loop iterations (a reduction: a reduction clause, or a tree of tasks)"},
      {"exclusive_section", "critical section"},
      {"exclusive_cure",
       "move its work out of the {}: compute outside, keep only the update inside (or use a reduction or an atomic)"},
      {"late_cure",
       "the unit on the other side of that construct ran late; look at which thread ran it and what ran before it there"},
      {"create_late_cure",
       "the tasks they waited for were created too late, one after another by one task (at {}); create the tasks from "
       "several threads (a taskloop, or each thread creating its share)"},
      {"exclusive_late_cure",
       "they waited for the critical section at {}, which another thread held; move its work out of the critical "
       "section: compute outside, keep only the update inside (or use a reduction or an atomic)"},
      {"wait_late_cure",
       "the last thread or task to reach it (at {}) ran late; share the loop's or the tasks' work out as the threads "
       "free up: schedule(dynamic) or a balanced split"},
  };
  return {"OpenMP", openmp_constructs(), std::move(choices)};
}

}  // namespace moirai::ompt

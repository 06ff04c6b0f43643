// The reader's words for OpenMP traces of format 3.5 or older, which named their language only:
// the report's words OpenMP had when format 3.6 put a language's words into its trace. It belongs
// to the trace format, not to the OpenMP front-end (ompt/ owns OpenMP's live words): an old trace
// keeps the words its report had, whatever OpenMP records later.
#pragma once

#include <vector>

#include "moirai/core/language_info.h"

namespace moirai::trace {

// kFormat35OpenMpWords holds the report's words of a format-3.5 OpenMP trace.
inline const std::vector<LanguageWord> kFormat35OpenMpWords = {
    {"vp", "task"},
    {"vps", "tasks"},
    {"creator_cure", "create the tasks from several threads (a taskloop, or each thread creating its share)"},
    {"unit_size_cure",
     "make each task do more work (coarser tasks, or a cutoff below which no task is created); most units end at the call "
     "site named here"},
    {"tail_cure", "share the loop's or the tasks' work out as the threads free up: schedule(dynamic) or a balanced split"},
    {"unused_cure",
     "check that every thread gets work: tasks created where the other threads can take them, a loop shared by the team"},
    {"serial_cure", "split its work across tasks or loop iterations (a reduction: a reduction clause, or a tree of tasks)"},
    {"exclusive_section", "critical section"},
    {"exclusive_cure",
     "move its work out of the {}: compute outside, keep only the update inside (or use a reduction or an atomic)"},
    {"late_cure", "the unit on the other side of that construct ran late; look at which thread ran it and what ran before it there"},
    {"create_late_cure",
     "the tasks they waited for were created too late, one after another by one task (at {}); create the tasks from several "
     "threads (a taskloop, or each thread creating its share)"},
    {"exclusive_late_cure",
     "they waited for the critical section at {}, which another thread held; move its work out of the critical section: "
     "compute outside, keep only the update inside (or use a reduction or an atomic)"},
    {"wait_late_cure",
     "the last thread or task to reach it (at {}) ran late; share the loop's or the tasks' work out as the threads free up: "
     "schedule(dynamic) or a balanced split"},
};

}  // namespace moirai::trace

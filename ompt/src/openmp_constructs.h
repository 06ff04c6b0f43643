// OpenMP's constructs as the trace names them: each with the role that lets every view read an
// OpenMP trace without knowing OpenMP (moirai/core/construct_role.h); and the language as
// the trace describes it, with the report's words for OpenMP and the placement closest to libomp.
#pragma once

#include <vector>

#include "moirai/core/construct_role.h"
#include "moirai/core/ids.h"
#include "moirai/core/language_info.h"

namespace moirai::ompt {

// OpenMpConstruct is the construct kind recorded for a unit boundary or a constraint.
enum OpenMpConstruct : ConstructKind {
  kTaskEnd = 0,      // a task (explicit or implicit) completed
  kTask = 1,         // a task was created: the creator's unit ends (a task scheduling point)
  kDepend = 2,       // a predecessor's completion satisfied one of a task's dependences
  kTaskwait = 3,     // taskwait: freed by the last child to complete
  kTaskgroup = 4,    // the end of a taskgroup: freed by the last child to complete
  kBarrier = 5,      // a barrier (explicit, implicit, the parallel region's join): the last arrival
  kCritical = 6,     // a critical section was entered: its body runs next
  kCriticalEnd = 7,  // a critical section was left: frees the next thread that waited for it
  kLock = 8,         // an OpenMP lock was acquired
  kUnlock = 9,       // an OpenMP lock was released
  kLoopChunk = 10,   // the runtime handed the thread a chunk of a work-sharing loop
  kParallel = 11,    // a parallel region forked: the encountering task created the team's tasks
  kTaskSwitch = 12,  // the thread left a task at a scheduling point without ending it (taskyield)
  kConstructCount = 13,
};

// openmp_constructs is the construct table a trace of an OpenMP run carries (index = kind).
std::vector<ConstructInfo> openmp_constructs();

// openmp_language is OpenMP as a trace describes it: named "OpenMP", its constructs, the report's
// words in OpenMP's terms (each core an OpenMP thread, each VP a task; docs/openmp.md) and the
// placement of libomp's task pool, which any free thread takes from.
LanguageInfo openmp_language();

}  // namespace moirai::ompt

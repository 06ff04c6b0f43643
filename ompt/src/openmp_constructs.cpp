#include "openmp_constructs.h"

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

}  // namespace moirai::ompt

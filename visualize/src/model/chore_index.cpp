#include "model/chore_index.h"

#include <algorithm>

namespace moirai::visualize::detail {

ChoreIndex::ChoreIndex(const trace::Trace& trace) : cores_(trace.core_count) {
  for (const trace::Trace::ChoreSpan& chore : trace.chores) {
    if (chore.core < trace.core_count) cores_[chore.core].push_back(&chore.record);
  }
  // Recorded in time order per core; sorting (stable) only guards hand-made traces.
  for (auto& chores : cores_) {
    std::stable_sort(chores.begin(), chores.end(), [](const auto* a, const auto* b) { return a->begin < b->begin; });
  }
}

ChoreIndex::Ticks ChoreIndex::inside(std::uint32_t core, std::uint64_t begin, std::uint64_t end) const {
  Ticks ticks;
  if (core >= cores_.size()) return ticks;
  const auto& chores = cores_[core];
  auto it = std::partition_point(chores.begin(), chores.end(), [&](const auto* c) { return c->end <= begin; });
  for (; it != chores.end() && (*it)->begin < end; ++it) {
    const std::uint64_t lo = std::max((*it)->begin, begin), hi = std::min((*it)->end, end);
    if (hi <= lo) continue;
    switch (static_cast<Chore>((*it)->chore)) {
      case Chore::wake_up: ticks.wake += hi - lo; break;
      case Chore::estimated: ticks.estimated += hi - lo; break;
      case Chore::vp_shell: ticks.shell += hi - lo; break;
    }
  }
  return ticks;
}

}  // namespace moirai::visualize::detail

// Each core's chores (trace format 3.2) in time order, for the views that take a chore out of the
// decision or idle span it lies in (internal to visualize).
#pragma once

#include <cstdint>
#include <vector>

#include "moirai/trace/reader.h"

namespace moirai::visualize::detail {

// ChoreIndex holds each core's chore records by begin (cores the trace lacks are left out).
class ChoreIndex {
 public:
  explicit ChoreIndex(const trace::Trace& trace);

  // Ticks is chore time by chore; `estimated` is the runtime's work a front-end estimated (3.5).
  struct Ticks {
    std::uint64_t wake = 0, shell = 0, estimated = 0;
    std::uint64_t total() const { return wake + shell + estimated; }
  };
  // inside is the chore time of `core` inside [begin, end).
  Ticks inside(std::uint32_t core, std::uint64_t begin, std::uint64_t end) const;
  // on is a core's chores, by begin.
  const std::vector<const trace::ChoreRecord*>& on(std::uint32_t core) const { return cores_[core]; }

 private:
  std::vector<std::vector<const trace::ChoreRecord*>> cores_;
};

}  // namespace moirai::visualize::detail

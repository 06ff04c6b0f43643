// BusyCores: how many cores of a run were in a unit at each moment, so the fit can say how busy
// the machine (or a socket) was during each unit.
#pragma once

#include <cstdint>
#include <vector>

#include "moirai/trace/reader.h"

namespace moirai::calibrate {

// BusyCores is the step function of how many of `units` run at once, with its running integral,
// so the average over any span is two look-ups.
class BusyCores {
 public:
  explicit BusyCores(const std::vector<const trace::Unit*>& units);
  // mean is the average number of busy cores over [begin, end) (at `begin` when the span is empty).
  double mean(std::uint64_t begin, std::uint64_t end) const;

 private:
  double integral(std::uint64_t t) const;
  double level_at(std::uint64_t t) const;
  std::vector<std::uint64_t> times_;
  std::vector<double> areas_;
  std::vector<int> levels_;
};

}  // namespace moirai::calibrate

#include "busy_cores.h"

#include <algorithm>
#include <utility>

namespace moirai::calibrate {

BusyCores::BusyCores(const std::vector<const trace::Unit*>& units) {
  std::vector<std::pair<std::uint64_t, int>> steps;
  for (const trace::Unit* u : units) {
    steps.push_back({u->record.begin, +1});
    steps.push_back({u->record.end, -1});
  }
  std::sort(steps.begin(), steps.end());
  int level = 0;
  double area = 0;
  std::uint64_t last = steps.empty() ? 0 : steps.front().first;
  for (const auto& [at, delta] : steps) {
    area += static_cast<double>(at - last) * level;
    level += delta;
    last = at;
    if (!times_.empty() && times_.back() == at) {
      levels_.back() = level;
    } else {
      times_.push_back(at);
      areas_.push_back(area);
      levels_.push_back(level);
    }
  }
}

double BusyCores::mean(std::uint64_t begin, std::uint64_t end) const {
  if (end <= begin) return level_at(begin);
  return (integral(end) - integral(begin)) / static_cast<double>(end - begin);
}

double BusyCores::integral(std::uint64_t t) const {
  auto it = std::upper_bound(times_.begin(), times_.end(), t);
  if (it == times_.begin()) return 0;
  const std::size_t i = static_cast<std::size_t>(it - times_.begin()) - 1;
  return areas_[i] + static_cast<double>(t - times_[i]) * levels_[i];
}

double BusyCores::level_at(std::uint64_t t) const {
  auto it = std::upper_bound(times_.begin(), times_.end(), t);
  return it == times_.begin() ? 0 : levels_[static_cast<std::size_t>(it - times_.begin()) - 1];
}

}  // namespace moirai::calibrate

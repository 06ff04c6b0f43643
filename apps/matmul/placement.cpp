#include "placement.h"

#include <iterator>

namespace moirai::matmul {

std::string_view placement_name(Placement placement) noexcept {
  return kPlacementNames[static_cast<std::size_t>(placement)];
}

std::optional<Placement> parse_placement(std::string_view name) noexcept {
  for (std::size_t i = 0; i < std::size(kPlacementNames); ++i) {
    if (kPlacementNames[i] == name) return static_cast<Placement>(i);
  }
  return std::nullopt;
}

CoreId worker_core(Placement placement, std::size_t piece, std::size_t cores) noexcept {
  if (cores <= 1) return 0;
  switch (placement) {
    case Placement::round_robin:
      return static_cast<CoreId>(piece % cores);
    case Placement::others_first:
      return static_cast<CoreId>((piece + 1) % cores);
    case Placement::dedicated_creator:
      return static_cast<CoreId>(1 + piece % (cores - 1));
    case Placement::misplaced_brace:
      return static_cast<CoreId>((piece / kMisplacedBraceGroup) % cores);
  }
  return 0;
}

}  // namespace moirai::matmul

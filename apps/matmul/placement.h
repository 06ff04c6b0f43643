// Placement: how matmul's divider pins worker VPs to cores, the knob of the paper's section 3.4.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

#include "moirai/core/ids.h"

namespace moirai::matmul {

// Placement is a policy for pinning worker VPs; the divider itself always runs on core 0.
enum class Placement {
  // round_robin puts piece i on core i % cores, starting with the divider's own core 0: the
  // paper's first runs, where the divider is overtaken by the worker queued on its core.
  round_robin,
  // others_first puts piece i on core (i + 1) % cores: cores 1..n-1 first, core 0 last (3.4.2).
  others_first,
  // dedicated_creator keeps core 0 for the divider; pieces go round-robin over cores 1..n-1 (3.4.4).
  dedicated_creator,
  // misplaced_brace is the tuning walkthrough's step (a), the paper's bug (3.4.1): round-robin
  // from core 0 written with its inner loop's closing brace misplaced, so the core advances once
  // per group of five pieces instead of once per piece.
  misplaced_brace,
};

// kPlacementNames are the flag spellings, in the enum's order.
inline constexpr std::string_view kPlacementNames[] = {"round-robin", "others-first", "dedicated-creator",
                                                       "misplaced-brace"};

// kMisplacedBraceGroup is how many pieces misplaced_brace puts on a core before it advances.
inline constexpr std::size_t kMisplacedBraceGroup = 5;

// placement_name is the flag spelling of `placement`.
std::string_view placement_name(Placement placement) noexcept;
// parse_placement reads a flag spelling; nullopt when it names no placement.
std::optional<Placement> parse_placement(std::string_view name) noexcept;

// worker_core is the core `placement` gives piece `piece` on a run with `cores` cores (>= 1). On
// one core every placement degenerates to core 0.
CoreId worker_core(Placement placement, std::size_t piece, std::size_t cores) noexcept;

}  // namespace moirai::matmul

// Core sets and counts as every command prints them, and core sets as `--cores` reads them back:
// "core 3", "cores 0-5,9", "1 unit", "2 units".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace moirai::visualize {

// format_core_set renders cores sorted, runs folded ("cores 0-5,9"; "no core" when empty).
std::string format_core_set(const std::vector<std::uint32_t>& cores);
// parse_core_set reads numbers and ranges joined by commas, sorted and without repeats; throws
// std::invalid_argument naming the part that is not a core or a range.
std::vector<std::uint32_t> parse_core_set(std::string_view text);
// plural_text renders a count with its noun in the right number ("1 arc", "2 arcs").
std::string plural_text(std::uint64_t count, const std::string& noun);

}  // namespace moirai::visualize

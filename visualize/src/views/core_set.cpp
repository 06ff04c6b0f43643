#include "moirai/visualize/views/core_set.h"

#include "output/text_format.h"

namespace moirai::visualize {

std::string format_core_set(const std::vector<std::uint32_t>& cores) { return detail::core_set(cores); }

std::vector<std::uint32_t> parse_core_set(std::string_view text) { return detail::parse_core_set(text); }

std::string plural_text(std::uint64_t count, const std::string& noun) { return detail::plural(count, noun); }

}  // namespace moirai::visualize

// Number and JSON formatting the post-processor's text and JSON views share.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace moirai::visualize::detail {

// fixed renders a number with `digits` decimals.
inline std::string fixed(double value, int digits) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", digits, value);
  return text;
}

// json_string quotes and escapes text as a JSON string.
inline std::string json_string(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
      out += escaped;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

// plural renders "1 core", "2 cores": a count with its noun in the right number.
inline std::string plural(std::uint64_t count, const std::string& noun) {
  return std::to_string(count) + " " + noun + (count == 1 ? "" : "s");
}

// core_set renders cores sorted, runs folded, in the form `--cores` accepts back:
// "core 3", "cores 0-5,9". An empty set renders as "no core".
inline std::string core_set(std::vector<std::uint32_t> cores) {
  std::sort(cores.begin(), cores.end());
  cores.erase(std::unique(cores.begin(), cores.end()), cores.end());
  if (cores.empty()) return "no core";
  std::string list;
  for (std::size_t i = 0; i < cores.size();) {
    std::size_t j = i;
    while (j + 1 < cores.size() && cores[j + 1] == cores[j] + 1) ++j;
    if (!list.empty()) list += ',';
    list += std::to_string(cores[i]);
    if (j > i) list += (j == i + 1 ? "," : "-") + std::to_string(cores[j]);
    i = j + 1;
  }
  return (cores.size() == 1 ? "core " : "cores ") + list;
}

// parse_core_set reads what core_set writes, and what a user types after --cores: numbers and
// ranges joined by commas ("0-5,9"), with or without the leading "core " / "cores ". Throws
// std::invalid_argument naming the part that is wrong (empty, not a number, a range going down).
inline std::vector<std::uint32_t> parse_core_set(std::string_view text) {
  const std::string whole(text);
  for (std::string_view prefix : {"cores ", "core "}) {
    if (text.starts_with(prefix)) {
      text.remove_prefix(prefix.size());
      break;
    }
  }
  const auto bad = [&](const std::string& part, const std::string& why) {
    return std::invalid_argument("'" + whole + "': " + (part.empty() ? "an empty part" : "'" + part + "'") + " " + why +
                                 " (give numbers and ranges, e.g. 0-5,9)");
  };
  const auto number = [&](std::string_view digits, const std::string& part) {
    if (digits.empty() || digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string_view::npos) {
      throw bad(part, "is not a core number or a range");
    }
    return static_cast<std::uint32_t>(std::stoul(std::string(digits)));
  };
  std::vector<std::uint32_t> cores;
  while (true) {
    const std::size_t comma = text.find(',');
    const std::string_view part = text.substr(0, comma);
    const std::string shown(part);
    if (part.empty()) throw bad(shown, "is not a core");
    const std::size_t dash = part.find('-');
    const std::uint32_t first = number(part.substr(0, dash), shown);
    const std::uint32_t last = dash == std::string_view::npos ? first : number(part.substr(dash + 1), shown);
    if (last < first) throw bad(shown, "goes down");
    if (last - first > 1u << 16) throw bad(shown, "spans more than 65536 cores");
    for (std::uint32_t core = first; core <= last; ++core) cores.push_back(core);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  std::sort(cores.begin(), cores.end());
  cores.erase(std::unique(cores.begin(), cores.end()), cores.end());
  return cores;
}

}  // namespace moirai::visualize::detail

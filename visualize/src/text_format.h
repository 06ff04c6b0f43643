// Number and JSON formatting the post-processor's text and JSON views share.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
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

}  // namespace moirai::visualize::detail

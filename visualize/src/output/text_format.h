// Number and JSON formatting the post-processor's text and JSON views share.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "moirai/trace/number_text.h"

namespace moirai::visualize::detail {

// fixed renders a number with `digits` decimals: the one number formatter
// (moirai/trace/number_text.h), which the tools print with too.
using trace::fixed;

// json_string quotes and escapes text as a JSON string (nlohmann-json), invalid UTF-8 replaced
// by U+FFFD.
inline std::string json_string(const std::string& text) {
  return nlohmann::json(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// rounded is a number rounded to `digits` decimals, the precision a JSON view gives it (NaN and
// infinity pass through, and dump_json writes them as null).
inline double rounded(double value, int digits) {
  double scale = 1;
  for (int d = 0; d < digits; ++d) scale *= 10;
  return std::isfinite(value) && std::fabs(value) < 1e15 ? std::round(value * scale) / scale : value;
}

// whole_number is a number rounded to an integer for JSON (null when not finite or out of range).
inline nlohmann::ordered_json whole_number(double value) {
  if (!std::isfinite(value) || std::fabs(value) > 9e18) return nullptr;
  return static_cast<std::int64_t>(std::llround(value));
}

// dump_json renders a JSON document on one line. Text that is not valid UTF-8 (a name in a
// damaged or crafted trace) has its invalid bytes replaced by U+FFFD and a line added to the
// document's top-level "warnings" array saying so; NaN and infinity come out as null
// (nlohmann-json's rule), so the output is always strict JSON.
inline std::string dump_json(nlohmann::ordered_json document) {
  try {
    return document.dump();
  } catch (const nlohmann::json::type_error&) {
    nlohmann::ordered_json& warnings = document["warnings"];
    if (!warnings.is_array()) warnings = nlohmann::ordered_json::array();
    warnings.push_back("some text in the trace is not valid UTF-8: its invalid bytes are shown as U+FFFD");
    return document.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
}

// visible_text is text safe to show in a picture and in XML: invalid UTF-8 and control
// characters other than tab and newline (which XML 1.0 forbids) each become U+FFFD.
inline std::string visible_text(std::string_view text) {
  static constexpr char kReplacement[] = "\xEF\xBF\xBD";
  std::string out;
  out.reserve(text.size());
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  for (std::size_t i = 0; i < text.size();) {
    const unsigned char lead = byte(i);
    if (lead < 0x80) {
      if (lead < 0x20 && lead != '\t' && lead != '\n') {
        out += kReplacement;
      } else {
        out += static_cast<char>(lead);
      }
      ++i;
      continue;
    }
    // The length a lead byte announces and the range its second byte must lie in (RFC 3629:
    // no overlong forms, no surrogates, nothing above U+10FFFF).
    std::size_t length = 0;
    unsigned char low = 0x80, high = 0xBF;
    if (lead >= 0xC2 && lead <= 0xDF) {
      length = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
      length = 3;
      if (lead == 0xE0) low = 0xA0;
      if (lead == 0xED) high = 0x9F;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
      length = 4;
      if (lead == 0xF0) low = 0x90;
      if (lead == 0xF4) high = 0x8F;
    }
    std::size_t valid = length > 0 ? 1 : 0;
    while (valid > 0 && valid < length && i + valid < text.size()) {
      const unsigned char next = byte(i + valid);
      if (next < (valid == 1 ? low : 0x80) || next > (valid == 1 ? high : 0xBF)) break;
      ++valid;
    }
    if (length > 0 && valid == length) {
      out.append(text.substr(i, length));
      i += length;
    } else {
      out += kReplacement;  // one replacement per maximal invalid prefix, as Unicode recommends
      i += valid > 0 ? valid : 1;
    }
  }
  return out;
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

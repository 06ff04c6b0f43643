// Number and JSON formatting the post-processor's text and JSON views share.
#pragma once

#include <cstdio>
#include <string>

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

}  // namespace moirai::visualize::detail

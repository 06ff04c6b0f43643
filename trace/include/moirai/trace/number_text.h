// Numbers as text, written one way everywhere: the post-processor's views, reports and exports,
// the tools and the reader's own messages print a number through printf's formats, here. It lives
// in trace/ because that is the lowest layer all of them include (tools/common/ may include no
// more than trace/, and the reader words its own messages with it).
#pragma once

#include <cstdio>
#include <string>

namespace moirai::trace {

// number_text renders `value` through a printf format holding one floating-point conversion
// ("%.3f ms", "%.1f"; "%g" is what a stream prints by default), however long the result.
inline std::string number_text(double value, const char* format) {
  char text[64];
  const int length = std::snprintf(text, sizeof text, format, value);
  if (length < 0) return "";
  if (static_cast<std::size_t>(length) < sizeof text) return std::string(text, static_cast<std::size_t>(length));
  std::string long_text(static_cast<std::size_t>(length), '\0');
  std::snprintf(long_text.data(), long_text.size() + 1, format, value);
  return long_text;
}

// fixed renders `value` with `digits` decimals, as "%.<digits>f" (and a stream set to std::fixed
// and that precision) does.
inline std::string fixed(double value, int digits) {
  char format[16];
  std::snprintf(format, sizeof format, "%%.%df", digits);
  return number_text(value, format);
}

}  // namespace moirai::trace

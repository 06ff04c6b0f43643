// Numbers as text, in the printf formats the sweep's table, CSV and plot and a child's run time use.
#pragma once

#include <cstdio>
#include <string>

namespace moirai::tools {

// number_text renders `value` with a printf format holding one floating-point conversion.
inline std::string number_text(double value, const char* format) {
  char text[64];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

}  // namespace moirai::tools

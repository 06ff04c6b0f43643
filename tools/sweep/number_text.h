// Numbers as text, in the printf formats the sweep's table, CSV and plot use.
#pragma once

#include <cstdio>
#include <string>

namespace moirai::sweep {

// number_text renders `value` with a printf format holding one floating-point conversion.
inline std::string number_text(double value, const char* format) {
  char text[64];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

}  // namespace moirai::sweep

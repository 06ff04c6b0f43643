// The stretch of clock ticks a trace covers, the time axis every analysis and view shares.
#pragma once

#include <cstdint>

#include "moirai/trace/reader.h"

namespace moirai::visualize {

// RunSpan is the stretch of clock ticks a trace covers: its first and last reading.
struct RunSpan {
  std::uint64_t first = 0, last = 0;
  std::uint64_t length() const { return last - first; }
};

// run_span finds the first and last reading of a trace's units and idle spans ({0, 0} when it
// has neither).
RunSpan run_span(const trace::Trace& trace);

}  // namespace moirai::visualize

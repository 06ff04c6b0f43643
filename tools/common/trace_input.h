// Reading a trace for a tool: the reader's checks, its warnings said on stderr, its errors named
// by the trace's path. `moirai` (views, report, exports) and `moirai-calibrate --fit` read every
// trace through here, so they refuse and warn alike.
#pragma once

#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>

#include "moirai/trace/reader.h"

namespace moirai::tools {

// UnreadableTrace is a trace the reader refuses: "PATH: at byte N: ...". Bad input (exit 2).
class UnreadableTrace : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// TraceDoesNotFit is a trace larger than the memory the process may use: "PATH: out of memory
// reading ...". A failed run (exit 1), not bad input.
class TraceDoesNotFit : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// read_checked_trace reads `path` through trace::read_trace and writes each of its warnings (where
// a cut trace ends, each part the reader left out) to `warnings` as "TOOL: warning: PATH: ...".
trace::Trace read_checked_trace(const std::string& path, std::string_view tool, std::ostream& warnings);

}  // namespace moirai::tools

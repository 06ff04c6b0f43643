// `moirai record`: runs a program with Moirai's OpenMP tool loaded (OMP_TOOL_LIBRARIES) and keeps
// the trace it writes, or says why none was written.
#pragma once

#include <string_view>
#include <vector>

namespace moirai::cli {

// kNoTraceWritten is `moirai record`'s exit status when the program ran but wrote no trace.
inline constexpr int kNoTraceWritten = 3;

// record_command runs `moirai record ARGS...`: returns the program's exit status (128 + the
// signal that killed it), or kNoTraceWritten; throws std::invalid_argument for bad input and
// std::runtime_error when the tool library is missing or the trace cannot be put in place.
int record_command(const std::vector<std::string_view>& args);

}  // namespace moirai::cli

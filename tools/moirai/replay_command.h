// `moirai replay`: a recorded run again on a simulated machine, optionally recorded as a trace.
#pragma once

#include <string_view>
#include <vector>

namespace moirai::cli {

// replay_command runs `moirai replay ARGS...` and returns its exit status (0 done); throws BadInput
// or tools::UnreadableTrace for bad input (exit 2) and std::runtime_error (exit 1) when the
// replayed run's trace cannot be written.
int replay_command(const std::vector<std::string_view>& args);

}  // namespace moirai::cli

// `moirai stats`: a trace's summary: cores, VPs, units, constraints by kind, per-core time, counters,
// the recorder's cost and integrity.
#pragma once

#include <string_view>
#include <vector>

namespace moirai::cli {

// stats_command runs `moirai stats ARGS...` and returns its exit status (0 done); throws BadInput
// or tools::UnreadableTrace for bad input (exit 2) and std::runtime_error (exit 1) when the output
// cannot be written.
int stats_command(const std::vector<std::string_view>& args);

}  // namespace moirai::cli

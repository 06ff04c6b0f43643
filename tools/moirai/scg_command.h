// `moirai scg`: the Scheduling Consequence Graph drawn through Graphviz.
#pragma once

#include <string_view>
#include <vector>

namespace moirai::cli {

// scg_command runs `moirai scg ARGS...` and returns its exit status (0 done); throws BadInput or
// tools::UnreadableTrace for bad input (exit 2) and std::runtime_error (exit 1) when the drawing
// cannot be written.
int scg_command(const std::vector<std::string_view>& args);

}  // namespace moirai::cli

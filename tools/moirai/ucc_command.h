// `moirai ucc`: the Unit & Constraint Collection drawn through Graphviz.
#pragma once

#include <string_view>
#include <vector>

namespace moirai::cli {

// ucc_command runs `moirai ucc ARGS...` and returns its exit status (0 done); throws BadInput or
// tools::UnreadableTrace for bad input (exit 2) and std::runtime_error (exit 1) when the drawing
// cannot be written.
int ucc_command(const std::vector<std::string_view>& args);

}  // namespace moirai::cli

// `moirai report`: what caused the lost time (the report), the critical path unit by unit, or each
// hint's claimed loss checked by replay.
#pragma once

#include <string_view>
#include <vector>

namespace moirai::cli {

// report_command runs `moirai report ARGS...` and returns its exit status (0 done); throws BadInput
// or tools::UnreadableTrace for bad input (exit 2) and std::runtime_error (exit 1) when the output
// cannot be written.
int report_command(const std::vector<std::string_view>& args);

}  // namespace moirai::cli

// `moirai export`: the trace in OTF2, Perfetto (protobuf or JSON) or SQLite.
#pragma once

#include <string_view>
#include <vector>

namespace moirai::cli {

// export_command runs `moirai export ARGS...` and returns its exit status (0 done); throws BadInput
// or tools::UnreadableTrace for bad input (exit 2) and std::runtime_error (exit 1) when the output
// cannot be written.
int export_command(const std::vector<std::string_view>& args);

}  // namespace moirai::cli

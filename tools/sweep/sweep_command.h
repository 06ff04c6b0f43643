// `moirai sweep`: run a command once per value of a parameter and compare the recorded runs.
#pragma once

#include <string_view>
#include <vector>

namespace moirai::sweep {

// sweep_command runs `moirai sweep ARGS` and returns its exit status: 0 when at least one
// value succeeded, 1 when every run failed, 2 for bad input.
int sweep_command(const std::vector<std::string_view>& args);

}  // namespace moirai::sweep

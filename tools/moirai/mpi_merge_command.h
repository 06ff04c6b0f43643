// `moirai mpi-merge`: the rank logs an MPI job wrote (the manual form of `moirai record`'s
// second step) merged into one trace.
#pragma once

#include <string_view>
#include <vector>

namespace moirai::cli {

// mpi_merge_command runs `moirai mpi-merge DIR -o TRACE` and returns its exit status (0 done);
// throws BadInput when the flags or the rank logs are bad (exit 2), std::runtime_error when the
// trace cannot be written (exit 1).
int mpi_merge_command(const std::vector<std::string_view>& args);

}  // namespace moirai::cli

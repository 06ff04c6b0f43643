// The pieces of `main` every Moirai app shares: the error-to-exit-code mapping.
#pragma once

#include <cstddef>
#include <functional>
#include <string_view>

#include "moirai/program/flags.h"

namespace moirai::program {

// available_cores is the number of cores this machine offers a run.
std::size_t available_cores();

// run_app runs an app's body and returns the process exit code: the body's own result, or, when
// the body throws, a one-line message on stderr and 2 for a configuration the machine cannot
// honour (proto::ConfigError, FlagError), 1 for everything else (proto::UsageError,
// proto::DeadlockError, proto::VpFailure, any other exception). No exception escapes it.
int run_app(std::string_view app, const std::function<int()>& body) noexcept;

}  // namespace moirai::program

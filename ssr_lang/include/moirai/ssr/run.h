// Running an SSR program: the proto-runtime's run, typed for SSR's VP bodies.
#pragma once

#include <source_location>

#include "moirai/proto_runtime/run.h"
#include "moirai/ssr/context.h"

namespace moirai::ssr {

// RunOptions configures one SSR run: the options of every language's run.
using RunOptions = proto::RunOptions;

// run animates `seed` as the first VP on `options.cores` hwloc-pinned cores and returns when
// every VP has ended. Throws proto::DeadlockError, proto::VpFailure or proto::ConfigError.
proto::RunStats run(VpBody seed, const RunOptions& options = {},
                    std::source_location where = std::source_location::current());

// run animates `seed` on the given machine (real or simulated); options.cores is ignored.
proto::RunStats run(proto::Machine& machine, VpBody seed,
                    const RunOptions& options = {},
                    std::source_location where = std::source_location::current());

}  // namespace moirai::ssr

// Running an SSR program.
#pragma once

#include <cstddef>
#include <source_location>
#include <string>

#include "moirai/instrument/runtime_observer.h"
#include "moirai/proto_runtime/machine.h"
#include "moirai/proto_runtime/runtime.h"
#include "moirai/ssr/context.h"

namespace moirai::ssr {

// RunOptions configures one SSR run.
struct RunOptions {
  std::size_t cores = 0;                            // real cores to use, 0 = all (run without a machine)
  std::size_t stack_size = 256 * 1024;              // default VP stack in bytes
  instrument::RuntimeObserver* observer = nullptr;  // receives the instrumentation points
  std::string seed_name = "main";                   // display name of the first VP
  CoreId seed_core = kAnyCore;                      // pin the first VP to a core
};

// run animates `seed` as the first VP on `options.cores` hwloc-pinned cores and returns when
// every VP has ended. Throws proto::DeadlockError, proto::VpFailure or proto::ConfigError.
proto::RunStats run(VpBody seed, const RunOptions& options = {},
                    std::source_location where = std::source_location::current());

// run animates `seed` on the given machine (real or simulated); options.cores is ignored.
proto::RunStats run(proto::Machine& machine, VpBody seed,
                    const RunOptions& options = {},
                    std::source_location where = std::source_location::current());

}  // namespace moirai::ssr

// Running a VSs program.
#pragma once

#include <cstddef>
#include <source_location>
#include <string>

#include "moirai/instrument/runtime_observer.h"
#include "moirai/proto_runtime/machine.h"
#include "moirai/proto_runtime/runtime.h"
#include "moirai/vss/context.h"

namespace moirai::vss {

// RunOptions configures one VSs run, like ssr::RunOptions.
struct RunOptions {
  std::size_t cores = 0;                            // real cores to use, 0 = all (run without a machine)
  std::size_t stack_size = 256 * 1024;              // default task stack in bytes
  instrument::RuntimeObserver* observer = nullptr;  // receives the instrumentation points
  std::string seed_name = "main";                   // display name of the seed task
  CoreId seed_core = kAnyCore;                      // pin the seed task to a core
};

// run animates `seed` as the first task on `options.cores` hwloc-pinned cores and returns when
// it and every task it submitted have ended. Throws proto::DeadlockError, proto::VpFailure (a
// task's exception; the VP's name is the task's, "created at" where it was submitted) or
// proto::ConfigError.
proto::RunStats run(TaskBody seed, const RunOptions& options = {},
                    std::source_location where = std::source_location::current());

// run animates `seed` on the given machine (real or simulated); options.cores is ignored.
proto::RunStats run(proto::Machine& machine, TaskBody seed, const RunOptions& options = {},
                    std::source_location where = std::source_location::current());

}  // namespace moirai::vss

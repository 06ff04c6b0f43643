// Running a VSs program: the proto-runtime's run, typed for VSs's task bodies.
#pragma once

#include <source_location>

#include "moirai/proto_runtime/run.h"
#include "moirai/vss/context.h"

namespace moirai::vss {

// RunOptions configures one VSs run: the options of every language's run (seed_name and
// seed_core name and pin the seed task, stack_size is a task's default stack).
using RunOptions = proto::RunOptions;

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

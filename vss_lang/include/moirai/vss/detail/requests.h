// The payloads VSs's constructs hand the runtime: internal to VSs, visible for Context's inlines.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "moirai/core/ids.h"
#include "moirai/proto_runtime/virtual_processor.h"
#include "moirai/vss/access.h"

namespace moirai::vss {
class Context;
struct TaskOptions;

// TaskBody is the code of a task: any callable taking the task's Context, move-only ones included.
using TaskBody = proto::Body<Context>;
}  // namespace moirai::vss

namespace moirai::vss::detail {

// Construct numbers VSs's construct kinds (0 is the proto-runtime's end); its table
// (language_table in vss_language.cpp) lists them in this order.
enum Construct : ConstructKind {
  kSubmit = 1,
  kDepRaw, kDepWar, kDepWaw,  // never requested: the constraints a task's end records on its successors
  kTaskwait, kTaskwaitOn,
  kRegisterBlocks,
};

// Submit is a task waiting in its submitter's frame until the handler took it over.
struct Submit {
  TaskBody* body = nullptr;
  const Access* accesses = nullptr;
  std::size_t count = 0;
  const TaskOptions* options = nullptr;
  // registrations is how many register_blocks calls had been made when its lock domains were
  // named: the handler resolves the accesses against those matrices, so it touches the data it
  // locked even if a register_blocks (of a task this one does not wait for) came in between.
  std::uint64_t registrations = 0;
};

// TaskwaitOn names the datum a taskwait_on waits for (its mode is not used).
struct TaskwaitOn {
  const Access* datum = nullptr;
  std::uint64_t registrations = 0;  // as Submit's
};

// Taskwait says whether the wait is the implicit one at the end of a task with children.
struct Taskwait {
  bool implicit = false;
};

// RegisterBlocks cuts `matrix` into rows x cols blocks for Region accesses.
struct RegisterBlocks {
  const void* matrix = nullptr;
  std::size_t rows = 0;
  std::size_t cols = 0;
  const std::string* name = nullptr;
};

}  // namespace moirai::vss::detail

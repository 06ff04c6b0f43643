// Context: the VSs constructs, as seen from inside a task.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <source_location>
#include <string>
#include <vector>

#include "moirai/core/ids.h"
#include "moirai/vss/access.h"
#include "moirai/vss/detail/requests.h"

namespace moirai::proto {
class VirtualProcessor;
}
namespace moirai::vss::detail {
struct Task;
}

namespace moirai::vss {

// TaskOptions names a task for traces and messages, may pin it to a core and sets its stack.
struct TaskOptions {
  std::string name;             // "": "task@FILE:LINE" of the submit call
  CoreId core = kAnyCore;       // kAnyCore: the assigner picks
  std::size_t stack_size = 0;   // bytes; 0: the run's default
};

// Context is a task's handle on VSs. Every construct ends the calling task's current unit and
// records the call site; misuse throws proto::UsageError naming it. A Context is valid only
// inside its own task (the seed function is a task too).
class Context {
 public:
  using Where = std::source_location;

  // core is the core animating the calling task right now.
  CoreId core() const noexcept;
  // core_count is the number of cores of the run.
  std::size_t core_count() const noexcept { return core_count_; }
  // task_name is the calling task's display name.
  const std::string& task_name() const noexcept;

  // submit hands the runtime a task that runs `body` once every dependence its `accesses`
  // imply on the caller's earlier submissions is satisfied; it returns at once. Throws for a
  // datum declared twice in conflicting modes, a region of an unregistered matrix or beyond its
  // blocks, or a core the run lacks.
  void submit(TaskBody body, std::initializer_list<Access> accesses = {}, TaskOptions options = {},
              Where where = Where::current());
  // submit with the accesses in a vector, for lists built at run time.
  void submit(TaskBody body, const std::vector<Access>& accesses, TaskOptions options = {},
              Where where = Where::current());

  // taskwait waits until every task the caller submitted (and their own submissions) ended.
  void taskwait(Where where = Where::current());
  // taskwait_on waits until the last task writing `datum` (an object or a Region) ended: among
  // the caller's submissions, else among those of the task that submitted it, and so up. Throws
  // when that writer is the caller itself or a task it runs inside.
  template <class T>
  void taskwait_on(const T& datum, std::string name = {}, Where where = Where::current()) {
    const Access access = in(datum, std::move(name));
    wait_on(access, where);
  }

  // register_blocks cuts `matrix` (known by its address) into rows x cols blocks that tasks
  // access as region(matrix, row, col); an access to the whole matrix then stands for every
  // block. `name` names its blocks "NAME[row,col]". Registering again with another shape throws.
  template <class Matrix>
  void register_blocks(const Matrix& matrix, std::size_t rows, std::size_t cols,
                       std::string name = {}, Where where = Where::current()) {
    register_matrix(static_cast<const void*>(std::addressof(matrix)), rows, cols, name, where);
  }

  // phase_begin / phase_end mark an application phase (a string literal) in the trace.
  void phase_begin(const char* name);
  void phase_end(const char* name);

  // charge_work declares that the current unit does `cycles` of work: on a simulated machine
  // with declared work that is the unit's virtual duration; on real cores it does nothing.
  void charge_work(std::uint64_t cycles) noexcept;

 private:
  friend class VssLanguage;
  Context(proto::VirtualProcessor& vp, detail::Task& task, std::size_t core_count) noexcept
      : vp_(vp), task_(task), core_count_(core_count) {}
  void submit_list(TaskBody& body, const Access* accesses, std::size_t count,
                   const TaskOptions& options, const Where& where);
  void wait_on(const Access& datum, const Where& where);
  void register_matrix(const void* matrix, std::size_t rows, std::size_t cols,
                       const std::string& name, const Where& where);
  // wait_for_children is the implicit taskwait that ends a task with submissions.
  void wait_for_children(const CallSite& site);
  void call(detail::Construct kind, void* payload, const CallSite& site);

  proto::VirtualProcessor& vp_;
  detail::Task& task_;  // the language's record of this task
  std::size_t core_count_;
  bool submitted_ = false;  // some submission since the last taskwait
};

}  // namespace moirai::vss

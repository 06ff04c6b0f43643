// VSs as a proto-runtime language plugin: its request handlers and the state they share.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "locality_assigner.h"
#include "moirai/proto_runtime/language_plugin.h"
#include "moirai/proto_runtime/run.h"
#include "moirai/proto_runtime/spin_lock.h"
#include "moirai/vss/context.h"
#include "moirai/vss/detail/requests.h"
#include "task.h"

namespace moirai::vss {

// VssLanguage implements every VSs construct as a request handler. A task's record (its
// meta-unit) is made by the submit handler; its VP is created only once its last dependence is
// satisfied, by a handler, and no sooner than the assigner's queues have room: a few VPs per
// core wait there, the other ready tasks wait as records in FIFO order and each handler tops
// the queues up. So stacks are held by running, blocked and a few queued tasks only (reused
// from the runtime's pool), however many tasks a loop submits. A task ends when its body returned and its own submissions ended
// (an implicit taskwait); its end satisfies its successors' dependences, records each as a
// constraint and frees those waiting on it.
//
// Its lock domains (domains()): dependence tracking by datum (a whole object, or one block of
// a registered matrix), whose key covers that datum's entries in every dependence domain, and
// the writers and readers those entries name. A submit names its data; a task's end names its
// data; a taskwait_on names the data it waits on; a taskwait names none; a register_blocks is
// alone (the whole language). What the handlers of different data share is kept safe
// otherwise: the counts and the waits where a task's end meets its successors, its parent or
// its waiters are atomics or small locks of the task record (task.h); the queues of ready tasks
// not started yet have a lock of their own; scratch space and default names are per core, task
// records too (under a lock per core); the registered matrices are sharded under small locks
// for domains(), which runs outside any runtime lock.
class VssLanguage final : public proto::LanguagePlugin {
 public:
  explicit VssLanguage(std::size_t core_count);
  ~VssLanguage() override;

  void vp_created(proto::VirtualProcessor& vp, CoreId core) override;
  void handle(proto::Request& request, proto::RuntimeServices& services) override;
  std::string describe_wait(const proto::Request& request) const override;
  bool names_domains() const noexcept override { return true; }
  proto::LockDomains domains(const proto::Request& request) const override;
  std::string describe_domain(LockDomain domain) const override;
  proto::Assigner& assigner() override { return assigner_; }

  // seed makes the seed task's record (named options.seed_name, submitted at `where`) and returns
  // the function its VP animates (proto::run); the next VP the runtime creates is that seed's.
  proto::VpFunction seed(TaskBody body, const proto::RunOptions& options, const CallSite& where);

 private:
  using Task = detail::Task;
  // Blocks is a matrix registered by register_blocks: its shape never changes once registered
  // (its name may, in a later register_blocks, which runs alone).
  struct Blocks {
    std::size_t rows = 0;
    std::size_t cols = 0;
    std::string name;
    std::uint64_t registration = 0;  // 1 for the first register_blocks of the run, 2, ...
  };
  // MatrixShard holds some of the registered matrices. Handlers read them without a lock (a
  // register_blocks, the only writer, runs alone); domains() reads them under the shard's lock.
  struct alignas(64) MatrixShard {
    mutable proto::SpinLock lock;
    std::unordered_map<const void*, Blocks> matrices;
  };
  static constexpr std::uint64_t kEveryRegistration = ~std::uint64_t{0};
  // SiteKey is a call site as the compiler gives it: its file name's address and its line.
  struct SiteKey {
    const char* file = nullptr;
    std::uint32_t line = 0;
    friend bool operator==(const SiteKey&, const SiteKey&) = default;
  };
  struct SiteKeyHash {
    std::size_t operator()(const SiteKey& key) const noexcept {
      return std::hash<const char*>{}(key.file) * 31 + key.line;
    }
  };
  // Resolved is a declared access turned into datum keys (a whole registered matrix: a key per
  // block), before the task exists.
  struct Resolved {
    detail::DatumKey key;
    Mode mode = Mode::in;
    const Access* access = nullptr;
  };

  static Task& task_of(const proto::VirtualProcessor& vp) {
    return *static_cast<Task*>(vp.language_slot);
  }
  proto::VpFunction wrap(Task& task) const;

  void submit(proto::Request& request, proto::RuntimeServices& services);
  void end(proto::Request& request, proto::RuntimeServices& services);
  void taskwait(proto::Request& request, proto::RuntimeServices& services);
  void taskwait_on(proto::Request& request, proto::RuntimeServices& services);
  void register_blocks(proto::Request& request, proto::RuntimeServices& services);
  // refuse fails `request` with `message` and makes its VP ready, so its construct throws.
  void refuse(proto::Request& request, proto::RuntimeServices& services, std::string message);

  // matrix is the matrix registered at `object` by one of the first `seen` register_blocks
  // calls, or nullptr.
  const Blocks* matrix(const void* object, std::uint64_t seen) const;
  // each_datum calls `f` with each datum `access` names, `blocks` being its matrix (nullptr:
  // none), until `f` returns false; false when it names none (a region of no matrix or outside).
  template <class F>
  static bool each_datum(const Access& access, const Blocks* blocks, F&& f);
  // name_data adds the lock domains of the data `access` names to `set` (domains()).
  void name_data(const Access& access, std::uint64_t seen, proto::LockDomains& set) const;
  // resolve appends the keys of `access` to `out`, or returns why it names no datum.
  std::string resolve(const Access& access, std::uint64_t seen, std::vector<Resolved>& out) const;
  // datum_name is what traces and messages call the datum of `key`, declared as `access`.
  std::string datum_name(const detail::DatumKey& key, const Access& access,
                         std::uint64_t seen = kEveryRegistration) const;
  // known_name is the datum's name as `caller` sees it: the one `access` gives, else one a
  // submission in its domain or around it gave, else the derived one.
  std::string known_name(const Task& caller, const detail::DatumKey& key, const Access& access,
                         std::uint64_t seen) const;
  // depend orders `task` after the earlier accesses to its datum in `datum` (in program order).
  void depend(Task& task, Mode mode, detail::Datum& datum);
  static void add_predecessor(Task& task, Task& predecessor, ConstructKind kind);
  // ready queues a task whose dependences are all satisfied, to start when there is room.
  void ready(Task& task);
  // top_up starts queued ready tasks while the assigner holds fewer VPs than its window.
  void top_up(proto::RuntimeServices& services);
  // start creates the VP of a ready task, records its constraints and hands it to the assigner.
  void start(Task& task, proto::RuntimeServices& services);
  // complete ends a task: releases its data, satisfies its successors, frees its waiters.
  void complete(Task& task, UnitId last_unit, proto::RuntimeServices& services);
  // release_wait makes a blocked task ready, `from`'s end having satisfied its wait.
  void release_wait(Task& waiter, UnitId from, proto::RuntimeServices& services);
  // begin_wait blocks `waiter` in `request` and names the wait's group for the trace.
  void begin_wait(Task& waiter, const proto::Request& request, proto::RuntimeServices& services);
  // find_writer looks for the unfinished last writer of `key` from `caller`'s submissions up
  // through its ancestors'; sets `misuse` when that writer is `caller` or an ancestor of it.
  Task* find_writer(Task& caller, const detail::DatumKey& key, const std::string& name,
                    std::string& misuse) const;
  std::string describe_task(const Task& task) const;

  // PerCore is what a core's handlers keep for themselves: the handlers of one core run one
  // at a time, those of different cores at once.
  struct alignas(64) PerCore {
    Task* starting = nullptr;         // the task whose VP this core is creating
    std::vector<Resolved> scratch;    // a submit's or taskwait_on's accesses, reused
    std::unordered_map<SiteKey, std::string, SiteKeyHash> default_names;
  };
  // Records are the task records a core made: those of the tasks submitted there and not ended
  // (freed by the destructor after a stopped run), and ended ones to reuse. A task ends on any
  // core and its record goes back to the core that made it, so a submitting core reuses records
  // rather than allocating what other cores free (both would queue for the allocator's arena):
  // a lock, held to link or unlink one.
  struct alignas(64) Records {
    proto::SpinLock lock;
    Task* live = nullptr;
    std::vector<Task*> spare;
  };

  // new_task takes one of `core`'s spare records (or allocates one) and lists it as alive;
  // free_task gives an ended task's record back, so a steady stream of submits allocates none.
  Task& new_task(CoreId core);
  void free_task(Task& task);
  // default_name is "task@FILE:LINE" for a submit at `site` with no name.
  static const std::string& default_name(PerCore& here, const CallSite& site);

  std::size_t core_count_;
  detail::LocalityAssigner assigner_;
  std::unique_ptr<PerCore[]> cores_;
  std::unique_ptr<Records[]> records_;
  static constexpr std::size_t kMatrixShards = 16;
  MatrixShard matrix_shards_[kMatrixShards];
  std::atomic<std::uint64_t> registrations_{0};  // register_blocks calls that registered a matrix
  std::atomic<std::uint64_t> next_group_{1};
  // Ready tasks without a VP yet, in the order they became ready: unpinned, and per core. One
  // FIFO for every core keeps that order, so it has a lock of its own, held to push or pop one
  // task; the counts let a handler see without it that none waits.
  alignas(64) proto::SpinLock unstarted_lock_;
  std::deque<Task*> unstarted_;
  std::vector<std::deque<Task*>> unstarted_pinned_;
  std::atomic<std::size_t> unstarted_count_{0};
  std::atomic<std::size_t> pinned_unstarted_{0};
  alignas(64) std::atomic<std::size_t> live_tasks_{0};  // submitted, not ended
  std::size_t window_;  // unpinned VPs the assigner may hold before tasks wait unstarted
  static constexpr std::size_t kPinnedWindow = 2;  // VPs pinned to one core it may hold
  // A submitter yields to queued tasks (rather than going on first) once the ready tasks
  // without a VP reach this many windows, or the live tasks this many per core.
  static constexpr std::size_t kThrottleWindows = 4;
  static constexpr std::size_t kLivePerCore = 512;
  static constexpr std::size_t kKeptTasks = 1024;  // per core
  static constexpr std::size_t kKeptBuckets = 64;
};

}  // namespace moirai::vss

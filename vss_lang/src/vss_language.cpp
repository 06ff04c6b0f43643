#include "vss_language.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <mutex>
#include <string>
#include <utility>

#include "moirai/proto_runtime/errors.h"
#include "moirai/proto_runtime/runtime.h"
#include "moirai/proto_runtime/virtual_processor.h"
#include "moirai/vss/cost_model.h"
#include "moirai/vss/run.h"

namespace moirai::vss {

using detail::Datum;
using detail::DatumKey;
using detail::Task;
using proto::Request;
using proto::RuntimeServices;
using proto::VirtualProcessor;

namespace {

bool reads(Mode mode) { return mode != Mode::out; }
bool writes(Mode mode) { return mode != Mode::in; }

const char* mode_name(Mode mode) {
  switch (mode) {
    case Mode::in: return "in";
    case Mode::out: return "out";
    case Mode::inout: return "inout";
  }
  return "?";
}

// strength ranks dependence kinds, so a pair of tasks ordered by several data records the
// strongest: a true dependence (RAW) over an output one (WAW) over an anti one (WAR).
int strength(ConstructKind kind) {
  return kind == detail::kDepRaw ? 3 : kind == detail::kDepWaw ? 2 : 1;
}

// short_site is "file.cpp:line", the base name only: default task names stay readable.
std::string short_site(const CallSite& site) {
  std::string path(site.file);
  const std::size_t slash = path.find_last_of('/');
  return (slash == std::string::npos ? path : path.substr(slash + 1)) + ":" +
         std::to_string(site.line);
}

std::string address(const void* object) {
  char text[32];
  std::snprintf(text, sizeof text, "%p", object);
  return text;
}

// Lock domain keys. A datum: bit 63, its object's address (47 bits) and its block index (16 bits,
// 0xFFFF for the whole object); a matrix of more blocks folds them, which only makes blocks
// share a key. describe_domain unpacks them.
constexpr LockDomain kDatumDomain = LockDomain{1} << 63;
constexpr LockDomain kAddressMask = (LockDomain{1} << 47) - 1;
constexpr LockDomain kBlockMask = 0xFFFF;

LockDomain datum_domain(const DatumKey& key) {
  const LockDomain block = key.block == kWholeObject ? kBlockMask : key.block % kBlockMask;
  return kDatumDomain | ((reinterpret_cast<std::uintptr_t>(key.object) & kAddressMask) << 16) | block;
}

// name_once adds `key` to `set` once (a task may declare blocks that share a key).
void name_once(proto::LockDomains& set, LockDomain key) {
  for (std::size_t k = 0; k < set.size(); ++k) {
    if (set[k] == key) return;
  }
  set.add(key);
}

template <class T>
void erase_one(std::vector<T*>& list, const T* item) {
  const auto found = std::find(list.begin(), list.end(), item);
  if (found == list.end()) return;
  *found = list.back();
  list.pop_back();
}

// language_table is VSs as data: its construct table, its default costs (cost_model) and its
// choices for the views and replay.
const proto::LanguageTable& language_table() {
  // The dependence kinds are never requested: they name the constraints a task's end records on
  // its successors. No colour is one of SSR's (red, blue, green3, purple, orange): a view of
  // either language reads alike. VSs's reports speak the paper's words, as SSR's do; a replay
  // lets any free core take the oldest ready task ("a free core beats locality").
  static const proto::LanguageTable table(
      "VSs",
      {
          {proto::kEndVp, {"end", ConstructRole::end, "gray50"}},
          {detail::kSubmit, {"submit", ConstructRole::create, "darkgoldenrod"}},
          {detail::kDepRaw, {"dep RAW", ConstructRole::dependence, "darkcyan"}},
          {detail::kDepWar, {"dep WAR", ConstructRole::dependence, "deeppink3"}},
          {detail::kDepWaw, {"dep WAW", ConstructRole::dependence, "olivedrab"}},
          {detail::kTaskwait, {"taskwait", ConstructRole::wait, "slategray4"}},
          {detail::kTaskwaitOn, {"taskwait_on", ConstructRole::wait, "sienna"}},
          {detail::kRegisterBlocks, {"register_blocks", ConstructRole::other, ""}},
      },
      cost_model(), {.placement = LanguagePlacement::any_core, .words = {}});
  return table;
}

}  // namespace

VssLanguage::VssLanguage(std::size_t core_count)
    : proto::LanguagePlugin(language_table()), core_count_(core_count), assigner_(core_count),
      cores_(std::make_unique<PerCore[]>(core_count)),
      records_(std::make_unique<Records[]>(core_count)), unstarted_pinned_(core_count),
      window_(2 * core_count + 2) {}

VssLanguage::~VssLanguage() {
  for (std::size_t core = 0; core < core_count_; ++core) {
    Records& records = records_[core];
    // Tasks of a stopped run (deadlock, exception) never reached their end.
    while (records.live != nullptr) delete std::exchange(records.live, records.live->next);
    for (Task* task : records.spare) delete task;
  }
}

Task& VssLanguage::new_task(CoreId core) {
  Records& records = records_[core];
  Task* task = nullptr;
  {
    const std::lock_guard guard(records.lock);
    if (!records.spare.empty()) {
      task = records.spare.back();
      records.spare.pop_back();
    }
  }
  if (task == nullptr) task = new Task;  // not under the lock: the allocator may take a while
  const std::lock_guard guard(records.lock);
  task->listed_on = core;
  task->previous = nullptr;
  task->next = records.live;
  if (records.live != nullptr) records.live->previous = task;
  records.live = task;
  return *task;
}

void VssLanguage::free_task(Task& task) {
  // A record whose domain grew large (a task that submitted many) is not worth keeping.
  bool keep = task.domain.bucket_count() <= kKeptBuckets;
  if (keep) task.recycle();  // not under the lock: it destroys the body's captures
  Records& records = records_[task.listed_on];
  {
    const std::lock_guard guard(records.lock);
    if (task.previous != nullptr) {
      task.previous->next = task.next;
    } else {
      records.live = task.next;
    }
    if (task.next != nullptr) task.next->previous = task.previous;
    keep = keep && records.spare.size() < kKeptTasks;
    if (keep) records.spare.push_back(&task);
  }
  if (!keep) delete &task;
}

const std::string& VssLanguage::default_name(PerCore& here, const CallSite& site) {
  // One string per call site (and core), built once: a loop of unnamed submits builds no name.
  std::string& name = here.default_names[SiteKey{site.file, site.line}];
  if (name.empty()) name = "task@" + short_site(site);
  return name;
}

void VssLanguage::vp_created(VirtualProcessor& vp, CoreId core) {
  PerCore& here = cores_[core];
  vp.language_slot = here.starting;
  here.starting->vp = &vp;
  here.starting = nullptr;
}

proto::VpFunction VssLanguage::wrap(Task& task) const {
  // Two words: fits VpFunction's inline storage, so starting a task allocates no callable.
  return [task = &task, cores = core_count_](VirtualProcessor& vp) {
    Context context(vp, *task, cores);
    task->body(context);
    if (context.submitted_) context.wait_for_children(task->submitted_at);
  };
}

proto::VpFunction VssLanguage::seed(TaskBody body, const proto::RunOptions& options, const CallSite& where) {
  // The runtime creates the seed's VP on core 0, before any handler runs.
  Task* root = &new_task(0);
  root->name = options.seed_name;
  root->submitted_at = where;
  root->body = std::move(body);
  cores_[0].starting = root;
  return wrap(*root);
}

// ---------------------------------------------------------------------------------------------
// lock domains
// ---------------------------------------------------------------------------------------------

proto::LockDomains VssLanguage::domains(const Request& request) const {
  proto::LockDomains set = proto::LockDomains::none();
  switch (request.kind) {
    case detail::kSubmit: {
      // The data it declares, in its submitter's dependence domain: the entries it orders the
      // new task by, and their writers and readers, whose successors it joins.
      auto& call = *static_cast<detail::Submit*>(request.payload);
      call.registrations = registrations_.load(std::memory_order_acquire);
      for (std::size_t i = 0; i < call.count && !set.whole(); ++i) {
        name_data(call.accesses[i], call.registrations, set);
      }
      return set;
    }
    case proto::kEndVp: {
      // The data it declared (fixed since its submit): it leaves their entries and satisfies
      // their successors. Its parent's count and its waiters' are met under their own locks.
      const Task* task = static_cast<const Task*>(request.requester->language_slot);
      if (task == nullptr) return set;
      for (const detail::Declared& declared : task->accesses) name_once(set, datum_domain(declared.key));
      return set;
    }
    case detail::kTaskwaitOn: {
      // The data it waits on (their writers, in its domain and those around it), and the whole
      // object's entry, which holds the name a submission gave it.
      auto& call = *static_cast<detail::TaskwaitOn*>(request.payload);
      call.registrations = registrations_.load(std::memory_order_acquire);
      if (call.datum->row == kWholeObject) name_once(set, datum_domain(DatumKey{call.datum->object, kWholeObject}));
      name_data(*call.datum, call.registrations, set);
      return set;
    }
    // A taskwait meets its children's ends under its task's wait_lock: had they named their
    // parent's domain, every end of a task's children would wait for the others' (in a loop
    // of submits, every end of the run).
    case detail::kTaskwait: return set;
    // register_blocks changes what every submit's regions mean, and is rare: alone.
    default: return proto::LockDomains::whole_language();
  }
}

void VssLanguage::name_data(const Access& access, std::uint64_t seen, proto::LockDomains& set) const {
  const Blocks* blocks = nullptr;
  if (seen != 0) {
    const MatrixShard& shard = matrix_shards_[std::hash<const void*>{}(access.object) % kMatrixShards];
    const std::lock_guard guard(shard.lock);
    blocks = matrix(access.object, seen);  // its shape stays fixed once registered
  }
  each_datum(access, blocks, [&set](const DatumKey& key) {
    name_once(set, datum_domain(key));
    return !set.whole();
  });
}

std::string VssLanguage::describe_domain(LockDomain domain) const {
  if ((domain & kDatumDomain) == 0) return {};
  // Called while the runtime holds the domain, so no register_blocks runs meanwhile.
  const auto* object = reinterpret_cast<const void*>(static_cast<std::uintptr_t>((domain >> 16) & kAddressMask));
  const LockDomain block = domain & kBlockMask;
  if (block == kBlockMask) return datum_name(DatumKey{object, kWholeObject}, Access{});
  const Blocks* blocks = matrix(object, kEveryRegistration);
  if (blocks != nullptr && blocks->rows * blocks->cols > kBlockMask) {
    return "a block of " + datum_name(DatumKey{object, kWholeObject}, Access{});  // folded
  }
  return "block " + datum_name(DatumKey{object, block}, Access{});
}


void VssLanguage::handle(Request& request, RuntimeServices& services) {
  switch (request.kind) {
    case proto::kEndVp: end(request, services); break;
    case detail::kSubmit: submit(request, services); break;
    case detail::kTaskwait: taskwait(request, services); break;
    case detail::kTaskwaitOn: taskwait_on(request, services); break;
    case detail::kRegisterBlocks: register_blocks(request, services); break;
    default: refuse(request, services, "unknown VSs construct " + std::to_string(request.kind));
  }
  top_up(services);
}

void VssLanguage::refuse(Request& request, RuntimeServices& services, std::string message) {
  services.fail(request, std::move(message));
  task_of(*request.requester).resume = Task::Resume::front;
  services.make_ready(*request.requester);
}

// ---------------------------------------------------------------------------------------------
// data
// ---------------------------------------------------------------------------------------------

const VssLanguage::Blocks* VssLanguage::matrix(const void* object, std::uint64_t seen) const {
  if (seen == 0) return nullptr;
  const MatrixShard& shard = matrix_shards_[std::hash<const void*>{}(object) % kMatrixShards];
  const auto found = shard.matrices.find(object);
  return found != shard.matrices.end() && found->second.registration <= seen ? &found->second
                                                                            : nullptr;
}

template <class F>
bool VssLanguage::each_datum(const Access& access, const Blocks* blocks, F&& f) {
  if (access.row == kWholeObject) {
    if (blocks == nullptr) {
      f(DatumKey{access.object, kWholeObject});
      return true;
    }
    // A whole registered matrix is every one of its blocks.
    for (std::size_t block = 0; block < blocks->rows * blocks->cols; ++block) {
      if (!f(DatumKey{access.object, block})) break;
    }
    return true;
  }
  if (blocks == nullptr || access.row >= blocks->rows || access.col >= blocks->cols) return false;
  f(DatumKey{access.object, access.row * blocks->cols + access.col});
  return true;
}

std::string VssLanguage::resolve(const Access& access, std::uint64_t seen,
                                 std::vector<Resolved>& out) const {
  const Blocks* blocks = matrix(access.object, seen);
  if (each_datum(access, blocks, [&](const DatumKey& key) {
        out.push_back(Resolved{key, access.mode, &access});
        return true;
      })) {
    return {};
  }
  const std::string where =
      "region (" + std::to_string(access.row) + "," + std::to_string(access.col) + ") of ";
  if (blocks == nullptr) {
    return where + "matrix@" + address(access.object) +
           ", which no register_blocks call registered";
  }
  return where + datum_name(DatumKey{access.object, kWholeObject}, Access{}, seen) +
         " lies outside its " + std::to_string(blocks->rows) + " x " +
         std::to_string(blocks->cols) + " blocks";
}

std::string VssLanguage::datum_name(const DatumKey& key, const Access& access,
                                    std::uint64_t seen) const {
  const Blocks* matrix_blocks = matrix(key.object, seen);
  if (matrix_blocks == nullptr) {
    return !access.name.empty() ? access.name : "datum@" + address(key.object);
  }
  const Blocks& blocks = *matrix_blocks;
  std::string base = !access.name.empty() && access.row == kWholeObject ? access.name
                     : !blocks.name.empty()                            ? blocks.name
                                                                       : "matrix@" + address(key.object);
  if (key.block == kWholeObject) return base;
  if (!access.name.empty() && access.row != kWholeObject) return access.name;  // a named region
  return base + "[" + std::to_string(key.block / blocks.cols) + "," +
         std::to_string(key.block % blocks.cols) + "]";
}

void VssLanguage::add_predecessor(Task& task, Task& predecessor, ConstructKind kind) {
  // One constraint per ordered pair: every call for `task` comes during its own submission, so
  // an earlier one for the same pair is the predecessor's last successor.
  if (!predecessor.successors.empty() && predecessor.successors.back().task == &task) {
    ConstructKind& known = task.dependences[predecessor.successors.back().dependence].kind;
    if (strength(kind) > strength(known)) known = kind;
    return;
  }
  predecessor.successors.push_back(detail::Successor{&task, task.dependences.size()});
  task.dependences.push_back(detail::Dependence{kind, 0});
}

void VssLanguage::depend(Task& task, Mode mode, Datum& datum) {
  if (writes(mode)) {
    if (!datum.readers.empty()) {  // the readers since the last write all come first
      for (Task* reader : datum.readers) add_predecessor(task, *reader, detail::kDepWar);
    } else if (datum.writer != nullptr) {
      add_predecessor(task, *datum.writer, reads(mode) ? detail::kDepRaw : detail::kDepWaw);
    }
    datum.readers.clear();
    datum.writer = &task;
    return;
  }
  if (datum.writer != nullptr) add_predecessor(task, *datum.writer, detail::kDepRaw);
  datum.readers.push_back(&task);
}

// ---------------------------------------------------------------------------------------------
// submit, start and end
// ---------------------------------------------------------------------------------------------

void VssLanguage::submit(Request& request, RuntimeServices& services) {
  const auto& call = *static_cast<const detail::Submit*>(request.payload);
  Task& parent = task_of(*request.requester);
  PerCore& here = cores_[services.core()];
  const TaskOptions& options = *call.options;
  const std::string& name = options.name.empty() ? default_name(here, request.site) : options.name;
  if (options.core != kAnyCore && options.core >= core_count_) {
    return refuse(request, services,
                  "submit: cannot pin task '" + name + "' to core " + std::to_string(options.core) +
                      ": the run has " + std::to_string(core_count_) + " cores (0.." +
                      std::to_string(core_count_ - 1) + ")");
  }
  if (options.stack_size != 0 && options.stack_size < proto::kMinStackSize) {
    return refuse(request, services,
                  "submit: task '" + name + "' asks for a stack of " +
                      std::to_string(options.stack_size) + " bytes, below the " +
                      std::to_string(proto::kMinStackSize / 1024) + " KiB minimum");
  }
  std::vector<Resolved>& scratch = here.scratch;
  scratch.clear();
  for (std::size_t i = 0; i < call.count; ++i) {
    if (std::string error = resolve(call.accesses[i], call.registrations, scratch); !error.empty()) {
      return refuse(request, services, "submit of task '" + name + "': " + error);
    }
  }
  if (scratch.size() > 1) {  // a datum declared twice must agree with itself
    // A stable insertion sort: a submit declares a few data, and std::stable_sort would
    // allocate its buffer at every submit.
    for (auto it = scratch.begin() + 1; it != scratch.end(); ++it) {
      if (!(it->key < (it - 1)->key)) continue;
      Resolved moved = *it;
      auto hole = it;
      do {
        *hole = *(hole - 1);
        --hole;
      } while (hole != scratch.begin() && moved.key < (hole - 1)->key);
      *hole = moved;
    }
    auto kept = scratch.begin();
    for (auto it = scratch.begin() + 1; it != scratch.end(); ++it) {
      if (!(it->key == kept->key)) {
        *++kept = *it;
        continue;
      }
      if (it->mode != kept->mode) {
        return refuse(request, services,
                      "submit of task '" + name + "': datum '" +
                          datum_name(kept->key, *kept->access, call.registrations) +
                          "' is declared both " +
                          mode_name(kept->mode) + " and " + mode_name(it->mode) +
                          "; declare it once (inout to read and write it)");
      }
    }
    scratch.erase(kept + 1, scratch.end());
  }

  // The new task is this handler's alone until it joins its predecessors' successors (under
  // the domains of the data it shares with them) or the queue of ready tasks.
  Task* task = &new_task(services.core());
  task->name = name;
  task->submitted_at = request.site;
  task->core = options.core;
  task->stack_size = options.stack_size;
  task->body = std::move(*call.body);
  task->parent = &parent;
  task->submit_unit = request.unit;
  task->accesses.reserve(scratch.size());
  for (const Resolved& resolved : scratch) {
    Datum& datum = parent.datum(resolved.key);
    if (const std::string& given = resolved.access->name; !given.empty()) {
      // A named whole object keeps its given name: only assign it when it changes.
      if (resolved.key.block != kWholeObject) {
        datum.name = datum_name(resolved.key, *resolved.access, call.registrations);
      } else if (datum.name != given) {
        datum.name = given;
      }
    }
    depend(*task, resolved.mode, datum);
    task->accesses.push_back(detail::Declared{resolved.key, resolved.mode, &datum});
  }
  // Its predecessors' ends count it down from here (once this handler releases their data).
  task->unsatisfied.store(task->dependences.size(), std::memory_order_relaxed);
  {
    const std::lock_guard guard(parent.wait_lock);
    ++parent.live_children;
  }
  const std::size_t live = live_tasks_.fetch_add(1, std::memory_order_relaxed) + 1;
  if (task->dependences.empty()) ready(*task);
  // Help first, unless ready tasks pile up or too many are alive: then the submitter queues
  // behind them, which bounds the records a submitting loop makes ahead of the cores. (The
  // counts move under other cores' handlers meanwhile: the bound is approximate.)
  const bool throttled = unstarted_count_.load(std::memory_order_relaxed) +
                                 pinned_unstarted_.load(std::memory_order_relaxed) >=
                             kThrottleWindows * window_ ||
                         live >= kLivePerCore * core_count_;
  parent.resume = throttled ? Task::Resume::back : Task::Resume::front;
  services.make_ready(*request.requester);
}

void VssLanguage::ready(Task& task) {
  const std::lock_guard guard(unstarted_lock_);
  if (task.core == kAnyCore) {
    unstarted_.push_back(&task);
    unstarted_count_.store(unstarted_.size(), std::memory_order_relaxed);
  } else {
    unstarted_pinned_[task.core].push_back(&task);
    pinned_unstarted_.store(pinned_unstarted_.load(std::memory_order_relaxed) + 1,
                            std::memory_order_relaxed);
  }
}

void VssLanguage::top_up(RuntimeServices& services) {
  // Handlers on several cores top up at once, and each sees the assigner's counts as they are:
  // together they may start a task or two past a window, never leave a ready task behind (the
  // handler that queued it tops up after).
  while (unstarted_count_.load(std::memory_order_relaxed) != 0 && assigner_.stealable() < window_) {
    Task* task = nullptr;
    {
      const std::lock_guard guard(unstarted_lock_);
      if (unstarted_.empty()) break;
      task = unstarted_.front();
      unstarted_.pop_front();
      unstarted_count_.store(unstarted_.size(), std::memory_order_relaxed);
    }
    start(*task, services);
  }
  if (pinned_unstarted_.load(std::memory_order_relaxed) == 0) return;
  for (CoreId core = 0; core < unstarted_pinned_.size(); ++core) {
    while (assigner_.pinned(core) < kPinnedWindow) {
      Task* task = nullptr;
      {
        const std::lock_guard guard(unstarted_lock_);
        std::deque<Task*>& waiting = unstarted_pinned_[core];
        if (waiting.empty()) break;
        task = waiting.front();
        waiting.pop_front();
        pinned_unstarted_.store(pinned_unstarted_.load(std::memory_order_relaxed) - 1,
                                std::memory_order_relaxed);
      }
      start(*task, services);
    }
  }
}

void VssLanguage::start(Task& task, RuntimeServices& services) {
  // The core that last wrote most of its inputs is the assigner's first choice.
  if (task.parent != nullptr) {
    std::array<CoreId, 16> cores{};
    std::size_t known = 0;
    for (const detail::Declared& declared : task.accesses) {
      if (!reads(declared.mode) || known == cores.size()) continue;
      const CoreId core = declared.datum->writer_core.load(std::memory_order_relaxed);
      if (core != kAnyCore) cores[known++] = core;
    }
    std::size_t best_votes = 0;
    for (std::size_t i = 0; i < known; ++i) {
      const auto votes = static_cast<std::size_t>(std::count(cores.begin(), cores.begin() + known, cores[i]));
      if (votes > best_votes) {
        best_votes = votes;
        task.affinity = cores[i];
      }
    }
  }
  cores_[services.core()].starting = &task;
  VirtualProcessor& vp = services.create_vp(
      wrap(task), proto::VpOptions{task.name, task.core, task.stack_size}, task.submitted_at);
  services.record_constraint(detail::kSubmit, task.submit_unit, vp.unit());
  for (const detail::Dependence& dependence : task.dependences) {
    services.record_constraint(dependence.kind, dependence.from, vp.unit());
  }
  task.dependences.clear();
  services.make_ready(vp);
}

void VssLanguage::end(Request& request, RuntimeServices& services) {
  Task& task = task_of(*request.requester);
  request.requester->language_slot = nullptr;
  task.vp = nullptr;
  assigner_.freed(services.core());
  // Submissions still alive means its body threw past the implicit taskwait: the run stops,
  // and the record stays for those submissions until the destructor.
  {
    const std::lock_guard guard(task.wait_lock);
    if (task.live_children > 0) return;
  }
  complete(task, request.unit, services);
}

void VssLanguage::complete(Task& task, UnitId last_unit, RuntimeServices& services) {
  Task* parent = task.parent;
  if (parent != nullptr) {
    for (const detail::Declared& declared : task.accesses) {
      Datum& datum = *declared.datum;
      if (datum.writer == &task) {
        datum.writer = nullptr;
        datum.writer_core.store(services.core(), std::memory_order_relaxed);
      } else if (!writes(declared.mode)) {
        erase_one(datum.readers, &task);
      }
    }
  }
  // A successor's other predecessors (of other data) end at the same time: each writes its own
  // entry, and the last to count down (acquiring the others' entries) makes it ready.
  for (const detail::Successor& successor : task.successors) {
    Task& next = *successor.task;
    next.dependences[successor.dependence].from = last_unit;
    if (next.unsatisfied.fetch_sub(1, std::memory_order_acq_rel) == 1) ready(next);
  }
  for (Task* waiter : task.waiters) {
    std::uint64_t group = 0;
    bool last = false;
    {
      const std::lock_guard guard(waiter->wait_lock);  // its other writers end at the same time
      erase_one(waiter->awaited, &task);
      group = waiter->wait_group;
      last = waiter->awaited.empty();
    }
    services.record_group_member(group, kGroupSource, last_unit);
    if (last) release_wait(*waiter, last_unit, services);
  }
  if (parent != nullptr) {
    // The last access to the parent: once counted, the parent may end (on another core).
    std::uint64_t group = 0;
    bool waiting = false;
    bool last = false;
    {
      const std::lock_guard guard(parent->wait_lock);
      --parent->live_children;
      waiting = parent->waits_for_children;
      if (waiting) group = parent->wait_group;  // else a taskwait_on's, not this lock's
      last = waiting && parent->live_children == 0;
      if (last) parent->waits_for_children = false;
    }
    if (waiting) services.record_group_member(group, kGroupSource, last_unit);
    if (last) release_wait(*parent, last_unit, services);
    live_tasks_.fetch_sub(1, std::memory_order_relaxed);
  }
  free_task(task);
}

// ---------------------------------------------------------------------------------------------
// taskwait and taskwait_on
// ---------------------------------------------------------------------------------------------

void VssLanguage::begin_wait(Task& waiter, const Request& request, RuntimeServices& services) {
  waiter.wait = &request;
  assigner_.freed(services.core());  // the waiter leaves its core free
  if (!services.recording()) return;
  waiter.wait_group = next_group_.fetch_add(1, std::memory_order_relaxed);
  services.define_group(waiter.wait_group, request.kind,
                        request.kind == detail::kTaskwait
                            ? "taskwait in '" + waiter.name + "'"
                            : "taskwait_on '" + waiter.wait_datum + "' in '" + waiter.name + "'");
  services.record_group_member(waiter.wait_group, kGroupSink, request.requester->unit());
}

void VssLanguage::release_wait(Task& waiter, UnitId from, RuntimeServices& services) {
  services.record_constraint(waiter.wait->kind, from, waiter.vp->unit());
  waiter.wait = nullptr;
  waiter.wait_group = 0;
  services.make_ready(*waiter.vp);
}

void VssLanguage::taskwait(Request& request, RuntimeServices& services) {
  Task& task = task_of(*request.requester);
  // Under the task's wait_lock the whole time: a child that ends meanwhile either ended before
  // (and is not counted) or finds the wait begun, its group defined, and counts itself in it.
  std::unique_lock guard(task.wait_lock);
  if (task.live_children == 0) {
    guard.unlock();
    task.resume = Task::Resume::front;
    services.make_ready(*request.requester);
    return;
  }
  task.waits_for_children = true;
  begin_wait(task, request, services);
}

std::string VssLanguage::known_name(const Task& caller, const DatumKey& key, const Access& access,
                                    std::uint64_t seen) const {
  if (access.name.empty()) {  // the name a submission gave it, in this domain or one around it
    for (const Task* level = &caller; level != nullptr; level = level->parent) {
      const Datum* found = level->find(key);
      if (found != nullptr && !found->name.empty()) return found->name;
    }
  }
  return datum_name(key, access, seen);
}

Task* VssLanguage::find_writer(Task& caller, const DatumKey& key, const std::string& name,
                               std::string& misuse) const {
  for (Task* level = &caller;; level = level->parent) {
    const Datum* found = level->find(key);
    if (found != nullptr && found->writer != nullptr) return found->writer;
    if (level->parent == nullptr) return nullptr;
    const auto declared = std::find_if(level->accesses.begin(), level->accesses.end(),
                                       [&key](const detail::Declared& d) { return d.key == key; });
    if (declared == level->accesses.end()) continue;
    if (!writes(declared->mode)) return nullptr;  // an input: written before `level` started
    if (level == &caller) {
      misuse = "task '" + caller.name + "' declared '" + name + "' as " +
               mode_name(declared->mode) +
               ": it is that datum's pending writer itself and would wait for its own end";
    } else {
      misuse = "'" + name + "' is written by task '" + level->name + "', inside which task '" +
               caller.name + "' runs: '" + level->name + "' ends only after it";
    }
    return nullptr;
  }
}

void VssLanguage::taskwait_on(Request& request, RuntimeServices& services) {
  const auto& call = *static_cast<const detail::TaskwaitOn*>(request.payload);
  const Access& access = *call.datum;
  Task& task = task_of(*request.requester);
  std::vector<Resolved>& scratch = cores_[services.core()].scratch;
  scratch.clear();
  if (std::string error = resolve(access, call.registrations, scratch); !error.empty()) {
    return refuse(request, services, "taskwait_on: " + error);
  }
  const std::string name = known_name(
      task, access.row == kWholeObject ? DatumKey{access.object, kWholeObject} : scratch.front().key,
      access, call.registrations);
  // The writers' ends wait for this handler's data, so none ends (and touches `awaited`) before
  // the wait has begun.
  for (const Resolved& resolved : scratch) {
    std::string misuse;
    Task* writer = find_writer(task, resolved.key, name, misuse);
    if (!misuse.empty()) {
      task.awaited.clear();
      return refuse(request, services, "taskwait_on: " + misuse);
    }
    if (writer != nullptr &&
        std::find(task.awaited.begin(), task.awaited.end(), writer) == task.awaited.end()) {
      task.awaited.push_back(writer);
    }
  }
  if (task.awaited.empty()) {  // no task writes it (any more)
    task.resume = Task::Resume::front;
    services.make_ready(*request.requester);
    return;
  }
  task.wait_datum = name;
  for (Task* writer : task.awaited) writer->waiters.push_back(&task);
  begin_wait(task, request, services);
}

void VssLanguage::register_blocks(Request& request, RuntimeServices& services) {
  const auto& call = *static_cast<const detail::RegisterBlocks*>(request.payload);
  const std::string& name = *call.name;
  const std::string shown = name.empty() ? "matrix@" + address(call.matrix) : "'" + name + "'";
  if (call.rows == 0 || call.cols == 0) {
    return refuse(request, services,
                  "register_blocks: " + shown + " cut into " + std::to_string(call.rows) + " x " +
                      std::to_string(call.cols) + " blocks has no block");
  }
  // Accesses to it as a whole object would not order against accesses to its blocks.
  const Task& caller = task_of(*request.requester);
  if (const Datum* whole = caller.find(DatumKey{call.matrix, kWholeObject});
      whole != nullptr && (whole->writer != nullptr || !whole->readers.empty())) {
    return refuse(request, services,
                  "register_blocks: " + shown +
                      " is accessed as a whole object by tasks not ended yet; register it before "
                      "submitting tasks that use it");
  }
  // Alone (the whole language), but domains() reads the shard meanwhile: under its lock. A new
  // matrix counts for requests whose domains are named from the next registration number on.
  MatrixShard& shard = matrix_shards_[std::hash<const void*>{}(call.matrix) % kMatrixShards];
  std::unique_lock guard(shard.lock);
  const std::uint64_t registration = registrations_.load(std::memory_order_relaxed) + 1;
  const auto [entry, fresh] =
      shard.matrices.try_emplace(call.matrix, Blocks{call.rows, call.cols, name, registration});
  if (fresh) registrations_.store(registration, std::memory_order_release);
  if (!fresh) {
    Blocks& blocks = entry->second;
    if (blocks.rows != call.rows || blocks.cols != call.cols) {
      const std::string registered = std::to_string(blocks.rows) + " x " + std::to_string(blocks.cols);
      guard.unlock();
      return refuse(request, services,
                    "register_blocks: " + shown + " is registered already as " + registered +
                        " blocks, not " + std::to_string(call.rows) + " x " +
                        std::to_string(call.cols));
    }
    if (!name.empty()) blocks.name = name;
  }
  guard.unlock();
  task_of(*request.requester).resume = Task::Resume::front;
  services.make_ready(*request.requester);
}

// ---------------------------------------------------------------------------------------------
// deadlock reports
// ---------------------------------------------------------------------------------------------

std::string VssLanguage::describe_task(const Task& task) const {
  std::string text = "task '" + task.name + "' (submitted at " + proto::format_site(task.submitted_at);
  const std::size_t unsatisfied = task.unsatisfied.load(std::memory_order_relaxed);
  if (task.vp == nullptr && unsatisfied == 0) {
    text += ", ready, not started yet";
  } else if (task.vp == nullptr) {
    text += ", not started: it waits for " + std::to_string(unsatisfied) +
            (unsatisfied == 1 ? " task" : " tasks") + " to end";
  } else if (task.wait != nullptr) {
    text += ", blocked in " + std::string(construct_name(task.wait->kind));
  }
  return text + ")";
}

std::string VssLanguage::describe_wait(const Request& request) const {
  const Task* task = static_cast<const Task*>(request.requester->language_slot);
  if (task == nullptr) return {};
  switch (request.kind) {
    case detail::kTaskwait:
      return std::to_string(task->live_children) +
             (task->live_children == 1 ? " task" : " tasks") + " it submitted to end" +
             (static_cast<const detail::Taskwait*>(request.payload)->implicit
                  ? " (the implicit taskwait at the end of its body)"
                  : "");
    case detail::kTaskwaitOn: {
      std::string text = "datum '" + task->wait_datum + "' to be written by ";
      for (std::size_t i = 0; i < task->awaited.size(); ++i) {
        if (i != 0) text += ", ";
        text += describe_task(*task->awaited[i]);
      }
      return text;
    }
    default: return {};
  }
}

// The typed entry points (run.h): the proto-runtime's run, with VssLanguage as the language.
proto::RunStats run(proto::Machine& machine, TaskBody seed, const RunOptions& options, std::source_location where) {
  return proto::run<VssLanguage>(machine, std::move(seed), options, CallSite::from(where));
}
proto::RunStats run(TaskBody seed, const RunOptions& options, std::source_location where) {
  return proto::run<VssLanguage>(std::move(seed), options, CallSite::from(where));
}

}  // namespace moirai::vss

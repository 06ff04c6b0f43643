#include "vss_language.h"

#include <algorithm>
#include <array>
#include <cstdio>
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

template <class T>
void erase_one(std::vector<T*>& list, const T* item) {
  const auto found = std::find(list.begin(), list.end(), item);
  if (found == list.end()) return;
  *found = list.back();
  list.pop_back();
}

// language_table is VSs as data: its construct table and its default costs (cost_model).
const proto::LanguageTable& language_table() {
  // The dependence kinds are never requested: they name the constraints a task's end records on
  // its successors. No colour is one of SSR's (red, blue, green3, purple, orange): a view of
  // either language reads alike.
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
      cost_model());
  return table;
}

}  // namespace

VssLanguage::VssLanguage(std::size_t core_count)
    : proto::LanguagePlugin(language_table()), core_count_(core_count), assigner_(core_count),
      unstarted_pinned_(core_count), window_(2 * core_count + 2) {}

VssLanguage::~VssLanguage() {
  // Tasks of a stopped run (deadlock, exception) never reached their end.
  while (tasks_ != nullptr) {
    Task* task = tasks_;
    tasks_ = task->next;
    delete task;
  }
  for (Task* task : free_tasks_) delete task;
}

Task& VssLanguage::new_task() {
  if (free_tasks_.empty()) return *new Task;
  Task* task = free_tasks_.back();
  free_tasks_.pop_back();
  return *task;
}

void VssLanguage::free_task(Task& task) {
  // A record whose domain grew large (a task that submitted many) is not worth keeping.
  if (free_tasks_.size() >= kKeptTasks || task.domain.bucket_count() > kKeptBuckets) {
    delete &task;
    return;
  }
  task.recycle();
  free_tasks_.push_back(&task);
}

const std::string& VssLanguage::default_name(const CallSite& site) {
  // One string per call site, built once: a loop of unnamed submits builds no name.
  std::string& name = default_names_[SiteKey{site.file, site.line}];
  if (name.empty()) name = "task@" + short_site(site);
  return name;
}

void VssLanguage::link(Task& task) {
  task.next = tasks_;
  if (tasks_ != nullptr) tasks_->previous = &task;
  tasks_ = &task;
}

void VssLanguage::unlink(Task& task) {
  if (task.previous != nullptr) {
    task.previous->next = task.next;
  } else {
    tasks_ = task.next;
  }
  if (task.next != nullptr) task.next->previous = task.previous;
}

void VssLanguage::vp_created(VirtualProcessor& vp, CoreId /*core*/) {
  vp.language_slot = starting_;
  starting_->vp = &vp;
  starting_ = nullptr;
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
  Task* root = &new_task();
  root->name = options.seed_name;
  root->submitted_at = where;
  root->body = std::move(body);
  link(*root);
  starting_ = root;
  return wrap(*root);
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

std::string VssLanguage::resolve(const Access& access, std::vector<Resolved>& out) const {
  const auto matrix = matrices_.find(access.object);
  if (access.row == kWholeObject) {
    if (matrix == matrices_.end()) {
      out.push_back(Resolved{DatumKey{access.object, kWholeObject}, access.mode, &access});
      return {};
    }
    // A whole registered matrix is every one of its blocks.
    const std::size_t blocks = matrix->second.rows * matrix->second.cols;
    for (std::size_t block = 0; block < blocks; ++block) {
      out.push_back(Resolved{DatumKey{access.object, block}, access.mode, &access});
    }
    return {};
  }
  const std::string where =
      "region (" + std::to_string(access.row) + "," + std::to_string(access.col) + ") of ";
  if (matrix == matrices_.end()) {
    return where + "matrix@" + address(access.object) +
           ", which no register_blocks call registered";
  }
  const Blocks& blocks = matrix->second;
  if (access.row >= blocks.rows || access.col >= blocks.cols) {
    return where + datum_name(DatumKey{access.object, kWholeObject}, Access{}) +
           " lies outside its " + std::to_string(blocks.rows) + " x " +
           std::to_string(blocks.cols) + " blocks";
  }
  out.push_back(
      Resolved{DatumKey{access.object, access.row * blocks.cols + access.col}, access.mode, &access});
  return {};
}

std::string VssLanguage::datum_name(const DatumKey& key, const Access& access) const {
  const auto matrix = matrices_.find(key.object);
  if (matrix == matrices_.end()) {
    return !access.name.empty() ? access.name : "datum@" + address(key.object);
  }
  const Blocks& blocks = matrix->second;
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
    detail::Successor& known = predecessor.successors.back();
    if (strength(kind) > strength(known.kind)) known.kind = kind;
    return;
  }
  predecessor.successors.push_back(detail::Successor{&task, kind});
  ++task.unsatisfied;
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
  const TaskOptions& options = *call.options;
  const std::string& name = options.name.empty() ? default_name(request.site) : options.name;
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
  scratch_.clear();
  for (std::size_t i = 0; i < call.count; ++i) {
    if (std::string error = resolve(call.accesses[i], scratch_); !error.empty()) {
      return refuse(request, services, "submit of task '" + name + "': " + error);
    }
  }
  if (scratch_.size() > 1) {  // a datum declared twice must agree with itself
    // A stable insertion sort: a submit declares a few data, and std::stable_sort would
    // allocate its buffer at every submit.
    for (auto it = scratch_.begin() + 1; it != scratch_.end(); ++it) {
      if (!(it->key < (it - 1)->key)) continue;
      Resolved moved = *it;
      auto hole = it;
      do {
        *hole = *(hole - 1);
        --hole;
      } while (hole != scratch_.begin() && moved.key < (hole - 1)->key);
      *hole = moved;
    }
    auto kept = scratch_.begin();
    for (auto it = scratch_.begin() + 1; it != scratch_.end(); ++it) {
      if (!(it->key == kept->key)) {
        *++kept = *it;
        continue;
      }
      if (it->mode != kept->mode) {
        return refuse(request, services,
                      "submit of task '" + name + "': datum '" +
                          datum_name(kept->key, *kept->access) + "' is declared both " +
                          mode_name(kept->mode) + " and " + mode_name(it->mode) +
                          "; declare it once (inout to read and write it)");
      }
    }
    scratch_.erase(kept + 1, scratch_.end());
  }

  Task* task = &new_task();
  task->name = name;
  task->submitted_at = request.site;
  task->core = options.core;
  task->stack_size = options.stack_size;
  task->body = std::move(*call.body);
  task->parent = &parent;
  task->submit_unit = request.unit;
  task->accesses.reserve(scratch_.size());
  for (const Resolved& resolved : scratch_) {
    Datum& datum = parent.domain[resolved.key];
    if (const std::string& given = resolved.access->name; !given.empty()) {
      // A named whole object keeps its given name: only assign it when it changes.
      if (resolved.key.block != kWholeObject || matrices_.contains(resolved.key.object)) {
        datum.name = datum_name(resolved.key, *resolved.access);
      } else if (datum.name != given) {
        datum.name = given;
      }
    }
    depend(*task, resolved.mode, datum);
    task->accesses.push_back(detail::Declared{resolved.key, resolved.mode, &datum});
  }
  ++parent.live_children;
  link(*task);
  if (task->unsatisfied == 0) ready(*task);
  ++live_tasks_;
  // Help first, unless ready tasks pile up or too many are alive: then the submitter queues
  // behind them, which bounds the records a submitting loop makes ahead of the cores.
  const bool throttled = unstarted_.size() + pinned_unstarted_ >= kThrottleWindows * window_ ||
                         live_tasks_ >= kLivePerCore * core_count_;
  parent.resume = throttled ? Task::Resume::back : Task::Resume::front;
  services.make_ready(*request.requester);
}

void VssLanguage::ready(Task& task) {
  if (task.core == kAnyCore) {
    unstarted_.push_back(&task);
  } else {
    unstarted_pinned_[task.core].push_back(&task);
    ++pinned_unstarted_;
  }
}

void VssLanguage::top_up(RuntimeServices& services) {
  while (!unstarted_.empty() && assigner_.stealable() < window_) {
    Task* task = unstarted_.front();
    unstarted_.pop_front();
    start(*task, services);
  }
  if (pinned_unstarted_ == 0) return;
  for (CoreId core = 0; core < unstarted_pinned_.size(); ++core) {
    std::deque<Task*>& waiting = unstarted_pinned_[core];
    while (!waiting.empty() && assigner_.pinned(core) < kPinnedWindow) {
      Task* task = waiting.front();
      waiting.pop_front();
      --pinned_unstarted_;
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
      const CoreId core = declared.datum->writer_core;
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
  starting_ = &task;
  VirtualProcessor& vp = services.create_vp(
      wrap(task), proto::VpOptions{task.name, task.core, task.stack_size}, task.submitted_at);
  services.record_constraint(detail::kSubmit, task.submit_unit, vp.unit());
  for (const detail::Satisfied& satisfied : task.satisfied) {
    services.record_constraint(satisfied.kind, satisfied.from, vp.unit());
  }
  task.satisfied.clear();
  services.make_ready(vp);
}

void VssLanguage::end(Request& request, RuntimeServices& services) {
  Task& task = task_of(*request.requester);
  request.requester->language_slot = nullptr;
  task.vp = nullptr;
  assigner_.freed(services.core());
  // Submissions still alive means its body threw past the implicit taskwait: the run stops,
  // and the record stays for those submissions until the destructor.
  if (task.live_children > 0) return;
  complete(task, request.unit, services);
}

void VssLanguage::complete(Task& task, UnitId last_unit, RuntimeServices& services) {
  Task* parent = task.parent;
  if (parent != nullptr) {
    for (const detail::Declared& declared : task.accesses) {
      Datum& datum = *declared.datum;
      if (datum.writer == &task) {
        datum.writer = nullptr;
        datum.writer_core = services.core();
      } else if (!writes(declared.mode)) {
        erase_one(datum.readers, &task);
      }
    }
  }
  for (const detail::Successor& successor : task.successors) {
    Task& next = *successor.task;
    next.satisfied.push_back(detail::Satisfied{successor.kind, last_unit});
    if (--next.unsatisfied == 0) ready(next);
  }
  for (Task* waiter : task.waiters) {
    erase_one(waiter->awaited, &task);
    services.record_group_member(waiter->wait_group, kGroupSource, last_unit);
    if (waiter->awaited.empty()) release_wait(*waiter, last_unit, services);
  }
  if (parent != nullptr) {
    --parent->live_children;
    if (parent->wait != nullptr && parent->wait->kind == detail::kTaskwait) {
      services.record_group_member(parent->wait_group, kGroupSource, last_unit);
      if (parent->live_children == 0) release_wait(*parent, last_unit, services);
    }
  }
  if (parent != nullptr) --live_tasks_;
  unlink(task);
  free_task(task);
}

// ---------------------------------------------------------------------------------------------
// taskwait and taskwait_on
// ---------------------------------------------------------------------------------------------

void VssLanguage::begin_wait(Task& waiter, const Request& request, RuntimeServices& services) {
  waiter.wait = &request;
  assigner_.freed(services.core());  // the waiter leaves its core free
  if (!services.recording()) return;
  waiter.wait_group = next_group_++;
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
  if (task.live_children == 0) {
    task.resume = Task::Resume::front;
    services.make_ready(*request.requester);
    return;
  }
  begin_wait(task, request, services);
}

std::string VssLanguage::known_name(const Task& caller, const DatumKey& key,
                                    const Access& access) const {
  if (access.name.empty()) {  // the name a submission gave it, in this domain or one around it
    for (const Task* level = &caller; level != nullptr; level = level->parent) {
      const auto found = level->domain.find(key);
      if (found != level->domain.end() && !found->second.name.empty()) return found->second.name;
    }
  }
  return datum_name(key, access);
}

Task* VssLanguage::find_writer(Task& caller, const DatumKey& key, const std::string& name,
                               std::string& misuse) const {
  for (Task* level = &caller;; level = level->parent) {
    const auto found = level->domain.find(key);
    if (found != level->domain.end() && found->second.writer != nullptr) return found->second.writer;
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
  const Access& access = *static_cast<const detail::TaskwaitOn*>(request.payload)->datum;
  Task& task = task_of(*request.requester);
  scratch_.clear();
  if (std::string error = resolve(access, scratch_); !error.empty()) {
    return refuse(request, services, "taskwait_on: " + error);
  }
  const std::string name = known_name(
      task, access.row == kWholeObject ? DatumKey{access.object, kWholeObject} : scratch_.front().key,
      access);
  for (const Resolved& resolved : scratch_) {
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
  if (const auto whole = caller.domain.find(DatumKey{call.matrix, kWholeObject});
      whole != caller.domain.end() && (whole->second.writer != nullptr || !whole->second.readers.empty())) {
    return refuse(request, services,
                  "register_blocks: " + shown +
                      " is accessed as a whole object by tasks not ended yet; register it before "
                      "submitting tasks that use it");
  }
  const auto [entry, fresh] = matrices_.try_emplace(call.matrix, Blocks{call.rows, call.cols, name});
  if (!fresh) {
    Blocks& blocks = entry->second;
    if (blocks.rows != call.rows || blocks.cols != call.cols) {
      return refuse(request, services,
                    "register_blocks: " + shown + " is registered already as " +
                        std::to_string(blocks.rows) + " x " + std::to_string(blocks.cols) +
                        " blocks, not " + std::to_string(call.rows) + " x " +
                        std::to_string(call.cols));
    }
    if (!name.empty()) blocks.name = name;
  }
  task_of(*request.requester).resume = Task::Resume::front;
  services.make_ready(*request.requester);
}

// ---------------------------------------------------------------------------------------------
// deadlock reports
// ---------------------------------------------------------------------------------------------

std::string VssLanguage::describe_task(const Task& task) const {
  std::string text = "task '" + task.name + "' (submitted at " + proto::format_site(task.submitted_at);
  if (task.vp == nullptr && task.unsatisfied == 0) {
    text += ", ready, not started yet";
  } else if (task.vp == nullptr) {
    text += ", not started: it waits for " + std::to_string(task.unsatisfied) +
            (task.unsatisfied == 1 ? " task" : " tasks") + " to end";
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

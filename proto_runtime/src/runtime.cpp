#include "moirai/proto_runtime/runtime.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "moirai/proto_runtime/errors.h"
#include "fiber_stack.h"
#include "runtime_lock.h"

namespace moirai::proto {

// ---------------------------------------------------------------------------------------------
// State
// ---------------------------------------------------------------------------------------------

namespace {

// CoreState is what one core's scheduler loop keeps between steps; only its own thread
// touches it, and the alignment keeps cores off each other's cache lines.
struct alignas(64) CoreState {
  VirtualProcessor* returned = nullptr;  // switched back to the runtime, request not yet handled
  bool idle = false;
  std::vector<CoreId> to_wake;  // cores made ready for under the lock, woken after it
};

}  // namespace

struct Runtime::Impl {
  Impl(Runtime& o, Machine& m, LanguagePlugin& l, RuntimeConfig c)
      : owner(&o), machine(m), language(l), assigner(l.assigner()), config(c), observer(c.observer),
        cores(m.core_count()), stacks(c.default_stack_size) {}

  Runtime* owner;
  Machine& machine;
  LanguagePlugin& language;
  Assigner& assigner;
  RuntimeConfig config;
  instrument::RuntimeObserver* observer;
  std::vector<CoreState> cores;
  detail::StackPool stacks;  // outlives every VP: ~Runtime unwinds them before Impl goes
  bool ran = false;

  detail::RuntimeLock lock;
  // Everything below is guarded by `lock`.
  std::vector<VirtualProcessor*> live;  // owned; destroyed when their VP ends
  VpId next_vp = 1;
  UnitId next_unit = 1;
  std::size_t ready = 0;    // made ready, not yet handed to a core by the assigner
  std::size_t running = 0;  // handed to a core, request not yet handled
  bool stopping = false;
  std::exception_ptr failure;
  RunStats stats;

  void acquire(CoreId core);
  VirtualProcessor& create(VpFunction fn, VpOptions options, const CallSite& site);
  void make_ready(VirtualProcessor& vp, CoreId from_core);
  void finish_unit(CoreId core, VirtualProcessor& vp);
  void retire(VirtualProcessor& vp);
  void stop_on_deadlock();
  void wake_after_unlock(CoreId core);
  void unwind_remaining();
};

// ---------------------------------------------------------------------------------------------
// The scheduler loop of one core
// ---------------------------------------------------------------------------------------------

void Runtime::Impl::acquire(CoreId core) {
  if (lock.try_lock()) return;
  if (observer) observer->lock_wait_begin(core);
  lock.lock();
  if (observer) observer->lock_wait_end(core);
}

CoreScheduler::Step Runtime::step(CoreId core) {
  Impl& rt = *impl_;
  CoreState& here = rt.cores[core];
  if (here.idle && rt.observer) rt.observer->idle_end(core);

  rt.acquire(core);
  if (here.returned != nullptr) {
    rt.finish_unit(core, *here.returned);
    here.returned = nullptr;
  }
  if (rt.stopping) {
    rt.lock.unlock();
    rt.wake_after_unlock(core);
    here.idle = false;
    return Step::finished;
  }
  if (rt.observer) rt.observer->assigner_enter(core);
  VirtualProcessor* vp = rt.assigner.next_for(core);
  if (rt.observer) rt.observer->assigner_exit(core, vp != nullptr ? vp->unit() : 0);
  if (vp != nullptr) {
    --rt.ready;
    ++rt.running;
    ++rt.stats.units_animated;
  }
  rt.lock.unlock();
  rt.wake_after_unlock(core);

  if (vp == nullptr) {
    if (rt.observer) rt.observer->idle_begin(core);
    here.idle = true;
    return Step::idle;
  }
  here.idle = false;
  if (rt.observer) rt.observer->unit_begin(core, vp->id(), vp->unit());
  vp->switch_in(core);
  if (rt.observer) {
    const Request& request = vp->finished_ ? vp->end_request_ : *vp->pending_;
    rt.observer->unit_end(core, vp->id(), vp->unit(), request.kind, request.site);
  }
  here.returned = vp;
  return Step::animated;
}

// finish_unit handles the request with which `vp`'s unit ended (under the lock).
void Runtime::Impl::finish_unit(CoreId core, VirtualProcessor& vp) {
  --running;
  ++stats.requests_handled;
  Request& request = vp.finished_ ? vp.end_request_ : *vp.pending_;
  request.requester = &vp;
  request.unit = vp.unit_;
  if (!vp.finished_) vp.unit_ = next_unit++;  // the meta-unit of the VP's next unit

  if (observer) observer->handler_enter(core, request.kind, request.unit);
  RuntimeServices services(*owner, core);
  try {
    language.handle(request, services);
  } catch (...) {
    // A handler that throws is a bug in the language plugin; stop the run and report it
    // against the VP it was serving.
    if (!failure) {
      failure = std::make_exception_ptr(VpFailure(vp.id(), vp.name(), vp.created_at(),
                                                  std::current_exception()));
    }
    stopping = true;
  }
  if (observer) observer->handler_exit(core, request.kind, request.unit);

  if (vp.finished_) {
    if (vp.error_ && !failure) {
      failure = std::make_exception_ptr(
          VpFailure(vp.id(), vp.name(), vp.created_at(), vp.error_));
    }
    if (vp.error_) stopping = true;
    retire(vp);
  }
  if (live.empty()) stopping = true;
  if (!stopping && running == 0 && ready == 0) stop_on_deadlock();
  if (stopping) cores[core].to_wake.push_back(kAnyCore);
}

// ---------------------------------------------------------------------------------------------
// VP lifecycle
// ---------------------------------------------------------------------------------------------

VirtualProcessor& Runtime::Impl::create(VpFunction fn, VpOptions options, const CallSite& site) {
  if (options.core != kAnyCore && options.core >= cores.size()) {
    throw UsageError("cannot pin a VP to core " + std::to_string(options.core) + ": the run has " +
                     std::to_string(cores.size()) + " cores (0.." +
                     std::to_string(cores.size() - 1) + ")");
  }
  const std::size_t stack = options.stack_size != 0 ? options.stack_size
                                                    : config.default_stack_size;
  if (stack < kMinStackSize) {
    throw UsageError("a VP stack of " + std::to_string(stack) + " bytes is below the " +
                     std::to_string(kMinStackSize / 1024) + " KiB minimum");
  }
  const VpId id = next_vp;
  std::string name = options.name.empty() ? "vp" + std::to_string(id) : std::move(options.name);
  VirtualProcessor* vp = nullptr;
  try {
    vp = new VirtualProcessor(id, std::move(name), site, options.core, &stacks, stack,
                              std::move(fn));
  } catch (const std::bad_alloc&) {
    throw UsageError("cannot allocate a VP stack of " + std::to_string(stack) + " bytes");
  }
  ++next_vp;
  vp->unit_ = next_unit++;  // the meta-unit of its first unit exists from now on
  vp->live_index_ = live.size();
  live.push_back(vp);
  ++stats.vps_created;
  language.vp_created(*vp);
  return *vp;
}

void Runtime::Impl::make_ready(VirtualProcessor& vp, CoreId from_core) {
  ++ready;
  const CoreId target = assigner.on_ready(vp);
  // The core running this handler looks for work right after it; every other one may be parked.
  if (target != from_core) cores[from_core].to_wake.push_back(target);
}

void Runtime::Impl::wake_after_unlock(CoreId core) {
  std::vector<CoreId>& wake = cores[core].to_wake;
  if (wake.empty()) return;
  if (std::find(wake.begin(), wake.end(), kAnyCore) != wake.end()) {
    machine.notify_work(kAnyCore);
  } else {
    std::sort(wake.begin(), wake.end());
    wake.erase(std::unique(wake.begin(), wake.end()), wake.end());
    for (CoreId target : wake) machine.notify_work(target);
  }
  wake.clear();
}

void Runtime::Impl::retire(VirtualProcessor& vp) {
  VirtualProcessor* last = live.back();
  live[vp.live_index_] = last;
  last->live_index_ = vp.live_index_;
  live.pop_back();
  delete &vp;
}

void Runtime::Impl::stop_on_deadlock() {
  std::vector<VirtualProcessor*> blocked(live);
  std::sort(blocked.begin(), blocked.end(),
            [](const VirtualProcessor* a, const VirtualProcessor* b) { return a->id() < b->id(); });
  std::vector<BlockedVp> report;
  report.reserve(blocked.size());
  for (const VirtualProcessor* vp : blocked) {
    BlockedVp entry{vp->id(), vp->name(), "", "", vp->created_at()};
    if (const Request* request = vp->pending_request()) {
      entry.construct = std::string(language.construct_name(request->kind));
      entry.waits_for = language.describe_wait(*request);
      entry.site = request->site;
    } else {
      entry.construct = "creation (the language never made it ready)";
    }
    report.push_back(std::move(entry));
  }
  failure = std::make_exception_ptr(DeadlockError(std::move(report)));
  stopping = true;
}

// unwind_remaining runs every VP that is still suspended to its end on the calling thread,
// so that destructors on VP stacks run and no stack leaks.
void Runtime::Impl::unwind_remaining() {
  while (!live.empty()) {
    VirtualProcessor* vp = live.back();
    vp->cancelled_ = true;
    while (!vp->finished_) vp->switch_in(vp->last_core_);
    retire(*vp);
  }
}

// ---------------------------------------------------------------------------------------------
// Runtime
// ---------------------------------------------------------------------------------------------

Runtime::Runtime(Machine& machine, LanguagePlugin& language, RuntimeConfig config)
    : impl_(std::make_unique<Impl>(*this, machine, language, config)) {
  if (machine.core_count() == 0) throw ConfigError("the machine offers no cores");
  if (config.default_stack_size < kMinStackSize) {
    throw ConfigError("VP stack size " + std::to_string(config.default_stack_size) +
                      " bytes is below the " + std::to_string(kMinStackSize / 1024) +
                      " KiB minimum");
  }
}

Runtime::~Runtime() { impl_->unwind_remaining(); }

Machine& Runtime::machine() noexcept { return impl_->machine; }

RunStats Runtime::stats() const {
  impl_->lock.lock();
  RunStats copy = impl_->stats;
  impl_->lock.unlock();
  return copy;
}

void Runtime::run(VpFunction seed, VpOptions options, const CallSite& created_at) {
  Impl& rt = *impl_;
  if (rt.ran) throw std::logic_error("Runtime::run called twice: a Runtime runs once");
  rt.ran = true;
  rt.lock.lock();
  try {
    VirtualProcessor& first = rt.create(std::move(seed), std::move(options), created_at);
    rt.make_ready(first, /*from_core=*/0);
  } catch (const UsageError& error) {
    rt.lock.unlock();
    throw ConfigError(std::string("the first VP: ") + error.what());  // no VP exists to blame
  }
  rt.lock.unlock();
  rt.cores[0].to_wake.clear();  // no core runs yet; drive starts them all
  rt.machine.drive(*this);
  rt.unwind_remaining();
  if (rt.failure) std::rethrow_exception(rt.failure);
}

// ---------------------------------------------------------------------------------------------
// RuntimeServices
// ---------------------------------------------------------------------------------------------

VirtualProcessor& RuntimeServices::create_vp(VpFunction fn, VpOptions options,
                                             const CallSite& created_at) {
  return runtime_.impl_->create(std::move(fn), std::move(options), created_at);
}

void RuntimeServices::make_ready(VirtualProcessor& vp) { runtime_.impl_->make_ready(vp, core_); }

void RuntimeServices::fail(Request& request, std::string message) {
  request.error = std::move(message);
}

std::size_t RuntimeServices::core_count() const noexcept { return runtime_.impl_->cores.size(); }

}  // namespace moirai::proto

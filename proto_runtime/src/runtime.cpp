#include "moirai/proto_runtime/runtime.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <boost/context/fiber.hpp>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <unordered_set>
#include <vector>

#include "domain_locks.h"
#include "exec_context.h"
#include "fiber_stack.h"
#include "moirai/proto_runtime/errors.h"
#include "moirai/proto_runtime/spin_lock.h"
#include "sanitizer_fiber.h"
#include "vp_host.h"
#include "vp_stack.h"

namespace moirai::proto {

namespace ctx = boost::context;
using detail::ExecContext;

// kRecording is false when recording is compiled out (MOIRAI_RECORDING=OFF): every
// instrumentation point below then folds away, except the machine's clock points (run start,
// unit begin and end, handler, assigner), which a simulated machine advances its clocks at. They
// test `observer` in every build: with recording compiled out it is the machine's own (null on
// real cores), since the runtime then refuses one of the user's.
constexpr bool kRecording = MOIRAI_RECORDING != 0;
using detail::SanitizerFiber;

// ---------------------------------------------------------------------------------------------
// State
// ---------------------------------------------------------------------------------------------

namespace {

// CoreState is what one core keeps; the alignment keeps cores off each other's cache lines.
// Only the thread animating the core touches it, except `waiting` and `handed`, which the core
// that makes work for this one writes: they have a line of their own, so that those writes do not
// take the core's own fields (read at every step) from its cache.
struct alignas(64) CoreState {
  ExecContext home;                       // the core thread's own stack: start, idle, stop
  ExecContext* switched_from = nullptr;   // the context that last switched on this core
  VirtualProcessor* ended = nullptr;      // a VP whose stack went away in that switch
  bool idle = false;
  bool started = false;                   // core_start was reported
  // spare is a VP shell (a stack of the default size and its fiber) made outside the lock for
  // the next creation that a handler on this core makes: mapping a stack takes system calls,
  // which would otherwise hold the lock that every other core needs. refill: this core creates.
  VirtualProcessor* spare = nullptr;
  bool refill = false;
  std::vector<CoreId> to_wake;            // cores given work under the lock, woken after it
  std::unordered_set<LockDomain> named_domains;  // the lock domains this core has had named
  // serving is the VP whose request this core's handler runs; requeued: the handler made it
  // ready again, which moves its count from running to ready with no write to the shared count.
  VirtualProcessor* serving = nullptr;
  bool requeued = false;
  std::vector<CoreId> handed_to;          // those of them handed a VP (Machine::notify_handed)
  bool stopped = false;                   // this core's handler stopped the run (under the lock)
  // stats counts what this core did (under the lock): per core, so that no line moves for them.
  RunStats stats;
  // after_end is where the fiber of a VP that ended on this core, and was not kept as a hull,
  // goes when it ends (finish): the next VP's context or the core's own.
  ExecContext* after_end = nullptr;
  // hulls: VPs that ended on this core with a stack of the default size, their fibers parked,
  // kept for its next creations (linked through VirtualProcessor::next_hull_); beyond
  // kHullsPerCore a batch goes to the runtime's depot, from which a core that has none refills.
  VirtualProcessor* hulls = nullptr;
  std::size_t hull_count = 0;

  // waiting: the core found nothing and has not been woken since, so the first VP made ready for
  // it must wake it (and a core that is busy is not disturbed). Under the whole-language lock
  // for a language that names no domains; else set before the core's last look at its queue and
  // taken by the waker after it queued the VP (a fence on each side), so no wake-up is lost.
  alignas(64) std::atomic<bool> waiting{false};
  // handed is the VP the assigner chose for this core while it waited, chosen by the core that
  // made the VP ready; the woken core animates it without taking the lock again.
  std::atomic<VirtualProcessor*> handed{nullptr};
};

}  // namespace

struct Runtime::Impl final : detail::VpHost {
  Impl(Runtime& o, Machine& m, LanguagePlugin& l, RuntimeConfig c)
      : owner(&o), machine(m), language(l), assigner(l.assigner()), config(c),
        observer(m.observe(c.observer)), core_count(m.core_count()), direct(!m.returns_after_each_unit()),
        domains(l.names_domains()),
        cores(m.core_count() + 1), stacks(detail::StackPool::shared(c.default_stack_size)) {
    for (std::size_t k = 0; k < cores.size(); ++k) {
      cores[k].home.core = static_cast<CoreId>(k);
      // Room for every core (and kAnyCore) now: the stop's announcement must not allocate.
      cores[k].to_wake.reserve(cores.size());
      cores[k].handed_to.reserve(cores.size());
    }
  }

  // Read-mostly: fixed before the run starts. The groups below start on cache lines of their own,
  // so that writes to them do not evict these from the other cores' caches.
  Runtime* owner;
  Machine& machine;
  LanguagePlugin& language;
  Assigner& assigner;
  RuntimeConfig config;
  RuntimeObserver* observer;
  std::size_t core_count;
  bool direct;  // VPs switch straight to the next VP on their core
  bool domains;  // the language names lock domains: handlers run under those, the assigner alone
  // cores[k] for each core, plus one more for the thread that unwinds VPs after a stop.
  std::vector<CoreState> cores;
  bool ran = false;
  detail::StackPool& stacks;  // the process's pool for the default size (taken and given back by any core)

  // The whole-language lock of a language that names no domains: its handlers and its assigner
  // run under it. It has a cache line to itself, since the cores waiting for it read it in a loop.
  alignas(64) SpinLock lock;
  CoreId lock_holder = 0;  // the core holding (or that last held) the lock
  // The lock domains of a language that names them: each handler holds its request's stripes.
  detail::DomainLocks domain_locks;

  // What every construct writes, on one line so that a construct moves it once: the VPs made
  // ready or running (a handler's requester counts until its handler returned, so the count
  // reaches 0 only when nothing can make a VP ready again: the run's end, or a deadlock), and the
  // unit numbers.
  alignas(64) std::atomic<std::size_t> active{0};
  std::atomic<UnitId> next_unit{1};
  std::atomic<std::uint64_t> next_match{1};
  alignas(64) std::atomic<bool> stopping{false};
  std::atomic<VpId> next_vp{1};
  std::atomic<std::size_t> live{0};  // created, not yet ended

  // owned: every VP object the runtime made and has not destroyed, live VPs and hulls (spares
  // are their cores'); for deadlock reports and the unwinding after a run. Touched only when a VP
  // object is made or destroyed, not when a hull is reused. The depot: hulls in batches, from
  // cores that end more VPs than they create to those that create more than they end.
  alignas(64) SpinLock owned_lock;
  std::vector<VirtualProcessor*> owned;
  VirtualProcessor* depot = nullptr;
  std::size_t depot_count = 0;
  static constexpr std::size_t kHullsPerCore = 64;
  static constexpr std::size_t kHullsKept = 1024;  // in the depot
  std::mutex failure_mutex;
  std::exception_ptr failure;
  // fail_with keeps the run's first failure and stops the run.
  void fail_with(std::exception_ptr error) {
    {
      std::lock_guard guard(failure_mutex);
      if (!failure) failure = std::move(error);
    }
    stopping.store(true, std::memory_order_relaxed);
  }
  // announce_stop marks `core` as the one whose handler stopped the run: once it released the
  // lock it wakes every core, so that parked cores see the stop. It allocates nothing (to_wake has
  // room for every core), as it may run when memory ran out.
  void announce_stop(CoreId core) noexcept {
    CoreState& here = cores[core];
    here.stopped = true;
    if (here.to_wake.size() < here.to_wake.capacity()) {
      here.to_wake.push_back(kAnyCore);
    } else {
      here.to_wake.back() = kAnyCore;  // (kAnyCore wakes them all: the one it replaces too)
    }
    // A VP handed to a core that has not started it yet stays suspended, to be unwound with
    // the rest, as if it had still been queued.
    for (CoreState& other : cores) other.handed.store(nullptr, std::memory_order_relaxed);
  }
  // stop_under_lock stops the run with `error`, thrown under the lock outside a language handler
  // (out of memory as a vector grew): the run cannot go on consistently, and the exception must
  // not reach the VP, whose next construct would wait for the lock its own core still holds.
  void stop_under_lock(CoreId core, std::exception_ptr error) noexcept {
    fail_with(std::move(error));
    cores[core].serving = nullptr;
    if (!cores[core].stopped) announce_stop(core);
  }
  // fail_vp stops the run with `vp`'s failure, caused by `cause`. Naming the VP takes memory:
  // when none is left (the VP most likely failed for want of it too), the cause stops the run as
  // it is, rather than a std::bad_alloc escaping on a core, where it would end the process.
  void fail_vp(VirtualProcessor& vp, std::exception_ptr cause) noexcept {
    try {
      fail_with(std::make_exception_ptr(VpFailure(vp.id(), vp.name(), vp.created_at(), cause)));
    } catch (const std::bad_alloc&) {
      fail_with(std::move(cause));
    }
  }

  // VpHost
  void arrived(ExecContext& self, ctx::fiber&& from) override;
  void leave(VirtualProcessor& vp) override;
  bool retire(VirtualProcessor& vp) override;
  ctx::fiber finish(VirtualProcessor& vp) override;
  void charge_work(VirtualProcessor& vp, std::uint64_t ticks) noexcept override {
    machine.charge_work(vp.last_core_, ticks);
    if (kRecording && observer) observer->work_declared(vp.last_core_, ticks);
  }
  void mark_phase(VirtualProcessor& vp, const char* name, bool begin) override {
    if (kRecording && observer) observer->user_event(vp.last_core_, vp.unit_, name, begin);
  }

  void acquire(CoreId core);
  void waited_for(CoreId core, LockDomain key, CoreId holder) noexcept;
  // take and next_after_unit are on every construct's path: GCC stopped inlining them once take
  // counted for the core that calls it (callgrind: 108 more instructions per SSR round trip).
  [[gnu::always_inline]] VirtualProcessor* take(CoreId core, CoreId by);
  VirtualProcessor* assign(CoreId core);
  [[gnu::always_inline]] VirtualProcessor* next_after_unit(CoreId core);
  [[gnu::always_inline]] VirtualProcessor* end_unit(CoreId core, VirtualProcessor& vp, ConstructKind kind,
                                                    const CallSite& site);
  void hand_over(CoreId core);
  void begin_unit(CoreId core, VirtualProcessor& vp);
  void switch_to(CoreId core, ExecContext& from, ExecContext& to);
  VirtualProcessor& create(CoreId core, VpFunction fn, VpOptions options, const CallSite& site);
  void make_ready(VirtualProcessor& vp, CoreId from_core);
  void finish_unit(CoreId core, VirtualProcessor& vp);
  void adopt(VirtualProcessor& vp);
  void disown(VirtualProcessor& vp);
  VirtualProcessor* reuse_hull(CoreId core);
  bool keep_hull(CoreId core, VirtualProcessor& vp);
  void stop_on_deadlock();
  // wake_after_unlock sends the wake-ups collected under the lock (rare: only for other cores).
  void wake_after_unlock(CoreId core) {
    if (!cores[core].to_wake.empty() || !cores[core].handed_to.empty()) wake_others(core);
  }
  void wake_others(CoreId core);
  // after_unlock is what a core does once it released the lock after a unit: wake the cores it
  // gave work, and make the shell its next creation will use.
  void after_unlock(CoreId core) {
    wake_after_unlock(core);
    if (cores[core].refill && cores[core].spare == nullptr) make_spare(core);
  }
  void make_spare(CoreId core);
  void unwind(VirtualProcessor& vp);
  void unwind_remaining();
};

// ---------------------------------------------------------------------------------------------
// Switching
// ---------------------------------------------------------------------------------------------

namespace {

// wait_parked returns once `to` holds its continuation. A VP made ready by its own handler, or a
// hull that a creation reused, may be taken by another core before the core that suspends it has
// stored it: that core may still be making a wake-up call or a spare shell. After a while the
// waiter yields, as the lock's waiters do, so that on an over-subscribed machine it does not
// spin away the time slice the other thread needs.
[[gnu::noinline]] void spin_until_parked(ExecContext& to) noexcept {
  for (unsigned spins = 0; !to.parked.load(std::memory_order_acquire); ++spins) {
    if (spins < 4096) {
      cpu_relax();
    } else {
      std::this_thread::yield();
    }
  }
}

// Nearly always parked already: the wait stays out of the switch's path.
inline void wait_parked(ExecContext& to) noexcept {
  if (!to.parked.load(std::memory_order_acquire)) [[unlikely]] spin_until_parked(to);
  to.parked.store(false, std::memory_order_relaxed);
}

}  // namespace

// switch_to leaves `from` for `to` on `core` and returns when `from` runs again (maybe on
// another core).
void Runtime::Impl::switch_to(CoreId core, ExecContext& from, ExecContext& to) {
  wait_parked(to);
  to.core = core;
  cores[core].switched_from = &from;
  SanitizerFiber::before_switch(from, to, /*from_ends=*/false);
  ctx::fiber back = std::move(to.fiber).resume();
  arrived(from, std::move(back));
}

void Runtime::Impl::arrived(ExecContext& self, ctx::fiber&& from) {
  CoreState& here = cores[self.core];
  ExecContext* previous = here.switched_from;
  SanitizerFiber::after_switch(self, from ? previous : nullptr);
  if (from) {
    previous->fiber = std::move(from);
    previous->parked.store(true, std::memory_order_release);
  }
  if (here.ended != nullptr) {  // its stack is gone now, so the VP can go too
    delete here.ended;
    here.ended = nullptr;
  }
}

// ---------------------------------------------------------------------------------------------
// The scheduler loop of one core
// ---------------------------------------------------------------------------------------------

void Runtime::Impl::acquire(CoreId core) {
  if (lock.try_lock()) {
    lock_holder = core;
    return;
  }
  if (kRecording && observer) observer->lock_wait_begin(core);
  lock.lock();
  // The previous holder's release is what let this core in.
  if (kRecording && observer) observer->lock_wait_end(core, lock_holder, kWholeLanguage);
  lock_holder = core;
}

// waited_for reports that `core` waited for domain `key` until `holder` released it; the first
// time this core waits for a domain, the language names it (the core holds the domain now, so
// what the name reads cannot change meanwhile).
void Runtime::Impl::waited_for(CoreId core, LockDomain key, CoreId holder) noexcept {
  try {
    if (key != kWholeLanguage && cores[core].named_domains.insert(key).second) {
      observer->lock_domain_named(core, key, language.describe_domain(key));
    }
  } catch (...) {
    // Naming it took memory there was none of: the run stops, and this core's waits on the
    // domain are recorded without its name. (It runs while the core takes its domains: nothing
    // may leave that half done.)
    fail_with(std::current_exception());
  }
  observer->lock_wait_end(core, holder, key);
}

// take is the assigner's choice for `core`, counted for core `by`.
inline VirtualProcessor* Runtime::Impl::take(CoreId core, CoreId by) {
  VirtualProcessor* vp = assigner.next_for(core);
  if (vp != nullptr) ++cores[by].stats.units_animated;
  return vp;
}

// assign is the assigner's choice for `core`. With lock domains, a core that finds nothing says
// it waits before it looks once more, and a core that queues a VP for it looks at that word after
// queueing (make_ready): one of the two sees the other, so the VP is found or the core woken.
VirtualProcessor* Runtime::Impl::assign(CoreId core) {
  if (observer) observer->assigner_enter(core);  // a clock point
  VirtualProcessor* vp = take(core, core);
  if (domains) {
    std::atomic<bool>& waiting = cores[core].waiting;
    if (vp == nullptr) {
      waiting.store(true, std::memory_order_relaxed);
      std::atomic_thread_fence(std::memory_order_seq_cst);
      vp = take(core, core);
    }
    if (vp != nullptr && waiting.load(std::memory_order_relaxed)) {
      waiting.store(false, std::memory_order_relaxed);
    }
  }
  if (observer) observer->assigner_exit(core, vp != nullptr ? vp->unit() : 0);  // a clock point
  return vp;
}

// next_after_unit is, under the lock, what the core animates after a unit ended on it: the
// assigner's choice, or nullptr for the core's own stack (idle, stop, or per-unit machines).
inline VirtualProcessor* Runtime::Impl::next_after_unit(CoreId core) {
  if (stopping.load(std::memory_order_relaxed) || !direct) return nullptr;
  VirtualProcessor* next = assign(core);
  if (next == nullptr) {
    cores[core].idle = true;
    if (!domains) cores[core].waiting.store(true, std::memory_order_relaxed);
    if (kRecording && observer) observer->idle_begin(core);
  }
  return next;
}

// hand_over gives each waiting core that this core's handler made work for the VP its assigner
// chooses for it now, under the lock, so that the woken core starts it without contending for
// the lock with the core that woke it (one cache-line round trip fewer per wake-up).
void Runtime::Impl::hand_over(CoreId core) {
  std::vector<CoreId>& wake = cores[core].to_wake;
  std::erase_if(wake, [&](CoreId target) {
    if (target == kAnyCore || cores[target].handed.load(std::memory_order_relaxed) != nullptr) {
      return false;
    }
    VirtualProcessor* vp = take(target, core);
    if (vp == nullptr) return false;
    ++cores[core].stats.units_handed_over;
    cores[target].handed.store(vp, std::memory_order_release);
    cores[core].handed_to.push_back(target);
    return true;
  });
}

// A core that was handed a VP is idle until it takes it: its idle loop may poll for it.
bool Runtime::handed_work(CoreId core) const noexcept {
  return impl_->cores[core].handed.load(std::memory_order_seq_cst) != nullptr;
}

void Runtime::Impl::begin_unit(CoreId core, VirtualProcessor& vp) {
  vp.last_core_ = core;
  if (observer) observer->unit_begin(core, vp.id(), vp.unit());  // a clock point
}

CoreScheduler::Step Runtime::step(CoreId core) {
  Impl& rt = *impl_;
  CoreState& here = rt.cores[core];
  if (!here.started) {
    here.started = true;
    // This thread animates VPs: an overflow of one of their stacks is reported naming it.
    detail::watch_stack_overflows_on_this_thread();
    if (kRecording && rt.observer) rt.observer->core_start(core);
  }
  if (here.idle) {
    here.idle = false;
    if (kRecording && rt.observer) rt.observer->idle_end(core);
  }
  // A plain load first: most steps find nothing handed, and an exchange is a locked instruction.
  VirtualProcessor* handed = here.handed.load(std::memory_order_relaxed) != nullptr
                                 ? here.handed.exchange(nullptr, std::memory_order_acquire)
                                 : nullptr;
  if (handed != nullptr) {
    // Chosen for this core by the core that woke it (hand_over): the assigner's pick, recorded
    // here, where the core's own records are written.
    if (kRecording && rt.observer) {
      rt.observer->assigner_enter(core);
      rt.observer->assigner_exit(core, handed->unit());
    }
    rt.begin_unit(core, *handed);
    rt.switch_to(core, here.home, handed->context());
    return here.idle ? Step::idle : Step::animated;
  }
  if (!rt.domains) {
    rt.acquire(core);
    here.waiting.store(false, std::memory_order_relaxed);
  }
  if (rt.stopping.load(std::memory_order_acquire)) {
    if (!rt.domains) rt.lock.unlock();
    rt.wake_after_unlock(core);
    if (kRecording && rt.observer) rt.observer->core_stop(core);
    return Step::finished;
  }
  VirtualProcessor* vp = rt.assign(core);
  if (!rt.domains) {
    if (vp == nullptr) here.waiting.store(true, std::memory_order_relaxed);
    rt.lock.unlock();
  }
  rt.wake_after_unlock(core);
  if (vp == nullptr) {
    here.idle = true;
    if (kRecording && rt.observer) rt.observer->idle_begin(core);
    return Step::idle;
  }
  rt.begin_unit(core, *vp);
  rt.switch_to(core, here.home, vp->context());
  // Back on the core's own stack: the last VP found nothing next, or the run stops.
  return here.idle ? Step::idle : Step::animated;
}

// end_unit ends `vp`'s unit on `core` with the construct `kind` called at `site`: it handles the
// request under its lock domains (or the whole-language lock, which then also covers the
// assigner and the hand-over to waiting cores) and returns, with no lock held, what the core
// animates next (nullptr: its own stack).
inline VirtualProcessor* Runtime::Impl::end_unit(CoreId core, VirtualProcessor& vp, ConstructKind kind,
                                                 const CallSite& site) {
  if (observer) observer->unit_end(core, vp.id(), vp.unit(), kind, site);  // a clock point
  if (!domains) {
    acquire(core);
    VirtualProcessor* next = nullptr;
    try {
      finish_unit(core, vp);
      next = next_after_unit(core);
      if (direct && !cores[core].to_wake.empty()) hand_over(core);
    } catch (...) {
      stop_under_lock(core, std::current_exception());
      next = nullptr;  // the VPs still queued are unwound with the rest
    }
    lock.unlock();
    return next;
  }
  Request& request = vp.finished_ ? vp.end_request_ : *vp.pending_;
  request.requester = &vp;
  LockDomains set = LockDomains::whole_language();
  try {
    set = language.domains(request);
  } catch (...) {
    // A plugin bug: the handler still runs, alone, and the run stops with the error.
    fail_vp(vp, std::current_exception());
  }
  if (observer) {  // a clock point
    std::array<LockDomain, LockDomains::kMax> keys{};
    std::size_t count = set.whole() ? 1 : set.size();
    for (std::size_t k = 0; k < count; ++k) keys[k] = set.whole() ? kWholeLanguage : set[k];
    observer->handler_domains(core, keys.data(), count);
  }
  const detail::DomainLocks::Mask held = domain_locks.take(
      core, set,
      [&] {
        if (kRecording && observer) observer->lock_wait_begin(core);
      },
      [&](LockDomain key, CoreId holder) {
        if (kRecording && observer) waited_for(core, key, holder);
      });
  try {
    finish_unit(core, vp);
  } catch (...) {
    stop_under_lock(core, std::current_exception());
  }
  domain_locks.release(held);
  try {
    return next_after_unit(core);
  } catch (...) {
    fail_with(std::current_exception());  // the assigner ran out of memory: the core goes home and stops
    return nullptr;
  }
}

// leave runs on `vp`'s stack: the unit ended with a construct call.
void Runtime::Impl::leave(VirtualProcessor& vp) {
  const CoreId core = vp.last_core_;
  VirtualProcessor* next = end_unit(core, vp, vp.pending_->kind, vp.pending_->site);
  after_unlock(core);
  if (next == &vp) {  // freed by its own construct and first in line: no switch at all
    begin_unit(core, vp);
    return;
  }
  if (next != nullptr) {
    begin_unit(core, *next);
    switch_to(core, vp.context(), next->context());
  } else {
    switch_to(core, vp.context(), cores[core].home);
  }
}

// retire runs on `vp`'s stack after its function returned: it handles the VP's end and keeps the
// VP as a hull when it can, parked until a creation gives it a new function.
bool Runtime::Impl::retire(VirtualProcessor& vp) {
  if (vp.cancelled_) return false;  // unwound after a stop: finish goes back to the unwinder
  const CoreId core = vp.last_core_;
  VirtualProcessor* next = end_unit(core, vp, kEndVp, vp.end_request_.site);
  const bool keep = !stopping.load(std::memory_order_relaxed) &&
                    vp.stack_size_ == stacks.size() && keep_hull(core, vp);
  if (!keep) disown(vp);  // its fiber ends next, and the VP is destroyed
  after_unlock(core);
  if (next != nullptr) begin_unit(core, *next);
  ExecContext& to = next != nullptr ? next->context() : cores[core].home;
  if (!keep) {
    cores[core].after_end = &to;
    return false;
  }
  // The frames below this one are dead; the next VP on this stack starts with ASan's view clean
  // (redzones of frames that an exception unwound stay poisoned otherwise).
  const ExecContext& self = vp.context();
  const char* here = static_cast<const char*>(__builtin_frame_address(0));
  const char* bottom = static_cast<const char*>(self.stack_bottom);
  if (bottom != nullptr && here > bottom + 512) {
    SanitizerFiber::forget_stack(bottom, static_cast<std::size_t>(here - bottom) - 512);
  }
  switch_to(core, vp.context(), to);
  // Resumed: a creation gave the hull a VP to animate, or the run stopped and unwinds it.
  return !vp.cancelled_;
}

// finish runs on `vp`'s stack when its fiber ends (its end handled by retire, or the run
// unwinding it); the continuation it returns is resumed by Boost.Context, which frees the stack on
// the way.
ctx::fiber Runtime::Impl::finish(VirtualProcessor& vp) {
  ExecContext& self = vp.context();
  CoreId core = self.core;
  ExecContext* to = &cores[core].home;  // a cancelled VP goes back to the unwinding thread
  if (!vp.cancelled_) {
    core = vp.last_core_;
    to = std::exchange(cores[core].after_end, nullptr);
  }
  wait_parked(*to);
  to->core = core;
  cores[core].switched_from = &self;
  cores[core].ended = &vp;
  SanitizerFiber::before_switch(self, *to, /*from_ends=*/true);
  return std::move(to->fiber);
}

// finish_unit handles the request with which `vp`'s unit ended (under the lock).
void Runtime::Impl::finish_unit(CoreId core, VirtualProcessor& vp) {
  ++cores[core].stats.requests_handled;
  Request& request = vp.finished_ ? vp.end_request_ : *vp.pending_;
  request.requester = &vp;
  request.unit = vp.unit_;
  // the meta-unit of the VP's next unit
  if (!vp.finished_) vp.unit_ = next_unit.fetch_add(1, std::memory_order_relaxed);

  if (observer) observer->handler_enter(core, request.kind, request.unit);  // a clock point
  RuntimeServices services(*owner, core, kRecording ? observer : nullptr);
  CoreState& here = cores[core];
  here.serving = &vp;
  here.requeued = false;
  // A VP that failed stops the run before its end is handled: a partner its end frees with an
  // error of its own (a sender whose receiver ended) may fail on another core at once, and the
  // run reports the first failure, which must be the cause.
  if (vp.finished_ && vp.error_) fail_vp(vp, vp.error_);
  try {
    language.handle(request, services);
  } catch (...) {
    // A handler that throws is a bug in the language plugin; stop the run and report it
    // against the VP it was serving.
    fail_vp(vp, std::current_exception());
  }
  if (observer) observer->handler_exit(core, request.kind, request.unit);  // a clock point

  if (vp.finished_) live.fetch_sub(1, std::memory_order_relaxed);
  here.serving = nullptr;
  // The requester is no longer running (unless its handler made it ready): when nothing else is
  // ready or running, no handler is under way either, so the VPs still alive can never be made
  // ready again.
  if (!here.requeued && active.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    if (live.load(std::memory_order_relaxed) == 0) {
      stopping.store(true, std::memory_order_relaxed);
    } else if (!stopping.load(std::memory_order_relaxed)) {
      stop_on_deadlock();
    }
  }
  if (stopping.load(std::memory_order_relaxed) && !cores[core].stopped) announce_stop(core);
}

// ---------------------------------------------------------------------------------------------
// VP lifecycle
// ---------------------------------------------------------------------------------------------

VirtualProcessor& Runtime::Impl::create(CoreId core, VpFunction fn, VpOptions options,
                                        const CallSite& site) {
  if (options.core != kAnyCore && options.core >= core_count) {
    throw UsageError("cannot pin a VP to core " + std::to_string(options.core) + ": the run has " +
                     std::to_string(core_count) + " cores (0.." + std::to_string(core_count - 1) +
                     ")");
  }
  const std::size_t stack = options.stack_size != 0 ? options.stack_size
                                                    : config.default_stack_size;
  if (stack < kMinStackSize) {
    throw UsageError("a VP stack of " + std::to_string(stack) + " bytes is below the " +
                     std::to_string(kMinStackSize / 1024) + " KiB minimum");
  }
  const VpId id = next_vp.fetch_add(1, std::memory_order_relaxed);
  std::string name = options.name.empty() ? "vp" + std::to_string(id) : std::move(options.name);
  VirtualProcessor* vp = nullptr;
  CoreState& here = cores[core];
  if (stack == stacks.size() && (vp = reuse_hull(core)) != nullptr) {
    ++here.stats.vps_reused;
    vp->become(id, std::move(name), site, options.core, std::move(fn));
  } else if (here.spare != nullptr && stack == stacks.size()) {
    vp = std::exchange(here.spare, nullptr);
    vp->become(id, std::move(name), site, options.core, std::move(fn));
    adopt(*vp);
    here.refill = direct;  // this core creates: make its next shell after the lock
  } else {
    try {
      vp = new VirtualProcessor(id, std::move(name), site, options.core, this, &stacks, stack,
                                std::move(fn));
    } catch (const std::bad_alloc&) {
      throw UsageError("cannot allocate a VP stack of " + std::to_string(stack) + " bytes: out of memory");
    }
    adopt(*vp);
    here.refill = direct;
  }
  // the meta-unit of its first unit exists from now on
  vp->unit_ = next_unit.fetch_add(1, std::memory_order_relaxed);
  live.fetch_add(1, std::memory_order_relaxed);
  ++here.stats.vps_created;
  language.vp_created(*vp, core);
  if (kRecording && observer) {
    observer->vp_created(core, vp->id(), vp->name(), site,
                         vp->home_core());
  }
  return *vp;
}

void Runtime::Impl::make_ready(VirtualProcessor& vp, CoreId from_core) {
  CoreState& here = cores[from_core];
  if (&vp == here.serving && !here.requeued) {
    here.requeued = true;  // its running count becomes its ready count
  } else {
    active.fetch_add(1, std::memory_order_relaxed);
  }
  const CoreId target = assigner.on_ready(vp);
  // The core running this handler looks for work right after it; another one is woken when it
  // waits for work (a simulated machine is told of every VP, its cores' clocks need it).
  if (target == from_core) return;
  if (direct && target != kAnyCore) {
    std::atomic<bool>& waiting = cores[target].waiting;
    if (domains) {
      std::atomic_thread_fence(std::memory_order_seq_cst);  // pairs with assign's
      if (!waiting.load(std::memory_order_relaxed) ||
          !waiting.exchange(false, std::memory_order_relaxed)) {
        return;
      }
    } else {
      if (!waiting.load(std::memory_order_relaxed)) return;
      waiting.store(false, std::memory_order_relaxed);
    }
  }
  cores[from_core].to_wake.push_back(target);
}

// wake_others is a chore of its own in the trace: waking a parked core is a kernel call that the
// waking core pays (microseconds on a VM), which the views would otherwise count as its assigner's.
void Runtime::Impl::wake_others(CoreId core) {
  // The stop's broadcast comes after the core's last record: the run's end, not a chore of it.
  const bool record = kRecording && observer && !cores[core].stopped;
  if (record) observer->chore_begin(core);
  std::vector<CoreId>& wake = cores[core].to_wake;
  std::size_t woken = 0;
  if (std::find(wake.begin(), wake.end(), kAnyCore) != wake.end()) {
    machine.notify_work(kAnyCore);
    woken = core_count - 1;  // every other core
  } else {
    std::sort(wake.begin(), wake.end());
    wake.erase(std::unique(wake.begin(), wake.end()), wake.end());
    for (CoreId target : wake) machine.notify_work(target);
    woken = wake.size();
  }
  wake.clear();
  for (CoreId target : cores[core].handed_to) machine.notify_handed(target);
  woken += cores[core].handed_to.size();
  cores[core].handed_to.clear();
  if (record) observer->chore_end(core, Chore::wake_up, static_cast<std::uint32_t>(woken));
}

void Runtime::Impl::adopt(VirtualProcessor& vp) {
  std::lock_guard guard(owned_lock);
  vp.owned_index_ = owned.size();
  owned.push_back(&vp);
}

void Runtime::Impl::disown(VirtualProcessor& vp) {
  std::lock_guard guard(owned_lock);
  VirtualProcessor* last = owned.back();
  owned[vp.owned_index_] = last;
  last->owned_index_ = vp.owned_index_;
  owned.pop_back();
}

// reuse_hull takes a hull of `core`'s, refilled from the depot when it has none.
VirtualProcessor* Runtime::Impl::reuse_hull(CoreId core) {
  CoreState& here = cores[core];
  if (here.hulls == nullptr) {
    std::lock_guard guard(owned_lock);
    if (depot == nullptr) return nullptr;
    // The whole depot: it holds at most kHullsKept, and a core short of hulls creates more.
    here.hulls = std::exchange(depot, nullptr);
    here.hull_count = std::exchange(depot_count, 0);
  }
  --here.hull_count;
  return std::exchange(here.hulls, here.hulls->next_hull_);
}

// keep_hull keeps `vp`, which ended on `core`, for a later creation; a core with kHullsPerCore
// already moves half of them to the depot first. false: the depot is full too.
bool Runtime::Impl::keep_hull(CoreId core, VirtualProcessor& vp) {
  CoreState& here = cores[core];
  if (here.hull_count >= kHullsPerCore) {
    constexpr std::size_t kBatch = kHullsPerCore / 2;
    std::lock_guard guard(owned_lock);
    if (depot_count + kBatch > kHullsKept) return false;
    VirtualProcessor* last = here.hulls;
    for (std::size_t k = 1; k < kBatch; ++k) last = last->next_hull_;
    VirtualProcessor* batch = std::exchange(here.hulls, last->next_hull_);
    last->next_hull_ = depot;
    depot = batch;
    depot_count += kBatch;
    here.hull_count -= kBatch;
  }
  vp.next_hull_ = here.hulls;
  here.hulls = &vp;
  ++here.hull_count;
  return true;
}

void Runtime::Impl::stop_on_deadlock() {
  std::vector<VirtualProcessor*> blocked;
  {
    std::lock_guard guard(owned_lock);
    for (VirtualProcessor* vp : owned) {
      if (!vp->finished_) blocked.push_back(vp);  // not a hull
    }
  }
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
  fail_with(std::make_exception_ptr(DeadlockError(std::move(report))));
}

void Runtime::Impl::make_spare(CoreId core) {
  if (kRecording && observer) observer->chore_begin(core);
  try {
    cores[core].spare = new VirtualProcessor(this, &stacks, stacks.size());
  } catch (const std::bad_alloc&) {
    // No shell: the next creation maps its stack under the lock and reports a failure there.
  }
  if (kRecording && observer) observer->chore_end(core, Chore::vp_shell, 1);
}

// unwind runs a suspended VP (or an unused shell) to its end on the calling thread, so that
// destructors on its stack run and the stack goes back.
void Runtime::Impl::unwind(VirtualProcessor& vp) {
  const auto unwinder = static_cast<CoreId>(core_count);
  vp.cancelled_ = true;
  switch_to(unwinder, cores[unwinder].home, vp.context());  // returns once it ended
}

void Runtime::Impl::unwind_remaining() {
  // Live VPs and hulls alike: each is unwound, then destroyed.
  while (!owned.empty()) {
    VirtualProcessor* vp = owned.back();
    owned.pop_back();
    unwind(*vp);
  }
  live = 0;
  depot = nullptr;
  depot_count = 0;
  for (CoreState& core : cores) {
    core.hulls = nullptr;
    core.hull_count = 0;
    core.refill = false;
    if (core.spare != nullptr) unwind(*std::exchange(core.spare, nullptr));
  }
}

// ---------------------------------------------------------------------------------------------
// Runtime
// ---------------------------------------------------------------------------------------------

Runtime::Runtime(Machine& machine, LanguagePlugin& language, RuntimeConfig config)
    : impl_(std::make_unique<Impl>(*this, machine, language, config)) {
  if (!kRecording && config.observer != nullptr) {
    throw ConfigError("this build has recording compiled out (MOIRAI_RECORDING=OFF): "
                      "an observer would see nothing");
  }
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
  RunStats copy;
  for (const CoreState& core : impl_->cores) {
    copy.vps_created += core.stats.vps_created;
    copy.units_animated += core.stats.units_animated;
    copy.requests_handled += core.stats.requests_handled;
    copy.units_handed_over += core.stats.units_handed_over;
    copy.vps_reused += core.stats.vps_reused;
  }
  impl_->lock.unlock();
  return copy;
}

void Runtime::run(VpFunction seed, VpOptions options, const CallSite& created_at) {
  Impl& rt = *impl_;
  if (rt.ran) throw std::logic_error("Runtime::run called twice: a Runtime runs once");
  rt.ran = true;
  rt.machine.use_language_costs(rt.language.table().costs);
  rt.machine.use_lock_domains(rt.domains ? std::function<std::string(LockDomain)>(
                                                [&language = rt.language](LockDomain key) {
                                                  return language.describe_domain(key);
                                                })
                                          : nullptr);
  if (rt.observer) {  // a clock point: a simulated machine prices the constructs by name
    if (rt.domains) rt.observer->language_names_domains();
    rt.observer->run_start(rt.language.table(), rt.core_count);
  }
  rt.lock.lock();
  try {
    VirtualProcessor& first = rt.create(/*core=*/0, std::move(seed), std::move(options), created_at);
    rt.make_ready(first, /*from_core=*/0);
  } catch (const UsageError& error) {
    rt.lock.unlock();
    throw ConfigError(std::string("the first VP: ") + error.what());  // no VP exists to blame
  }
  rt.lock.unlock();
  rt.cores[0].to_wake.clear();  // no core runs yet; drive starts them all
  rt.cores[0].refill = false;   // the seed says nothing of whether the program creates VPs
  try {
    rt.machine.drive(*this);
  } catch (...) {
    rt.unwind_remaining();  // the machine could not run (no core stepped): the seed goes back
    throw;
  }
  rt.unwind_remaining();
  if (rt.failure) std::rethrow_exception(rt.failure);
}

// ---------------------------------------------------------------------------------------------
// RuntimeServices
// ---------------------------------------------------------------------------------------------

VirtualProcessor& RuntimeServices::create_vp(VpFunction fn, VpOptions options,
                                             const CallSite& created_at) {
  return runtime_.impl_->create(core_, std::move(fn), std::move(options), created_at);
}

void RuntimeServices::make_ready(VirtualProcessor& vp) { runtime_.impl_->make_ready(vp, core_); }

void RuntimeServices::fail(Request& request, std::string message) {
  request.error = std::move(message);
}

std::size_t RuntimeServices::core_count() const noexcept { return runtime_.impl_->core_count; }

std::uint64_t RuntimeServices::new_match() noexcept {
  return observer_ != nullptr ? runtime_.impl_->next_match.fetch_add(1, std::memory_order_relaxed)
                              : 0;
}

}  // namespace moirai::proto

#include "moirai/proto_runtime/sim_machine.h"

#include <algorithm>
#include <boost/context/fiber.hpp>
#include <boost/context/protected_fixedsize_stack.hpp>
#include <charconv>
#include <chrono>
#include <cmath>
#include <exception>
#include <functional>
#include <numeric>
#include <array>
#include <unordered_map>
#include <unordered_set>
#include <queue>
#include <set>
#include <sstream>
#include <stdexcept>
#include <utility>
#include <vector>

#include "moirai/core/time_source.h"
#include "moirai/proto_runtime/errors.h"
#include "sanitizer_fiber.h"

namespace moirai::proto {

namespace ctx = boost::context;

namespace {

// kOrigin is the virtual time every core starts at: not 0, which recorders take for "unset".
constexpr std::uint64_t kOrigin = 1;
// kCoreStack is each virtual core's own stack: the scheduler step and the observers run on it.
constexpr std::size_t kCoreStack = 128 * 1024;

std::uint64_t host_ns() noexcept {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                        std::chrono::steady_clock::now().time_since_epoch())
                                        .count());
}

std::size_t parse_count(std::string_view spec, std::string_view part, const char* what) {
  std::size_t value = 0;
  const auto [end, error] = std::from_chars(part.data(), part.data() + part.size(), value);
  if (part.empty() || error != std::errc{} || end != part.data() + part.size()) {
    throw ConfigError("machine '" + std::string(spec) + "': " + what + " '" + std::string(part) +
                      "' is not a whole number (expected sim:N or sim:SxC, e.g. sim:40 or sim:4x10)");
  }
  if (value == 0) {
    throw ConfigError("machine '" + std::string(spec) + "': " + what + " must be at least 1");
  }
  return value;
}

using Asan = detail::SanitizerFiber;  // the same annotations the runtime's switches make

// CoreStack is a guard-paged stack that also tells where it is (for ASan).
struct CoreStack {
  ctx::protected_fixedsize_stack inner;
  ctx::stack_context* where;
  ctx::stack_context allocate() {
    *where = inner.allocate();
    return *where;
  }
  void deallocate(ctx::stack_context& stack) noexcept { inner.deallocate(stack); }
};

// normal_quantile is the standard normal distribution's inverse at p in (0, 1) (Acklam's rational
// approximation, relative error below 1.2e-9): where the cores' speeds are spread.
double normal_quantile(double p) {
  static constexpr double a[] = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                                 1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00};
  static constexpr double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                                 6.680131188771972e+01, -1.328068155288572e+01};
  static constexpr double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                                 -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00};
  static constexpr double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                                 3.754408661907416e+00};
  const auto tail = [&](double q) {
    return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
           ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  };
  if (p < 0.02425) return tail(std::sqrt(-2 * std::log(p)));
  if (p > 1 - 0.02425) return -tail(std::sqrt(-2 * std::log(1 - p)));
  const double q = p - 0.5;
  const double r = q * q;
  return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
         (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

// core_speed is how much longer core `k` of `n` takes for the same work when the cores' speeds
// vary by `spread` (a coefficient of variation): the cores take the n quantiles of a normal
// distribution, scattered over the core ids. Core 0, where a program's first VP (often its
// serial part) runs, takes the median one, so the spread moves the parallel part, not the
// serial one, one way or the other. Never below a tenth.
double core_speed(std::size_t k, std::size_t n, double spread) {
  if (spread == 0 || n < 2) return 1.0;
  std::size_t step = (n * 5 + 7) / 8;  // about 0.618 n, made coprime to n
  while (std::gcd(step, n) != 1) ++step;
  const std::size_t slot = (k * step + n / 2) % n;
  const double p = (static_cast<double>(slot) + 0.5) / static_cast<double>(n);
  return std::max(0.1, 1.0 + spread * normal_quantile(p));
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Topology
// ---------------------------------------------------------------------------------------------

std::string SimTopology::text() const {
  return sockets == 1 ? "sim:" + std::to_string(cores_per_socket)
                      : "sim:" + std::to_string(sockets) + "x" + std::to_string(cores_per_socket);
}

SimTopology SimTopology::parse(std::string_view spec) {
  constexpr std::string_view kPrefix = "sim:";
  if (!spec.starts_with(kPrefix)) {
    throw ConfigError("machine '" + std::string(spec) + "': expected sim:N or sim:SxC");
  }
  const std::string_view shape = spec.substr(kPrefix.size());
  SimTopology topology;
  const std::size_t x = shape.find('x');
  if (x == std::string_view::npos) {
    topology.cores_per_socket = parse_count(spec, shape, "the core count");
  } else {
    topology.sockets = parse_count(spec, shape.substr(0, x), "the socket count");
    topology.cores_per_socket = parse_count(spec, shape.substr(x + 1), "the cores per socket");
  }
  if (topology.sockets > kMaxSimCores || topology.cores_per_socket > kMaxSimCores ||
      topology.cores() > kMaxSimCores) {
    throw ConfigError("machine '" + std::string(spec) + "': more than " +
                      std::to_string(kMaxSimCores) + " virtual cores");
  }
  return topology;
}

// ---------------------------------------------------------------------------------------------
// The simulation
// ---------------------------------------------------------------------------------------------

namespace {

// VirtualCore is one simulated core: its clock and where its execution is suspended.
struct VirtualCore {
  enum class State { runnable, sleeping, done };
  std::uint64_t clock = kOrigin;     // virtual ticks
  std::uint64_t charged = 0;         // declared work of the running unit
  std::uint64_t host_begin = 0;      // host ns when the running unit started (measured work)
  bool in_unit = false;
  // Its hold of the runtime lock goes on from a handler into the assignment that follows: on
  // real cores end_unit handles the request and picks the next VP in one hold, while the runtime
  // comes back to this machine between the two (returns_after_each_unit) and asks again.
  bool holds_lock = false;
  State state = State::runnable;
  std::uint64_t ticket = 0;          // only the queue entry with this ticket is live
  double speed = 1.0;                // its work lasts this many times the model's (core_spread)
  std::size_t socket = 0;
  bool working = false;              // its unit's work is being shared out in virtual time
  double target = 0;                 // ... and ends when its socket's work clock reaches this
  std::uint64_t work_end = 0;        // ... which is at this virtual time, as things stand
  ctx::fiber suspended;              // this core's continuation while another core runs
  const void* stack_bottom = nullptr;  // ASan: the stack it is suspended on
  std::size_t stack_size = 0;
  void* fake_stack = nullptr;
};

}  // namespace

struct SimMachine::Impl final : RuntimeObserver, TimeSource {
  explicit Impl(SimConfig c) : config(std::move(c)), cores(config.topology.cores()) {}

  SimConfig config;
  std::vector<VirtualCore> cores;
  RuntimeObserver* user = nullptr;
  std::vector<std::uint64_t> handler_costs;  // per construct kind, from the names at run_start
  std::vector<std::uint64_t> communication_costs;  // the same for the communication after a unit
  double measured_scale = 1.0;               // virtual ticks per host ns

  // The runtime lock as a resource in virtual time.
  std::uint64_t lock_free_at = kOrigin;
  CoreId lock_holder = 0;
  // The lock domains of a language that names them, each a resource in virtual time; the whole
  // language's is taken by a handler that names it, and waited for by every other.
  struct DomainLock {
    std::uint64_t free_at = kOrigin;
    CoreId holder = kAnyCore;  // kAnyCore: never held, so no line to move
  };
  bool domains = false;
  std::function<std::string(LockDomain)> name_domain;
  std::unordered_map<LockDomain, DomainLock> domain_locks;
  DomainLock whole;
  struct Held {
    std::array<LockDomain, 4> keys{};
    std::array<std::uint64_t, 4> cost{};   // what taking each costs (lock, hand-off, after a wait)
    std::array<DomainLock*, 4> locks{};    // each key's lock (a map node: it stays where it is)
    std::size_t count = 0;
    ConstructKind kind = 0;                // the construct whose handler takes them
    std::uint64_t communication = 0;       // the communication after the unit, still to count
    std::unordered_set<LockDomain> named;  // the domains this core has had named to the user
  };
  // free_at_of is when `lock` (the whole language's: every domain) is free for a new holder.
  std::uint64_t free_at_of(const DomainLock& lock) const {
    if (&lock != &whole) return std::max(lock.free_at, whole.free_at);
    std::uint64_t free_at = whole.free_at;
    for (const auto& [other, each] : domain_locks) free_at = std::max(free_at, each.free_at);
    return free_at;
  }
  std::vector<Held> held = std::vector<Held>(cores.size());
  void acquire_domains(CoreId core);
  void release_domains(CoreId core);

  // The event queue: runnable cores that yielded, earliest (time, id) first; an entry whose
  // ticket is no longer its core's was superseded (a working core's end moved).
  struct Entry {
    std::uint64_t at;
    CoreId core;
    std::uint64_t ticket;
    bool operator>(const Entry& other) const noexcept {
      return at != other.at ? at > other.at : core > other.core;
    }
    bool before(std::uint64_t time, CoreId id) const noexcept {
      return at != time ? at < time : core < id;
    }
  };
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> queue;
  void push(CoreId core, std::uint64_t at) { queue.push({at, core, ++cores[core].ticket}); }
  // live_top drops superseded entries and tells whether a live one is left.
  bool live_top() {
    while (!queue.empty() && queue.top().ticket != cores[queue.top().core].ticket) queue.pop();
    return !queue.empty();
  }

  // Shared work: each socket's work clock advances at 1 / stretch while its cores are busy, and
  // a working core's unit ends when its socket's clock reaches the unit's target.
  struct WorkClock {
    double work = 0;             // work done by one unit alone since the run began, in ticks
    std::uint64_t at = kOrigin;  // virtual time of `work`
    std::size_t busy = 0;        // cores of the socket in a unit
    // The socket's working cores by target: all advance at one pace, so only the first can end
    // next, and only it has a live queue entry (`queued`).
    std::set<std::pair<double, CoreId>> ends;
    CoreId queued = kAnyCore;
  };
  bool sharing = false;  // the model stretches work (CostModel::stretches)
  std::vector<WorkClock> clocks;
  std::size_t busy = 0;  // cores in a unit, machine-wide
  double stretch(const WorkClock& socket) const noexcept {
    return 1.0 + config.costs.work.stretch_machine * static_cast<double>(busy > 0 ? busy - 1 : 0) +
           config.costs.work.stretch_socket * static_cast<double>(socket.busy > 0 ? socket.busy - 1 : 0);
  }
  void advance_work(std::uint64_t to);
  void requeue_working();
  // Declared work's rate by ending call site (the model's work_rate.<file:line> lines).
  std::unordered_map<const char*, std::unordered_map<std::uint32_t, double>> site_rates;
  double rate_at(const CallSite& site);
  std::uint64_t unit_work(VirtualCore& c, const CallSite& site);
  CoreScheduler* scheduler = nullptr;
  CoreId current = 0;
  bool driving = false;
  ctx::fiber main;  // the driving thread's continuation while a core runs
  const void* main_bottom = nullptr;
  std::size_t main_size = 0;
  void* main_fake = nullptr;
  std::size_t finished = 0;
  std::uint64_t units = 0;
  std::exception_ptr failure;

  std::uint64_t communication_cost(ConstructKind kind) const noexcept {
    return kind < communication_costs.size() ? communication_costs[kind] : config.costs.communication;
  }

  // Scheduling
  void core_body(CoreId core);
  void to_main(VirtualCore& self);
  void reschedule(CoreId core, std::uint64_t at);
  void wake(VirtualCore& core, std::uint64_t at);

  // The runtime lock
  void acquire(CoreId core);
  void release(CoreId core) {
    // An assignment within a held-through hold may end, in this machine's order of events,
    // after another core already took the lock at the hold's end: the lock is that core's.
    if (cores[core].clock < lock_free_at) return;
    lock_free_at = cores[core].clock;
    lock_holder = core;
  }

  // TimeSource
  std::uint64_t now(CoreId core) const noexcept override {
    if (core >= cores.size()) return 0;
    const VirtualCore& c = cores[core];
    if (!c.in_unit) return c.clock;
    return c.clock + (config.work == SimWork::declared ? c.charged : measured_since(c.host_begin));
  }
  double hz() const noexcept override { return config.costs.clock_hz; }
  std::string source() const override { return "virtual"; }
  std::vector<std::pair<std::string, std::string>> header() const override;

  std::uint64_t measured_since(std::uint64_t begin) const noexcept {
    return static_cast<std::uint64_t>(std::llround(static_cast<double>(host_ns() - begin) * measured_scale));
  }

  // RuntimeObserver: advance the clock, then tell the user's observer at the new time.
  void language_names_domains() override {
    if (user) user->language_names_domains();
  }
  void run_start(const LanguageInfo& language, std::size_t core_count) override {
    handler_costs.clear();
    communication_costs.clear();
    for (const ConstructInfo& construct : language.constructs) {
      handler_costs.push_back(config.costs.handler_cost(construct.name));
      communication_costs.push_back(config.costs.communication_cost(construct.name));
    }
    if (user) {
      user->use_time_source(*this);
      user->run_start(language, core_count);
    }
  }
  void core_start(CoreId core) override { if (user) user->core_start(core); }
  void core_stop(CoreId core) override { if (user) user->core_stop(core); }
  void vp_created(CoreId core, VpId vp, const std::string& name, const CallSite& site,
                  CoreId home) override {
    if (user) user->vp_created(core, vp, name, site, home);
  }
  void constraint(CoreId core, ConstructKind kind, UnitId from, UnitId to,
                  std::uint64_t match) override {
    if (user) user->constraint(core, kind, from, to, match);
  }
  void user_event(CoreId core, UnitId unit, const char* name, bool begin) override {
    if (user) user->user_event(core, unit, name, begin);
  }
  void work_declared(CoreId core, std::uint64_t ticks) override {
    if (user) user->work_declared(core, ticks);
  }
  void group_defined(CoreId core, std::uint64_t group, ConstructKind kind,
                     const std::string& name) override {
    if (user) user->group_defined(core, group, kind, name);
  }
  void group_member(CoreId core, std::uint64_t group, std::uint16_t role, UnitId unit) override {
    if (user) user->group_member(core, group, role, unit);
  }
  void unit_begin(CoreId core, VpId vp, UnitId unit) override {
    VirtualCore& c = cores[core];
    c.clock += config.costs.switch_ticks;
    if (sharing) {
      // The unit slows the others down from its begin on: every earlier step goes first.
      reschedule(core, c.clock);
      advance_work(c.clock);
      ++busy;
      ++clocks[c.socket].busy;
      requeue_working();
    }
    if (user) user->unit_begin(core, vp, unit);
    c.charged = 0;
    c.in_unit = true;
    if (config.work == SimWork::measured) c.host_begin = host_ns();
  }
  void unit_end(CoreId core, VpId vp, UnitId unit, ConstructKind ended_by,
                const CallSite& site) override {
    VirtualCore& c = cores[core];
    const std::uint64_t work = unit_work(c, site);
    if (!sharing) {
      c.clock += work;
    } else {
      // The work is shared out in virtual time: the core waits, suspended, until its socket's
      // work clock has done it, while the other cores' begins and ends change the pace.
      WorkClock& socket = clocks[c.socket];
      c.working = true;
      c.target = socket.work + static_cast<double>(work);
      socket.ends.insert({c.target, core});
      requeue_working();
      to_main(c);
      c.clock = std::max(c.clock, c.work_end);
      c.working = false;
      socket.ends.erase({c.target, core});
      socket.queued = kAnyCore;
      advance_work(c.clock);
      --busy;
      --socket.busy;
      requeue_working();
    }
    c.in_unit = false;
    ++units;
    if (user) user->unit_end(core, vp, unit, ended_by, site);
    // The core asks for the lock after the communication: other cores go first until then.
    if (domains) {
      held[core].communication = communication_cost(ended_by);
      held[core].kind = ended_by;
    }
    reschedule(core, c.clock + communication_cost(ended_by));
  }
  // handler_domains comes before the runtime takes the domains. The core reserves them in
  // virtual time: its hold begins when the last of them is free and lasts the takes and its
  // handler, so cores that ask later queue behind it in the order they asked; it waits for the
  // begin here, yielding to the cores before it, so that no core earlier in virtual time (whose
  // assigner takes no lock) runs after this handler and sees what it freed.
  void handler_domains(CoreId core, const LockDomain* keys, std::size_t count) override {
    Held& h = held[core];
    h.count = std::min(count, h.keys.size());
    std::copy(keys, keys + h.count, h.keys.begin());
    if (user) user->handler_domains(core, keys, count);
    VirtualCore& c = cores[core];
    c.clock += std::exchange(h.communication, 0);
    std::uint64_t begin = c.clock, hold = h.kind < handler_costs.size() ? handler_costs[h.kind] : config.costs.handler;
    std::array<CoreId, 4> released_by{};
    for (std::size_t k = 0; k < h.count; ++k) {
      DomainLock& lock = *(h.locks[k] = h.keys[k] == kWholeLanguage ? &whole : &domain_locks[h.keys[k]]);
      const std::uint64_t free_at = config.lock_excludes ? free_at_of(lock) : 0;
      h.cost[k] = config.costs.lock;
      if (config.lock_excludes && lock.holder != kAnyCore && lock.holder != core) h.cost[k] += config.costs.lock_handoff;
      if (free_at > c.clock) h.cost[k] += config.costs.lock_contended;
      released_by[k] = free_at > c.clock ? lock.holder : kAnyCore;
      begin = std::max(begin, free_at);
      hold += h.cost[k];
    }
    if (!config.lock_excludes) return;
    for (std::size_t k = 0; k < h.count; ++k) {
      h.locks[k]->free_at = begin + hold;
      h.locks[k]->holder = core;
    }
    if (begin == c.clock) return;
    if (user) user->lock_wait_begin(core);
    c.clock = begin;
    reschedule(core, begin);
    if (!user) return;
    for (std::size_t k = 0; k < h.count; ++k) {
      if (released_by[k] == kAnyCore) continue;
      const LockDomain key = h.keys[k];
      if (key != kWholeLanguage && name_domain && h.named.insert(key).second) {
        user->lock_domain_named(core, key, name_domain(key));
      }
      user->lock_wait_end(core, released_by[k], key);
    }
  }
  void handler_enter(CoreId core, ConstructKind kind, UnitId unit) override {
    if (!domains) cores[core].clock += communication_cost(kind);
    if (domains) {
      acquire_domains(core);
    } else {
      acquire(core);
    }
    if (user) user->handler_enter(core, kind, unit);
  }
  void handler_exit(CoreId core, ConstructKind kind, UnitId unit) override {
    cores[core].clock += kind < handler_costs.size() ? handler_costs[kind] : config.costs.handler;
    if (user) user->handler_exit(core, kind, unit);
    if (domains) {
      release_domains(core);
      return;
    }
    // The lock stays taken through the assignment that comes next on this core: a core that
    // asks in between waits for its end, and this core does not ask again.
    release(core);
    lock_free_at += config.costs.assigner;
    cores[core].holds_lock = true;
  }
  // A language that names lock domains synchronises its assigner itself, per core: no shared lock.
  void assigner_enter(CoreId core) override {
    if (!domains) acquire(core);
    if (user) user->assigner_enter(core);
  }
  void assigner_exit(CoreId core, UnitId chosen) override {
    cores[core].clock += config.costs.assigner;
    if (user) user->assigner_exit(core, chosen);
    if (!domains) release(core);
  }
  void lock_wait_begin(CoreId core) override { if (user) user->lock_wait_begin(core); }
  void lock_domain_named(CoreId core, LockDomain domain, const std::string& name) override {
    if (user) user->lock_domain_named(core, domain, name);
  }
  void lock_wait_end(CoreId core, CoreId by, LockDomain domain) override {
    if (user) user->lock_wait_end(core, by, domain);
  }
  void idle_begin(CoreId core) override { if (user) user->idle_begin(core); }
  void idle_end(CoreId core) override { if (user) user->idle_end(core); }
  void chore_begin(CoreId core) override { if (user) user->chore_begin(core); }
  void chore_end(CoreId core, Chore chore, std::uint32_t n) override { if (user) user->chore_end(core, chore, n); }
};

// acquire takes the runtime lock at the core's time: a core that asks while another holds it
// (in virtual time) waits until the release, and the wait is reported as on real cores.
void SimMachine::Impl::acquire(CoreId core) {
  VirtualCore& c = cores[core];
  if (c.holds_lock) {
    c.holds_lock = false;
    return;
  }
  if (!config.lock_excludes) {
    c.clock += config.costs.lock;
    return;
  }
  std::uint64_t extra = lock_holder != core ? config.costs.lock_handoff : 0;
  if (lock_free_at > c.clock) {
    if (user) user->lock_wait_begin(core);
    c.clock = lock_free_at;
    if (user) user->lock_wait_end(core, lock_holder, kWholeLanguage);
    extra += config.costs.lock_contended;
  }
  c.clock += config.costs.lock + extra;
}

// acquire_domains charges the takes of the domains the core reserved (handler_domains).
void SimMachine::Impl::acquire_domains(CoreId core) {
  const Held& h = held[core];
  for (std::size_t k = 0; k < h.count; ++k) cores[core].clock += h.cost[k];
}

void SimMachine::Impl::release_domains(CoreId core) {
  Held& h = held[core];
  for (std::size_t k = 0; k < h.count; ++k) {
    h.locks[k]->free_at = std::max(h.locks[k]->free_at, cores[core].clock);
    h.locks[k]->holder = core;
  }
  h.count = 0;
}

void SimMachine::Impl::advance_work(std::uint64_t to) {
  for (WorkClock& socket : clocks) {
    if (to <= socket.at) continue;
    if (socket.busy > 0) socket.work += static_cast<double>(to - socket.at) / stretch(socket);
    socket.at = to;
  }
}

// requeue_working moves each socket's next end to where the current pace puts it: O(sockets).
void SimMachine::Impl::requeue_working() {
  for (WorkClock& socket : clocks) {
    if (socket.ends.empty()) continue;
    const CoreId next = socket.ends.begin()->second;
    if (socket.queued != kAnyCore && socket.queued != next) ++cores[socket.queued].ticket;  // no longer first
    VirtualCore& c = cores[next];
    const double left = std::max(0.0, c.target - socket.work);
    c.work_end = socket.at + static_cast<std::uint64_t>(std::ceil(left * stretch(socket)));
    push(next, c.work_end);
    socket.queued = next;
  }
}

double SimMachine::Impl::rate_at(const CallSite& site) {
  if (config.costs.work.site_rates.empty()) return config.costs.work.rate;
  auto& by_line = site_rates[site.file];
  const auto found = by_line.find(site.line);
  if (found != by_line.end()) return found->second;
  const double rate = config.costs.work.rate_at(std::string(site.file) + ":" + std::to_string(site.line));
  by_line.emplace(site.line, rate);
  return rate;
}

// unit_work is the unit's virtual duration alone on its core: its declared work at its site's
// rate, or its host time, times the core's speed.
std::uint64_t SimMachine::Impl::unit_work(VirtualCore& c, const CallSite& site) {
  if (config.work == SimWork::measured) {
    const std::uint64_t measured = measured_since(c.host_begin);
    return c.speed == 1.0 ? measured : static_cast<std::uint64_t>(std::llround(static_cast<double>(measured) * c.speed));
  }
  const double scale = rate_at(site) * c.speed;
  if (scale == 1.0) return c.charged;
  const double ticks = static_cast<double>(c.charged) * scale;
  return ticks >= 1.8e19 ? UINT64_MAX : static_cast<std::uint64_t>(std::llround(ticks));
}

std::vector<std::pair<std::string, std::string>> SimMachine::Impl::header() const {
  const SimTopology& t = config.topology;
  std::string costs = config.costs.text();
  // One line: the cost model's key = value lines joined with commas, comments dropped.
  std::string compact;
  std::istringstream lines(costs);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] == '#') continue;
    line.erase(std::remove(line.begin(), line.end(), ' '), line.end());
    compact += (compact.empty() ? "" : ",") + line;
  }
  std::ostringstream factor;
  factor << config.factor;
  return {{"machine", t.text()},
          {"topology", "packages:" + std::to_string(t.sockets) + " cores:" +
                           std::to_string(t.cores()) + " pus:" + std::to_string(t.cores())},
          {"sim_work", config.work == SimWork::declared ? "declared" : "measured"},
          {"sim_factor", factor.str()},
          {"cost_model", compact}};
}

// to_main suspends the running core and resumes the driving loop.
void SimMachine::Impl::to_main(VirtualCore& self) {
  Asan::leave(&self.fake_stack, main_bottom, main_size);
  main = std::move(main).resume();
  Asan::arrive(self.fake_stack, &main_bottom, &main_size);
}

// reschedule lets the core go on at virtual time `at` if no other core is earlier; otherwise it
// queues the core and lets the earliest one run.
void SimMachine::Impl::reschedule(CoreId core, std::uint64_t at) {
  if (!live_top() || !queue.top().before(at, core)) return;
  push(core, at);
  to_main(cores[core]);
}

// wake makes a sleeping core look again at `at`: its clock stopped when it went idle, so
// `at - clock` is how long it has been idle, which says whether it still spins or has parked.
void SimMachine::Impl::wake(VirtualCore& core, std::uint64_t at) {
  core.clock = std::max(core.clock, at) + config.costs.wake_cost(at > core.clock ? at - core.clock : 0);
  core.state = VirtualCore::State::runnable;
  push(static_cast<CoreId>(&core - cores.data()), core.clock);
}

// core_body is a virtual core's own loop: the scheduler step until the run is over; an idle
// core sleeps until notify_work.
void SimMachine::Impl::core_body(CoreId core) {
  VirtualCore& self = cores[core];
  try {
    for (;;) {
      const CoreScheduler::Step step = scheduler->step(core);
      if (step == CoreScheduler::Step::finished) break;
      if (step == CoreScheduler::Step::idle) {
        self.state = VirtualCore::State::sleeping;
        to_main(self);
        continue;
      }
      // The next step assigns the core's next VP: in virtual-time order with the other cores,
      // unless the core holds the runtime lock through that assignment since its handler. Then it
      // assigns at once: a core that came first in this machine's order of events would take the
      // lock after the hold, yet run its handler before this earlier assignment, which would then
      // see what that handler freed before it was freed.
      if (!self.holds_lock) reschedule(core, self.clock);
    }
  } catch (...) {
    // Only an observer can throw here (e.g. a trace write failing): the run cannot go on.
    if (!failure) failure = std::current_exception();
  }
  self.state = VirtualCore::State::done;
}

SimMachine::SimMachine(SimConfig config) : impl_(std::make_unique<Impl>(std::move(config))) {
  const SimConfig& c = impl_->config;
  if (c.topology.cores() == 0 || c.topology.cores() > kMaxSimCores) {
    throw ConfigError("a simulated machine has 1.." + std::to_string(kMaxSimCores) + " cores, not " +
                      std::to_string(c.topology.cores()));
  }
  if (!std::isfinite(c.factor) || c.factor <= 0) {
    throw ConfigError("the measured-work factor must be a positive number");
  }
  if (!std::isfinite(c.costs.clock_hz) || c.costs.clock_hz <= 0) {
    throw ConfigError("the cost model's clock_hz must be a positive number");
  }
  impl_->measured_scale = c.factor * c.costs.clock_hz / 1e9;
}

SimMachine::~SimMachine() = default;

std::size_t SimMachine::core_count() const { return impl_->cores.size(); }

const SimConfig& SimMachine::config() const noexcept { return impl_->config; }

std::uint64_t SimMachine::units() const noexcept { return impl_->units; }

std::uint64_t SimMachine::makespan() const noexcept {
  std::uint64_t latest = kOrigin;
  for (const VirtualCore& core : impl_->cores) latest = std::max(latest, core.clock);
  return latest - kOrigin;
}

std::string SimMachine::describe_core(CoreId core) const {
  const SimTopology& t = impl_->config.topology;
  std::string text = "virtual core " + std::to_string(core);
  if (t.sockets > 1) text += " (socket " + std::to_string(core / t.cores_per_socket) + ")";
  return text;
}

RuntimeObserver* SimMachine::observe(RuntimeObserver* observer) {
  impl_->user = observer;
  return impl_.get();
}

void SimMachine::charge_work(CoreId core, std::uint64_t ticks) noexcept {
  if (core >= impl_->cores.size()) return;
  std::uint64_t& charged = impl_->cores[core].charged;
  charged = ticks > UINT64_MAX - charged ? UINT64_MAX : charged + ticks;
}

void SimMachine::use_language_costs(const CostModel& costs) {
  if (!impl_->config.language_costs) return;
  CostModel& own = impl_->config.costs;
  for (const auto& [construct, ticks] : costs.handlers) own.handlers.try_emplace(construct, ticks);
  for (const auto& [construct, ticks] : costs.communications) own.communications.try_emplace(construct, ticks);
}

void SimMachine::use_lock_domains(std::function<std::string(LockDomain)> name) {
  impl_->domains = static_cast<bool>(name);
  impl_->name_domain = std::move(name);
}

void SimMachine::notify_work(CoreId core) {
  Impl& sim = *impl_;
  if (!sim.driving) return;
  const std::uint64_t at = sim.cores[sim.current].clock;
  if (core == kAnyCore) {
    for (VirtualCore& c : sim.cores) {
      if (c.state == VirtualCore::State::sleeping) sim.wake(c, at);
    }
  } else if (core < sim.cores.size() && sim.cores[core].state == VirtualCore::State::sleeping) {
    sim.wake(sim.cores[core], at);
  }
}

void SimMachine::drive(CoreScheduler& scheduler) {
  Impl& sim = *impl_;
  sim.scheduler = &scheduler;
  sim.driving = true;
  sim.finished = 0;
  sim.units = 0;
  sim.lock_free_at = kOrigin;
  sim.lock_holder = 0;
  const SimTopology& shape = sim.config.topology;
  sim.sharing = sim.config.costs.work.stretches();
  sim.clocks.assign(shape.sockets, Impl::WorkClock{});
  sim.busy = 0;
  for (std::size_t k = 0; k < sim.cores.size(); ++k) {  // each run starts at the origin
    sim.cores[k] = VirtualCore{};
    sim.cores[k].socket = k / shape.cores_per_socket;
    sim.cores[k].speed = core_speed(k, sim.cores.size(), sim.config.costs.work.core_spread);
  }
  for (std::size_t k = 0; k < sim.cores.size(); ++k) {
    VirtualCore& core = sim.cores[k];
    const auto id = static_cast<CoreId>(k);
    ctx::stack_context stack{};
    core.suspended = ctx::fiber(std::allocator_arg, CoreStack{{kCoreStack}, &stack},
                                [&sim, id](ctx::fiber&& from) {
                                  Asan::arrive(nullptr, &sim.main_bottom, &sim.main_size);
                                  sim.main = std::move(from);
                                  sim.core_body(id);
                                  Asan::leave(nullptr, sim.main_bottom, sim.main_size);
                                  return std::move(sim.main);
                                });
    core.stack_bottom = static_cast<const char*>(stack.sp) - stack.size;
    core.stack_size = stack.size;
    sim.push(id, core.clock);
  }
  while (sim.live_top()) {
    const CoreId id = sim.queue.top().core;
    sim.queue.pop();
    VirtualCore& core = sim.cores[id];
    sim.current = id;
    Asan::leave(&sim.main_fake, core.stack_bottom, core.stack_size);
    core.suspended = std::move(core.suspended).resume();
    Asan::arrive(sim.main_fake, &core.stack_bottom, &core.stack_size);
    if (core.state == VirtualCore::State::done) ++sim.finished;
  }
  sim.driving = false;
  if (sim.failure) std::rethrow_exception(sim.failure);
  if (sim.finished != sim.cores.size()) {
    throw std::logic_error("simulated machine: every core sleeps but the run did not end");
  }
}

}  // namespace moirai::proto

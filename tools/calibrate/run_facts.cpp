#include "run_facts.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iomanip>
#include <stdexcept>
#include <utility>

#include "busy_cores.h"
#include "child_process.h"
#include "moirai/proto_runtime/real_machine.h"
#include "rerun.h"
#include "trace_input.h"

namespace moirai::calibrate {

namespace {

namespace fs = std::filesystem;

// DeclaredWork is each unit's declared work in cycles and the call site that ended it.
using DeclaredWork = std::map<const trace::Unit*, std::pair<double, std::string>>;

std::string metadata(const trace::Trace& t, const std::string& key) {
  const auto found = t.metadata.find(key);
  return found == t.metadata.end() ? std::string() : found->second;
}

// packages reads the socket count from the topology line ("packages:2 cores:16 pus:32").
std::uint32_t packages(const trace::Trace& t) {
  const std::string topology = metadata(t, "topology");
  const std::size_t at = topology.find("packages:");
  if (at == std::string::npos) return 1;
  const unsigned long n = std::strtoul(topology.c_str() + at + 9, nullptr, 10);
  return n == 0 ? 1 : static_cast<std::uint32_t>(n);
}

// VpKey names a VP across two runs of one program: its name and which VP of that name it was,
// in creation order.
using VpKey = std::pair<std::string, std::size_t>;

// units_by_vp is each VP's units in order, by its VpKey (units of VPs the trace does not list left out).
std::map<VpKey, std::vector<const trace::Unit*>> units_by_vp(const trace::Trace& t) {
  std::map<std::uint64_t, std::string> names;
  for (const trace::Trace::Vp& vp : t.vps) names[vp.id] = vp.name;
  std::map<std::uint64_t, VpKey> keys;
  std::map<std::string, std::size_t> seen;
  for (const auto& [id, name] : names) keys[id] = {name, seen[name]++};  // ids grow with creation
  std::map<VpKey, std::vector<const trace::Unit*>> by;
  for (const trace::Unit& u : t.units) {
    const auto key = keys.find(u.record.vp);
    if (key != keys.end()) by[key->second].push_back(&u);
  }
  for (auto& [key, list] : by) {
    std::sort(list.begin(), list.end(), [](const trace::Unit* a, const trace::Unit* b) { return a->record.unit < b->record.unit; });
  }
  return by;
}

// vp_text names a VP in a message.
std::string vp_text(const VpKey& key) {
  return "VP '" + key.first + "'" + (key.second > 0 ? " (#" + std::to_string(key.second + 1) + " of that name)" : "");
}

// declared_by_rerun re-runs the trace's command on the simulated machine and pairs each real unit
// with the re-run's unit of the same VP and position: its declared work and call site.
DeclaredWork declared_by_rerun(const std::string& path, const trace::Trace& real, const FitOptions& options,
                               std::ostream& log) {
  const std::string scratch = options.scratch_dir.empty() ? fs::temp_directory_path().string() : options.scratch_dir;
  const std::string into = (fs::path(scratch) / ("moirai-fit-" + std::to_string(::getpid()) + "-" +
                                                 fs::path(path).stem().string() + ".mtrace"))
                               .string();
  const std::vector<std::string> argv = sim_command(path, real, options.rerun_dir, into);
  const std::string shown = tools::command_text(argv);
  if (!options.rerun) {
    throw std::runtime_error(path + ": format " + std::to_string(real.version.first) + "." +
                             std::to_string(real.version.second) +
                             " holds no declared work; to learn it, --fit would run the command the trace names:\n    " +
                             shown + "\n  add --rerun to run it (only for a trace you trust: it runs as you)");
  }
  log << "  re-running for declared work: " << shown << '\n';
  run_on_sim(path, argv, into);
  trace::Trace sim = tools::read_checked_trace(into, "moirai-calibrate", log);
  std::remove(into.c_str());
  const auto real_vps = units_by_vp(real);
  const auto sim_vps = units_by_vp(sim);
  DeclaredWork paired;
  for (const auto& [key, units] : real_vps) {
    const auto other = sim_vps.find(key);
    if (other == sim_vps.end()) {
      throw std::runtime_error(path + ": the re-run on the simulated machine has no " + vp_text(key) +
                               ", so its units cannot be paired with the real run's (a program that "
                               "names its VPs differently from run to run cannot be fitted from an old trace)");
    }
    if (other->second.size() != units.size()) {
      throw std::runtime_error(path + ": " + vp_text(key) + " ran " + std::to_string(units.size()) +
                               " units on real cores but " + std::to_string(other->second.size()) +
                               " in the re-run, so they cannot be paired");
    }
    for (std::size_t i = 0; i < units.size(); ++i) {
      const trace::Unit& s = *other->second[i];
      paired[units[i]] = {static_cast<double>(s.declared), sim.site_name(s.record.site)};
    }
  }
  return paired;
}

// declared_work is each unit's declared work: as recorded, or (a trace older than format 3.1
// whose units recorded none) learnt by re-running its command.
DeclaredWork declared_work(const std::string& path, const trace::Trace& t, const FitOptions& options, RunFacts& facts,
                           std::ostream& log) {
  bool recorded = false;
  for (const trace::Unit& u : t.units) recorded = recorded || u.declared > 0;
  // Since format 3.1 a unit without a declared_work record declared none: nothing to re-run.
  if (recorded || t.version >= std::pair<std::uint16_t, std::uint16_t>{3, 1}) {
    DeclaredWork declared;
    for (const trace::Unit& u : t.units) declared[&u] = {static_cast<double>(u.declared), t.site_name(u.record.site)};
    facts.declared_from = "recorded";
    return declared;
  }
  facts.declared_from = "re-run on sim:" + std::to_string(t.core_count);
  return declared_by_rerun(path, t, options, log);
}

// observe_units adds each unit that declared work to `facts` with how busy the machine and its
// socket were during it (a unit that declared none to its empty units); returns the cycles
// declared in all.
double observe_units(const trace::Trace& t, const DeclaredWork& declared, RunFacts& facts) {
  const double ns_per_tick = 1e9 / t.clock_hz;
  const std::uint32_t sockets = std::min(packages(t), std::max<std::uint32_t>(t.core_count, 1));
  const std::uint32_t per_socket = (t.core_count + sockets - 1) / sockets;
  std::vector<const trace::Unit*> all;
  std::vector<std::vector<const trace::Unit*>> by_socket(sockets);
  for (const trace::Unit& u : t.units) {
    all.push_back(&u);
    by_socket[std::min(u.core / per_socket, sockets - 1)].push_back(&u);
  }
  const BusyCores machine(all);
  std::vector<BusyCores> socket_busy;
  for (const auto& list : by_socket) socket_busy.emplace_back(list);

  double total_declared = 0;
  for (const trace::Unit& u : t.units) {
    // A unit the re-run could not pair (of a VP the trace does not list) declared nothing.
    const auto found = declared.find(&u);
    const double cycles = found == declared.end() ? 0 : found->second.first;
    const std::string site = found == declared.end() ? std::string() : found->second.second;
    if (cycles <= 0) {
      facts.empty_units.push_back(static_cast<double>(u.work()) * ns_per_tick);
      continue;
    }
    total_declared += cycles;
    Observation o;
    o.site = site;
    o.core = u.core;
    o.declared = cycles;
    o.work_ns = static_cast<double>(u.work()) * ns_per_tick;
    o.others = std::max(0.0, machine.mean(u.record.begin, u.record.end) - 1);
    o.others_socket =
        std::max(0.0, socket_busy[std::min(u.core / per_socket, sockets - 1)].mean(u.record.begin, u.record.end) - 1);
    facts.units.push_back(o);
  }
  return total_declared;
}

// read_lock_steps adds each unit's runtime steps to `facts`: its handler (on the core that held
// the lock last, or handed over from another), the hold after a wait for the lock and the
// hand-over before it, the communication when the lock was free, and the decision.
void read_lock_steps(const trace::Trace& t, RunFacts& facts) {
  const double ns_per_tick = 1e9 / t.clock_hz;
  // The core whose handler ran last before each unit's handler.
  std::vector<const trace::Unit*> by_handler;
  for (const trace::Unit& u : t.units) by_handler.push_back(&u);
  std::sort(by_handler.begin(), by_handler.end(),
            [](const trace::Unit* a, const trace::Unit* b) { return a->record.handler < b->record.handler; });
  std::map<std::uint64_t, const trace::Unit*> last_holder;
  for (std::size_t i = 1; i < by_handler.size(); ++i) last_holder[by_handler[i]->record.unit] = by_handler[i - 1];
  // A hold ends when its core has unlocked: the first unit begin or idle begin on that core after
  // the handler (each is recorded just after the unlock).
  std::vector<std::vector<std::uint64_t>> after_unlock(t.core_count);
  for (const trace::Unit& u : t.units) after_unlock[u.core].push_back(u.record.begin);
  for (const trace::Span& s : t.idle) after_unlock[s.core].push_back(s.begin);
  for (auto& list : after_unlock) std::sort(list.begin(), list.end());
  const auto released_at = [&](const trace::Unit& holder) -> std::optional<std::uint64_t> {
    const auto& list = after_unlock[holder.core];
    const auto it = std::lower_bound(list.begin(), list.end(), holder.record.handler_end);
    if (it == list.end()) return std::nullopt;
    return *it;
  };
  for (const trace::Unit& u : t.units) {
    const trace::UnitRecord& r = u.record;
    const auto holder = last_holder.find(r.unit);
    const bool from_other = holder != last_holder.end() && holder->second->core != u.core;
    (from_other ? facts.handed : facts.handlers)[t.construct_name(r.ended_by)].push_back(
        static_cast<double>(r.handler_end - r.handler) * ns_per_tick);
    if (r.locked > r.end) {
      facts.after_wait[t.construct_name(r.ended_by)].push_back(static_cast<double>(r.handler_end - r.locked) * ns_per_tick);
      const auto released = from_other ? released_at(*holder->second) : std::nullopt;
      if (released && *released <= r.locked && *released >= r.end) {
        facts.handover.push_back(static_cast<double>(r.locked - *released) * ns_per_tick);
      }
    }
    if (r.locked == r.end) {
      facts.communication[t.construct_name(r.ended_by)].push_back(static_cast<double>(r.handler - r.end) * ns_per_tick);
    }
    // The whole decision span, chores after the lock included: the simulated machine charges a
    // waker nothing, so the assigner's cost carries them (docs/cost-model.md).
    facts.decision.push_back(static_cast<double>(r.begin - r.assign) * ns_per_tick);
  }
}

// read_wake_ups adds each wake-up to `facts`: a unit whose core was idle until its decision
// began, freed before that by another core's handler; split by whether the idle core still
// spun or had parked.
void read_wake_ups(const trace::Trace& t, RunFacts& facts) {
  const double ns_per_tick = 1e9 / t.clock_hz;
  std::map<std::uint64_t, const trace::ConstraintRecord*> freed_by;  // freed unit -> its constraint
  std::map<std::uint64_t, std::uint32_t> core_of;
  for (const trace::Unit& u : t.units) core_of[u.record.unit] = u.core;
  for (const trace::ConstraintRecord& c : t.constraints) {
    auto& slot = freed_by[c.to];
    if (slot == nullptr || c.time > slot->time) slot = &c;
  }
  // Handlers run under the runtime lock, one at a time: by their begins, each ends before the
  // next begins. A constraint recorded inside one makes its work ready only when it ends, which
  // is where the simulated machine starts a wake-up too.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> handlers;
  for (const trace::Unit& u : t.units) handlers.emplace_back(u.record.handler, u.record.handler_end);
  std::sort(handlers.begin(), handlers.end());
  const auto handler_end_at = [&](std::uint64_t time) {
    auto it = std::upper_bound(handlers.begin(), handlers.end(), std::pair{time, UINT64_MAX});
    if (it == handlers.begin()) return time;
    --it;
    return time <= it->second ? it->second : time;
  };
  std::vector<std::vector<const trace::Span*>> idle(t.core_count);
  for (const trace::Span& s : t.idle) idle[s.core].push_back(&s);
  for (auto& list : idle) {
    std::sort(list.begin(), list.end(), [](const trace::Span* a, const trace::Span* b) { return a->end < b->end; });
  }
  for (const trace::Unit& u : t.units) {
    const trace::UnitRecord& r = u.record;
    const auto& spans = idle[u.core];
    const auto after = std::lower_bound(spans.begin(), spans.end(), r.assign,
                                        [](const trace::Span* s, std::uint64_t at) { return s->end < at; });
    if (after == spans.end() || (*after)->end != r.assign) continue;
    const auto freed = freed_by.find(r.unit);
    if (freed == freed_by.end()) continue;
    const auto from = core_of.find(freed->second->from);
    if (from == core_of.end() || from->second == u.core) continue;
    const std::uint64_t at = handler_end_at(freed->second->time);
    if (at <= r.assign && at >= (*after)->begin) {
      // The real machine's idle core spins RealMachine::kIdleSpinNs before it parks.
      const bool parked = static_cast<double>(at - (*after)->begin) * ns_per_tick >= static_cast<double>(proto::RealMachine::kIdleSpinNs);
      (parked ? facts.wake_parked : facts.wake).push_back(static_cast<double>(r.assign - at) * ns_per_tick);
    }
  }
}

}  // namespace

std::optional<RunFacts> read_run(const std::string& path, const FitOptions& options, std::ostream& log) {
  trace::Trace t = tools::read_checked_trace(path, "moirai-calibrate", log);
  if (!t.complete) {
    log << "moirai-calibrate: warning: " << path << ": a partial trace is left out of the fit\n";
    return std::nullopt;
  }
  if (metadata(t, "clock_source") == "virtual") {
    throw std::runtime_error(path + ": a run on a simulated machine; --fit needs traces of real cores");
  }
  if (t.units.empty()) throw std::runtime_error(path + ": the trace holds no units");
  RunFacts facts;
  facts.path = path;
  facts.cores = t.core_count;
  log << path << ": " << t.core_count << " cores, " << t.units.size() << " units\n";
  const DeclaredWork declared = declared_work(path, t, options, facts, log);
  const double total_declared = observe_units(t, declared, facts);
  if (total_declared <= 0) {
    // Its runtime steps still count, beside a run that declares work (fit_model checks there is one).
    facts.declares_nothing = path + ": its program declares no work (ctx.charge_work), so there is no rate to "
                             "fit; declare each unit's work in the program, or calibrate the runtime's "
                             "costs alone with moirai-calibrate (no --fit)";
  }
  read_lock_steps(t, facts);
  read_wake_ups(t, facts);
  log << "  declared work " << facts.declared_from << ": " << facts.units.size() << " units declared "
      << std::setprecision(4) << total_declared << " cycles\n";
  return facts;
}

}  // namespace moirai::calibrate

#include "fit.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <unistd.h>

#include "moirai/program/app_main.h"
#include "moirai/program/flags.h"
#include "moirai/proto_runtime/real_machine.h"
#include "moirai/ssr/cost_model.h"
#include "moirai/trace/reader.h"
#include "child_process.h"
#include "trace_input.h"

namespace moirai::calibrate {

namespace {

namespace fs = std::filesystem;

// Observation is one unit of a real run whose program declared its work.
struct Observation {
  std::string site;       // the call site that ended it, "file:line"
  std::uint32_t core = 0;
  double declared = 0;    // cycles
  double work_ns = 0;     // measured work, less what the OS took
  double others = 0;      // other cores busy on average during it, machine-wide
  double others_socket = 0;  // ... of its own socket
};

// RunFacts is what one trace gives the fit.
struct RunFacts {
  std::string path;
  std::uint32_t cores = 0;
  std::string declared_from;  // "recorded" or "re-run on sim:N"
  std::string declares_nothing;  // why it gives runtime steps only, when its program declares no work
  std::vector<Observation> units;
  // Runtime steps in ns, per sample. A handler whose lock another core held last (`handed`)
  // also waits for the lines that core wrote.
  std::map<std::string, std::vector<double>> handlers, handed;
  // From the lock taken to the handler's end, after the core waited for the lock: the holder
  // that released it has just written the lines this hold reads.
  std::map<std::string, std::vector<double>> after_wait;
  // From the release by the core that held the lock last to the acquisition by a core that
  // waited for it: the waiter sees the release only when the lock's line reaches it.
  std::vector<double> handover;
  std::map<std::string, std::vector<double>> communication;  // by the construct that ended the unit
  std::vector<double> decision;
  std::vector<double> empty_units;  // the work of units that declared none: the switch and the VP's side of a construct
  std::vector<double> wake, wake_parked;  // an idle core woken while it spins, or once parked
};

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

// Busy is the step function of how many cores are in a unit, with its running integral, so the
// average over any span is two look-ups.
class Busy {
 public:
  explicit Busy(const std::vector<const trace::Unit*>& units) {
    std::vector<std::pair<std::uint64_t, int>> steps;
    for (const trace::Unit* u : units) {
      steps.push_back({u->record.begin, +1});
      steps.push_back({u->record.end, -1});
    }
    std::sort(steps.begin(), steps.end());
    int level = 0;
    double area = 0;
    std::uint64_t last = steps.empty() ? 0 : steps.front().first;
    for (const auto& [at, delta] : steps) {
      area += static_cast<double>(at - last) * level;
      level += delta;
      last = at;
      if (!times_.empty() && times_.back() == at) {
        levels_.back() = level;
      } else {
        times_.push_back(at);
        areas_.push_back(area);
        levels_.push_back(level);
      }
    }
  }
  // mean is the average number of busy cores over [begin, end).
  double mean(std::uint64_t begin, std::uint64_t end) const {
    if (end <= begin) return level_at(begin);
    return (integral(end) - integral(begin)) / static_cast<double>(end - begin);
  }

 private:
  double integral(std::uint64_t t) const {
    auto it = std::upper_bound(times_.begin(), times_.end(), t);
    if (it == times_.begin()) return 0;
    const std::size_t i = static_cast<std::size_t>(it - times_.begin()) - 1;
    return areas_[i] + static_cast<double>(t - times_[i]) * levels_[i];
  }
  double level_at(std::uint64_t t) const {
    auto it = std::upper_bound(times_.begin(), times_.end(), t);
    return it == times_.begin() ? 0 : levels_[static_cast<std::size_t>(it - times_.begin()) - 1];
  }
  std::vector<std::uint64_t> times_;
  std::vector<double> areas_;
  std::vector<int> levels_;
};

// split_words splits a recorded command line at spaces (Moirai's apps record it unquoted).
std::vector<std::string> split_words(const std::string& line) {
  std::vector<std::string> words;
  std::istringstream in(line);
  for (std::string word; in >> word;) words.push_back(word);
  return words;
}

// sim_command turns a real run's command line into the same program on sim:N with declared work,
// recording into `trace_path`: flags that choose the machine, record or check are replaced.
std::vector<std::string> sim_command(const std::string& trace_path, const std::string& line, std::uint32_t cores,
                                     const std::string& rerun_dir, const std::string& into) {
  std::vector<std::string> words = split_words(line);
  if (words.empty()) {
    throw std::runtime_error(trace_path + ": the trace records no command line to re-run");
  }
  static const std::vector<std::string> kWithValue = {"--cores", "--machine", "--trace", "--counters",
                                                     "--cost-model", "--sim-work", "--sim-factor"};
  static const std::vector<std::string> kToggles = {"--check", "--progress", "--profile", "--no-os-time"};
  std::vector<std::string> argv;
  fs::path program(words[0]);
  if (program.is_relative() && words[0].find('/') != std::string::npos) program = fs::path(rerun_dir) / program;
  argv.push_back(program.string());
  for (std::size_t i = 1; i < words.size(); ++i) {
    const std::string& word = words[i];
    const std::string name = word.substr(0, word.find('='));
    if (std::find(kToggles.begin(), kToggles.end(), word) != kToggles.end()) continue;
    if (std::find(kWithValue.begin(), kWithValue.end(), name) != kWithValue.end()) {
      if (name == word) ++i;  // `--flag value`: skip the value too
      continue;
    }
    argv.push_back(word);
  }
  for (const std::string& extra : {std::string("--machine"), "sim:" + std::to_string(cores), std::string("--sim-work"),
                                   std::string("declared"), std::string("--counters"), std::string("none"),
                                   std::string("--trace"), into}) {
    argv.push_back(extra);
  }
  return argv;
}

// command_text shows a command line as one line, as it will run.
std::string command_text(const std::vector<std::string>& argv) {
  std::string shown;
  for (const std::string& word : argv) shown += (shown.empty() ? "" : " ") + word;
  return shown;
}

// run_on_sim runs a trace's command re-written for the simulated machine (recording into
// `into`), its output kept aside; a failure names the trace, how the child ended and its last
// lines of stderr.
void run_on_sim(const std::string& path, const std::vector<std::string>& argv, const std::string& into) {
  const std::string out = into + ".out", err = into + ".err";
  const tools::ChildStatus status = tools::run_child(argv, out, err, 0);
  const std::vector<std::string> tail = tools::last_lines(err, 3);
  std::remove(out.c_str());
  std::remove(err.c_str());
  if (!status.succeeded()) {
    std::string why = status.started ? status.describe() : status.error;
    for (const std::string& line : tail) why += "\n    " + line;
    throw std::runtime_error(path + ": its command on the simulated machine failed (" + why +
                             "); run moirai-calibrate from the directory the trace was recorded in, or "
                             "name it with --rerun-dir");
  }
}

// VpKey names a VP across two runs of one program: its name and which VP of that name it was,
// in creation order.
using VpKey = std::pair<std::string, std::size_t>;

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

std::string vp_text(const VpKey& key) {
  return "VP '" + key.first + "'" + (key.second > 0 ? " (#" + std::to_string(key.second + 1) + " of that name)" : "");
}

// declared_by_rerun re-runs the trace's command on the simulated machine and pairs each real unit
// with the re-run's unit of the same VP and position: its declared work and call site.
std::map<const trace::Unit*, std::pair<double, std::string>> declared_by_rerun(const std::string& path,
                                                                               const trace::Trace& real,
                                                                               const FitOptions& options,
                                                                               std::ostream& log) {
  const std::string scratch = options.scratch_dir.empty() ? fs::temp_directory_path().string() : options.scratch_dir;
  const std::string into = (fs::path(scratch) / ("moirai-fit-" + std::to_string(::getpid()) + "-" +
                                                 fs::path(path).stem().string() + ".mtrace"))
                               .string();
  const std::vector<std::string> argv = sim_command(path, metadata(real, "command_line"), real.core_count,
                                                    options.rerun_dir, into);
  const std::string shown = command_text(argv);
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
  std::map<const trace::Unit*, std::pair<double, std::string>> paired;
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

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// read_run reads what one trace says about the machine; a partial trace (a killed run, a
// recording that stopped) is left out, said on `log`: its last units and idle are missing, and
// the fit would take the rest for the whole run.
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
  const double ns_per_tick = 1e9 / t.clock_hz;

  std::map<const trace::Unit*, std::pair<double, std::string>> declared;
  bool recorded = false;
  for (const trace::Unit& u : t.units) recorded = recorded || u.declared > 0;
  log << path << ": " << t.core_count << " cores, " << t.units.size() << " units\n";
  // Since format 3.1 a unit without a declared_work record declared none: nothing to re-run.
  if (recorded || t.version >= std::pair<std::uint16_t, std::uint16_t>{3, 1}) {
    for (const trace::Unit& u : t.units) declared[&u] = {static_cast<double>(u.declared), t.site_name(u.record.site)};
    facts.declared_from = "recorded";
  } else {
    declared = declared_by_rerun(path, t, options, log);
    facts.declared_from = "re-run on sim:" + std::to_string(t.core_count);
  }

  // How busy the machine and each socket were during each unit.
  const std::uint32_t sockets = std::min(packages(t), std::max<std::uint32_t>(t.core_count, 1));
  const std::uint32_t per_socket = (t.core_count + sockets - 1) / sockets;
  std::vector<const trace::Unit*> all;
  std::vector<std::vector<const trace::Unit*>> by_socket(sockets);
  for (const trace::Unit& u : t.units) {
    all.push_back(&u);
    by_socket[std::min(u.core / per_socket, sockets - 1)].push_back(&u);
  }
  const Busy machine(all);
  std::vector<Busy> socket_busy;
  for (const auto& list : by_socket) socket_busy.emplace_back(list);

  double total_declared = 0;
  for (const trace::Unit& u : t.units) {
    const auto& [cycles, site] = declared[&u];
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
  if (total_declared <= 0) {
    // Its runtime steps still count, beside a run that declares work (fit_model checks there is one).
    facts.declares_nothing = path + ": its program declares no work (ctx.charge_work), so there is no rate to "
                             "fit; declare each unit's work in the program, or calibrate the runtime's "
                             "costs alone with moirai-calibrate (no --fit)";
  }

  // The runtime's steps, as the trace shows them.
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
  // The core whose handler ran last before each unit's handler.
  std::vector<const trace::Unit*> by_handler;
  for (const trace::Unit& u : t.units) by_handler.push_back(&u);
  std::sort(by_handler.begin(), by_handler.end(),
            [](const trace::Unit* a, const trace::Unit* b) { return a->record.handler < b->record.handler; });
  std::map<std::uint64_t, const trace::Unit*> last_holder;
  for (std::size_t i = 1; i < by_handler.size(); ++i) last_holder[by_handler[i]->record.unit] = by_handler[i - 1];
  std::vector<std::vector<const trace::Span*>> idle(t.core_count);
  for (const trace::Span& s : t.idle) idle[s.core].push_back(&s);
  for (auto& list : idle) {
    std::sort(list.begin(), list.end(), [](const trace::Span* a, const trace::Span* b) { return a->end < b->end; });
  }
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
    // A wake-up: the unit's core was idle until its decision began, and another core's handler
    // freed it before that.
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
  log << "  declared work " << facts.declared_from << ": " << facts.units.size() << " units declared "
      << std::setprecision(4) << total_declared << " cycles\n";
  return facts;
}

}  // namespace

proto::CostModel fit_model(const FitOptions& options, std::ostream& log) {
  if (options.traces.empty()) throw std::runtime_error("--fit needs at least one trace");
  std::vector<RunFacts> runs;
  for (const std::string& path : options.traces) {
    if (std::optional<RunFacts> run = read_run(path, options, log)) runs.push_back(std::move(*run));
  }
  if (runs.empty()) {
    throw std::runtime_error("every trace given is partial (left out above): nothing to fit; record complete runs");
  }
  const auto declaring = std::find_if(runs.begin(), runs.end(), [](const RunFacts& r) { return r.declares_nothing.empty(); });
  if (declaring == runs.end()) throw std::runtime_error(runs.front().declares_nothing);
  for (const RunFacts& run : runs) {
    if (!run.declares_nothing.empty()) log << "  " << run.path << ": declares no work; its runtime steps only\n";
  }

  proto::CostModel model = options.base;
  const double ticks_per_ns = model.clock_hz / 1e9;

  // The site with the most declared work sets the rate and the stretch.
  std::map<std::string, double> declared_at;
  for (const RunFacts& run : runs) {
    for (const Observation& o : run.units) declared_at[o.site] += o.declared;
  }
  const std::string main_site =
      std::max_element(declared_at.begin(), declared_at.end(), [](const auto& a, const auto& b) { return a.second < b.second; })->first;
  // Each run gives one point: its main-site work per declared cycle against how many other
  // cores were busy on average. A run is noisy as a whole (another tenant slows every unit of
  // it), so the line through the points is the repeated-medians one (Siegel's), which one stray
  // run cannot tilt as easily as least squares. Its slope, the stretch, is read from runs on
  // two cores or more only: on one core no other core is ever busy, so such a run says nothing
  // of the stretch, and one slow 1-core run turned the slope negative. Every run then counts
  // for the rate (the line's intercept, a median too).
  struct Point {
    double others = 0, outside = 0, rate = 0;
    bool alone = false;  // a 1-core run
  };
  std::vector<Point> points;
  bool several_sockets = false;
  for (const RunFacts& run : runs) {
    double work = 0, cycles = 0, others = 0, outside = 0;
    for (const Observation& o : run.units) {
      if (o.site != main_site) continue;
      work += o.work_ns;
      cycles += o.declared;
      others += o.declared * o.others;
      outside += o.declared * (o.others - o.others_socket);
    }
    if (cycles <= 0) continue;
    points.push_back({others / cycles, outside / cycles, work / cycles, run.cores < 2});
    several_sockets = several_sockets || outside > 0;
  }
  const auto siegel = [&](auto x_of) {
    std::vector<double> per_point;
    for (std::size_t i = 0; i < points.size(); ++i) {
      if (points[i].alone) continue;
      std::vector<double> slopes;
      for (std::size_t j = 0; j < points.size(); ++j) {
        if (points[j].alone) continue;
        const double dx = x_of(points[j]) - x_of(points[i]);
        if (std::fabs(dx) > 0.25) slopes.push_back((points[j].rate - points[i].rate) / dx);
      }
      if (!slopes.empty()) per_point.push_back(median(slopes));
    }
    const double slope = median(per_point);
    std::vector<double> intercepts;
    for (const Point& p : points) intercepts.push_back(p.rate - slope * x_of(p));
    return std::pair<double, double>{median(intercepts), slope};
  };
  // Busy cores of other sockets stretch work by the machine-wide term, those of the own socket
  // by both; on one socket the two cannot be told apart and all is booked to the socket.
  auto [rate, slope] = siegel([](const Point& p) { return p.others - p.outside; });
  double socket = rate > 0 ? std::max(0.0, slope) / rate : 0;
  double machine = 0;
  if (several_sockets && rate > 0) {
    const auto outside_fit = siegel([](const Point& p) { return p.outside; });
    machine = std::max(0.0, outside_fit.second) / rate;
  }
  if (rate <= 0) {  // cannot happen with positive work; keep the mean rate
    double work = 0, cycles = 0;
    for (const Point& p : points) {
      work += p.rate;
      cycles += 1;
    }
    rate = work / cycles;
    socket = machine = 0;
  }
  model.work.rate = rate * ticks_per_ns;
  model.work.stretch_socket = socket;
  model.work.stretch_machine = machine;
  const auto stretch_of = [&](const Observation& o) {
    return 1 + socket * o.others_socket + machine * (o.others - o.others_socket);
  };

  // Every other site's rate, where it differs from the main one by more than 5 %.
  model.work.site_rates.clear();
  for (const auto& [site, cycles] : declared_at) {
    if (site == main_site) continue;
    double measured = 0, expected = 0;
    for (const RunFacts& run : runs) {
      for (const Observation& o : run.units) {
        if (o.site != site) continue;
        measured += o.work_ns;
        expected += o.declared * stretch_of(o);
      }
    }
    const double site_rate = expected > 0 ? measured / expected : rate;
    if (std::fabs(site_rate / rate - 1) > 0.05) model.work.site_rates[site] = site_rate * ticks_per_ns;
  }

  // The cores' speed spread: how far each core's main-site work strays from the model, per run.
  std::vector<double> spreads;
  for (const RunFacts& run : runs) {
    if (run.cores < 2) continue;
    std::map<std::uint32_t, std::pair<double, double>> per_core;  // measured, expected
    for (const Observation& o : run.units) {
      if (o.site != main_site) continue;
      per_core[o.core].first += o.work_ns;
      per_core[o.core].second += o.declared * rate * stretch_of(o);
    }
    if (per_core.size() < 2) continue;
    double sum = 0, squares = 0;
    for (const auto& [core, pair] : per_core) {
      const double q = pair.first / pair.second;
      sum += q;
      squares += q * q;
    }
    const double n = static_cast<double>(per_core.size());
    const double mean = sum / n;
    spreads.push_back(std::sqrt(std::max(0.0, squares / n - mean * mean)) / mean);
  }
  model.work.core_spread = median(spreads);

  // The runtime's steps, pooled over the runs.
  std::map<std::string, std::vector<double>> handlers, handed, after_wait;
  std::vector<double> handover;
  std::map<std::string, std::vector<double>> communication;
  std::vector<double> decision, wake, wake_parked, empty_units;
  for (const RunFacts& run : runs) {
    empty_units.insert(empty_units.end(), run.empty_units.begin(), run.empty_units.end());
    for (const auto& [name, samples] : run.handlers) handlers[name].insert(handlers[name].end(), samples.begin(), samples.end());
    for (const auto& [name, samples] : run.handed) handed[name].insert(handed[name].end(), samples.begin(), samples.end());
    for (const auto& [name, samples] : run.after_wait) {
      after_wait[name].insert(after_wait[name].end(), samples.begin(), samples.end());
    }
    handover.insert(handover.end(), run.handover.begin(), run.handover.end());
    for (const auto& [name, samples] : run.communication) {
      communication[name].insert(communication[name].end(), samples.begin(), samples.end());
    }
    decision.insert(decision.end(), run.decision.begin(), run.decision.end());
    wake.insert(wake.end(), run.wake.begin(), run.wake.end());
    wake_parked.insert(wake_parked.end(), run.wake_parked.begin(), run.wake_parked.end());
  }
  // A step's mean leaves out its slowest 1 %: the rare step that the OS or the hypervisor
  // stopped (a page fault, a preemption) would otherwise weigh as much as thousands of others.
  const auto typical = [&](std::vector<double> samples) {
    if (options.step_statistic == FitOptions::Statistic::median || samples.empty()) return median(samples);
    std::sort(samples.begin(), samples.end());
    const std::size_t kept = samples.size() - samples.size() / 100;
    double sum = 0;
    for (std::size_t i = 0; i < kept; ++i) sum += samples[i];
    return sum / static_cast<double>(kept);
  };
  const auto ticks = [&](double ns) { return static_cast<std::uint64_t>(std::llround(std::max(0.0, ns) * ticks_per_ns)); };
  // A handler's cost comes from its runs on the core that held the lock last; the hand-off is
  // what the runs after another core's hold took more, over the constructs seen both ways.
  double extra = 0, weight = 0;
  for (const auto& [name, samples] : handed) {
    const auto same = handlers.find(name);
    if (same == handlers.end() || same->second.empty() || samples.empty()) continue;
    extra += (typical(samples) - typical(same->second)) * static_cast<double>(samples.size());
    weight += static_cast<double>(samples.size());
  }
  const double handoff = weight > 0 ? std::max(0.0, extra / weight) : 0;
  model.lock_handoff = ticks(handoff);
  for (const auto& [name, samples] : handed) {
    if (handlers.count(name) == 0 || handlers[name].empty()) model.handlers[name] = ticks(typical(samples) - handoff);
  }
  for (const auto& [name, samples] : handlers) {
    if (!samples.empty()) model.handlers[name] = ticks(typical(samples));
  }
  // A hold that follows a wait for the lock takes longer again: the contended hand-off is what
  // those holds took beyond the lock, the hand-off and the construct's handler, over the
  // constructs seen after a wait.
  double contended_extra = 0, contended_weight = 0;
  for (const auto& [name, samples] : after_wait) {
    const auto fitted = model.handlers.find(name);
    if (fitted == model.handlers.end() || samples.empty()) continue;
    const double expected = static_cast<double>(model.lock + model.lock_handoff + fitted->second) / ticks_per_ns;
    contended_extra += (typical(samples) - expected) * static_cast<double>(samples.size());
    contended_weight += static_cast<double>(samples.size());
  }
  // The wait's own end comes after the release, by the time the lock's line takes to reach the
  // waiter: on real cores nobody holds the lock then, yet nobody else gets it either.
  const double handover_ns = median(handover);
  model.lock_contended = ticks((contended_weight > 0 ? contended_extra / contended_weight : 0) + handover_ns);
  // A construct the traces never showed costs what a handler typically does.
  std::vector<double> every_handler;
  for (const auto* by_name : {&handlers, &handed}) {
    for (const auto& [name, samples] : *by_name) every_handler.insert(every_handler.end(), samples.begin(), samples.end());
  }
  if (!every_handler.empty()) model.handler = ticks(typical(every_handler));
  // Communication by the construct that ended the unit; the plain key is the typical one of all.
  const double lock_ns = static_cast<double>(model.lock) / ticks_per_ns;
  std::vector<double> all_communication;
  model.communications.clear();
  for (const auto& [name, samples] : communication) {
    model.communications[name] = ticks(typical(samples) - lock_ns);
    all_communication.insert(all_communication.end(), samples.begin(), samples.end());
  }
  if (!all_communication.empty()) model.communication = ticks(typical(all_communication) - lock_ns);
  // A unit that declared no work still takes the switch into its VP and the VP's side of the
  // construct that ends it (the trace counts both as its work); the median such unit, since a
  // program may also leave real work undeclared.
  if (!empty_units.empty()) model.switch_ticks = ticks(median(empty_units));
  if (!decision.empty()) {
    // A real run records a unit's begin before it switches into the VP: its decision holds the
    // lock and the assigner, the switch lies in the unit (see empty_units above).
    const double others = static_cast<double>(model.lock) / ticks_per_ns;
    model.assigner = std::max<std::uint64_t>(1, ticks(typical(decision) - others));
  }
  if (!wake.empty()) model.wake = ticks(typical(wake));
  if (!wake_parked.empty()) model.wake_parked = ticks(typical(wake_parked));
  model.idle_spin = ticks(static_cast<double>(proto::RealMachine::kIdleSpinNs));

  log << "fit: rate " << std::setprecision(4) << rate << " ns per declared cycle at " << main_site
      << "; stretch per other busy core " << socket << " (socket), " << machine << " (machine); core speed spread "
      << model.work.core_spread << " (" << spreads.size() << " multi-core runs)\n";
  for (const auto& [site, r] : model.work.site_rates) {
    log << "fit: rate " << r / ticks_per_ns << " ns per declared cycle at " << site << '\n';
  }
  log << "fit: switch " << model.switch_ticks << " (" << empty_units.size() << " units that declared no work), lock hand-off "
      << model.lock_handoff << " (" << static_cast<std::uint64_t>(weight) << " handlers after another core's), contended "
      << model.lock_contended << " (" << static_cast<std::uint64_t>(contended_weight) << " holds after a wait, " << handover.size() << " hand-overs of " << std::llround(handover_ns) << " ns), communication "
      << model.communication << ", assigner " << model.assigner << ", wake "
      << model.wake << " (" << wake.size() << " wake-ups of a spinning core), " << model.wake_parked << " ("
      << wake_parked.size() << " of a parked one), create_vp handler "
      << (model.handlers.count("create_vp") ? std::to_string(model.handlers["create_vp"]) : "-") << " ticks\n";
  return model;
}

void predict(const std::string& model, const std::vector<std::string>& traces, const FitOptions& options,
             const std::string& into, std::ostream& log) {
  fs::create_directories(into);
  for (const std::string& path : traces) {
    const trace::Trace real = tools::read_checked_trace(path, "moirai-calibrate", log);
    if (!real.complete) {
      log << "moirai-calibrate: warning: " << path << ": no prediction for a partial run\n";
      continue;
    }
    const std::string predicted = (fs::path(into) / fs::path(path).filename()).string();
    std::vector<std::string> argv =
        sim_command(path, metadata(real, "command_line"), real.core_count, options.rerun_dir, predicted);
    argv.push_back("--cost-model");
    argv.push_back(model);
    if (!options.rerun) {
      throw std::runtime_error(path + ": --predict runs the command the trace names:\n    " + command_text(argv) +
                               "\n  add --rerun to run it (only for a trace you trust: it runs as you)");
    }
    log << "  running: " << command_text(argv) << '\n';
    run_on_sim(path, argv, predicted);
    log << path << " -> " << predicted << '\n';
  }
}

void write_model(const std::string& text, const std::string& output) {
  if (output.empty() || output == "-") {
    std::cout << text << std::flush;
    if (!std::cout) throw std::runtime_error("cannot write the model to standard output");
    return;
  }
  std::ofstream out(output);
  out << text;
  out.close();
  if (!out) throw program::FlagError("--output: cannot write " + output);
  std::cerr << "moirai-calibrate: wrote " << output << '\n';
}

int fit_main(int argc, char** argv) {
  FitOptions options;
  options.base = ssr::cost_model();
  std::string output;
  program::Flags flags("moirai-calibrate --fit",
                       "Fits a machine model for --cost-model from traces of real runs of a program that declares\n"
                       "its work (ctx.charge_work): the rate of declared work per call site, how work stretches\n"
                       "with other busy cores, how the cores' speeds spread, and the runtime's costs the traces\n"
                       "show (docs/cost-model.md). Usage: moirai-calibrate --fit TRACE... [--output FILE];\n"
                       "moirai-calibrate --fit TRACE... --predict MODEL [--into DIR] records what MODEL predicts.\n"
                       "Traces older than format 3.1 hold no declared work: with --rerun, each trace's command\n"
                       "line is re-run on the simulated machine (from --rerun-dir) and its units paired with the\n"
                       "real ones by VP and position. A partial trace (a killed run) is left out, said on stderr.");
  flags.text("output", output, "FILE", "write the model here (default: standard output)");
  flags.toggle("rerun", options.rerun,
               "allow running the command line a trace records (old traces' declared work, --predict); each "
               "command is printed before it runs. Without it such a trace is refused, its command shown");
  flags.text("rerun-dir", options.rerun_dir, "DIR", "run old traces' commands from here (default: .)");
  std::string statistic = "mean";
  flags.text("step-cost", statistic, "mean|median",
             "a runtime step's cost from its samples: mean (default; the total a run pays) or median");
  std::string predict_with, into = "predicted";
  flags.text("predict", predict_with, "MODEL",
             "instead of fitting, re-run each trace's command on the simulated machine with this model "
             "and record the prediction into --into");
  flags.text("into", into, "DIR", "with --predict: where the predicted traces go, named as the real ones");
  // The traces are the words after --fit that are no flags.
  std::vector<std::string_view> rest;
  bool in_traces = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--fit") {
      in_traces = true;
      continue;
    }
    if (in_traces && !arg.starts_with("--")) {
      options.traces.emplace_back(arg);
      continue;
    }
    in_traces = false;
    rest.push_back(arg);
    if ((arg == "--output" || arg == "--rerun-dir" || arg == "--predict" || arg == "--into" || arg == "--step-cost") &&
        i + 1 < argc) {
      rest.push_back(argv[++i]);
    }
  }
  try {
    const program::Flags::Outcome outcome = flags.parse(rest);
    if (outcome != program::Flags::Outcome::run) {
      std::cout << (outcome == program::Flags::Outcome::help ? flags.help() : "moirai-calibrate (Moirai) " + program::version() + "\n")
                << std::flush;
      return std::cout ? 0 : 1;
    }
    if (options.traces.empty()) throw program::FlagError("--fit: name at least one trace of a real run");
    if (statistic != "mean" && statistic != "median") {
      throw program::FlagError("--step-cost: '" + statistic + "' is neither mean nor median");
    }
    options.step_statistic = statistic == "mean" ? FitOptions::Statistic::mean : FitOptions::Statistic::median;
    for (const std::string& path : options.traces) {
      std::error_code ignored;
      if (!output.empty() && fs::equivalent(output, path, ignored)) {
        throw program::FlagError("--output " + output + ": that is the input trace " + path + "; writing it would destroy it");
      }
    }
  } catch (const program::FlagError& error) {
    std::cerr << flags.app() << ": error: " << error.what() << '\n' << flags.usage() << '\n';
    return 2;
  }
  return program::run_app("moirai-calibrate --fit", [&] {
    proto::CostModel model;
    try {
      if (!predict_with.empty()) {
        proto::CostModel::load(predict_with);  // a bad model is named here, not in each child
        predict(predict_with, options.traces, options, into, std::cerr);
        return 0;
      }
      model = fit_model(options, std::cerr);
    } catch (const tools::TraceDoesNotFit&) {
      throw;  // a failed run (exit 1), not bad input
    } catch (const std::runtime_error& error) {
      throw program::FlagError(std::string("--fit: ") + error.what());
    }
    std::string text = "# fitted by moirai-calibrate --fit from";
    for (const std::string& path : options.traces) text += " " + fs::path(path).filename().string();
    write_model(text + "\n" + model.text(), output);
    return 0;
  });
}

}  // namespace moirai::calibrate

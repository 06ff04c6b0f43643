#include "fit.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <map>
#include <stdexcept>
#include <utility>

#include "moirai/proto_runtime/real_machine.h"
#include "run_facts.h"

namespace moirai::calibrate {

namespace {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// read_runs reads every trace the options name, partial ones left out; throws when none is
// left, or none declares work.
std::vector<RunFacts> read_runs(const FitOptions& options, std::ostream& log) {
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
  return runs;
}

// Point is one run's main-site work per declared cycle against how many other cores were busy
// on average during it (`outside`: of other sockets).
struct Point {
  double others = 0, outside = 0, rate = 0;
  bool alone = false;  // a 1-core run
};

// main_site_points is each run's Point at `main_site`; `several_sockets` says whether any run
// had busy cores on other sockets.
std::vector<Point> main_site_points(const std::vector<RunFacts>& runs, const std::string& main_site, bool& several_sockets) {
  std::vector<Point> points;
  several_sockets = false;
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
  return points;
}

// siegel_line is the repeated-medians line (Siegel's) of rate against `x_of` through `points`:
// {intercept, slope}, the slope from the runs on two cores or more.
template <class XOf>
std::pair<double, double> siegel_line(const std::vector<Point>& points, XOf x_of) {
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
  return {median(intercepts), slope};
}

// WorkLine is the work model in ns: the main site's rate per declared cycle and how much each
// other busy core of the unit's socket, or of the machine, stretches it.
struct WorkLine {
  double rate = 0, socket = 0, machine = 0;
  double stretch_of(const Observation& o) const { return 1 + socket * o.others_socket + machine * (o.others - o.others_socket); }
};

// fit_work_line fits the main site's line. Each run gives one point: its main-site work per
// declared cycle against how many other cores were busy on average. A run is noisy as a whole
// (another tenant slows every unit of it), so the line through the points is the
// repeated-medians one (Siegel's), which one stray run cannot tilt as easily as least squares.
// Its slope, the stretch, is read from runs on two cores or more only: on one core no other core
// is ever busy, so such a run says nothing of the stretch, and one slow 1-core run turned the
// slope negative. Every run then counts for the rate (the line's intercept, a median too).
WorkLine fit_work_line(const std::vector<RunFacts>& runs, const std::string& main_site) {
  bool several_sockets = false;
  const std::vector<Point> points = main_site_points(runs, main_site, several_sockets);
  // Busy cores of other sockets stretch work by the machine-wide term, those of the own socket
  // by both; on one socket the two cannot be told apart and all is booked to the socket.
  WorkLine line;
  auto [rate, slope] = siegel_line(points, [](const Point& p) { return p.others - p.outside; });
  line.rate = rate;
  line.socket = rate > 0 ? std::max(0.0, slope) / rate : 0;
  if (several_sockets && rate > 0) {
    const auto outside_fit = siegel_line(points, [](const Point& p) { return p.outside; });
    line.machine = std::max(0.0, outside_fit.second) / rate;
  }
  if (rate <= 0) {  // cannot happen with positive work; keep the mean rate
    double work = 0, cycles = 0;
    for (const Point& p : points) {
      work += p.rate;
      cycles += 1;
    }
    line.rate = work / cycles;
    line.socket = line.machine = 0;
  }
  return line;
}

// site_rates is every other site's rate (ns per declared cycle) where it differs from the main
// one by more than 5 %.
std::map<std::string, double> site_rates(const std::vector<RunFacts>& runs, const std::map<std::string, double>& declared_at,
                                         const std::string& main_site, const WorkLine& line) {
  std::map<std::string, double> rates;
  for (const auto& [site, cycles] : declared_at) {
    if (site == main_site) continue;
    double measured = 0, expected = 0;
    for (const RunFacts& run : runs) {
      for (const Observation& o : run.units) {
        if (o.site != site) continue;
        measured += o.work_ns;
        expected += o.declared * line.stretch_of(o);
      }
    }
    const double site_rate = expected > 0 ? measured / expected : line.rate;
    if (std::fabs(site_rate / line.rate - 1) > 0.05) rates[site] = site_rate;
  }
  return rates;
}

// core_spreads is, per multi-core run, how far each core's main-site work strays from the
// model (the cores' speed spread).
std::vector<double> core_spreads(const std::vector<RunFacts>& runs, const std::string& main_site, const WorkLine& line) {
  std::vector<double> spreads;
  for (const RunFacts& run : runs) {
    if (run.cores < 2) continue;
    std::map<std::uint32_t, std::pair<double, double>> per_core;  // measured, expected
    for (const Observation& o : run.units) {
      if (o.site != main_site) continue;
      per_core[o.core].first += o.work_ns;
      per_core[o.core].second += o.declared * line.rate * line.stretch_of(o);
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
  return spreads;
}

// WorkFit is what fitting the work model found, for the log.
struct WorkFit {
  std::string main_site;
  WorkLine line;
  std::size_t spread_runs = 0;  // the multi-core runs the spread came from
};

// fit_work fits the work model into `model`: the rate and stretch at the site with the most
// declared work, every other site's rate, the cores' speed spread.
WorkFit fit_work(const std::vector<RunFacts>& runs, proto::CostModel& model) {
  const double ticks_per_ns = model.clock_hz / 1e9;
  std::map<std::string, double> declared_at;
  for (const RunFacts& run : runs) {
    for (const Observation& o : run.units) declared_at[o.site] += o.declared;
  }
  WorkFit fit;
  fit.main_site =
      std::max_element(declared_at.begin(), declared_at.end(), [](const auto& a, const auto& b) { return a.second < b.second; })->first;
  fit.line = fit_work_line(runs, fit.main_site);
  model.work.rate = fit.line.rate * ticks_per_ns;
  model.work.stretch_socket = fit.line.socket;
  model.work.stretch_machine = fit.line.machine;
  model.work.site_rates.clear();
  for (const auto& [site, rate] : site_rates(runs, declared_at, fit.main_site, fit.line)) {
    model.work.site_rates[site] = rate * ticks_per_ns;
  }
  const std::vector<double> spreads = core_spreads(runs, fit.main_site, fit.line);
  model.work.core_spread = median(spreads);
  fit.spread_runs = spreads.size();
  return fit;
}

// Steps are the runtime's steps in ns, pooled over the runs (RunFacts says what each is).
struct Steps {
  std::map<std::string, std::vector<double>> handlers, handed, after_wait, communication;
  std::vector<double> handover, decision, wake, wake_parked, empty_units;
};

Steps pool_steps(const std::vector<RunFacts>& runs) {
  Steps pooled;
  const auto add = [](std::vector<double>& into, const std::vector<double>& samples) {
    into.insert(into.end(), samples.begin(), samples.end());
  };
  for (const RunFacts& run : runs) {
    add(pooled.empty_units, run.empty_units);
    for (const auto& [name, samples] : run.handlers) add(pooled.handlers[name], samples);
    for (const auto& [name, samples] : run.handed) add(pooled.handed[name], samples);
    for (const auto& [name, samples] : run.after_wait) add(pooled.after_wait[name], samples);
    add(pooled.handover, run.handover);
    for (const auto& [name, samples] : run.communication) add(pooled.communication[name], samples);
    add(pooled.decision, run.decision);
    add(pooled.wake, run.wake);
    add(pooled.wake_parked, run.wake_parked);
  }
  return pooled;
}

// StepCost turns a step's samples into its cost in the model's ticks.
struct StepCost {
  FitOptions::Statistic statistic;
  double ticks_per_ns;
  // typical is the samples' mean, leaving out their slowest 1 % (the rare step that the OS or
  // the hypervisor stopped, a page fault, a preemption, would otherwise weigh as much as
  // thousands of others), or their median.
  double typical(std::vector<double> samples) const {
    if (statistic == FitOptions::Statistic::median || samples.empty()) return median(samples);
    std::sort(samples.begin(), samples.end());
    const std::size_t kept = samples.size() - samples.size() / 100;
    double sum = 0;
    for (std::size_t i = 0; i < kept; ++i) sum += samples[i];
    return sum / static_cast<double>(kept);
  }
  std::uint64_t ticks(double ns) const { return static_cast<std::uint64_t>(std::llround(std::max(0.0, ns) * ticks_per_ns)); }
};

// LockFit is what fitting the handlers and the lock found, for the log.
struct LockFit {
  double handed_weight = 0;     // handlers after another core's
  double contended_weight = 0;  // holds after a wait
  double handover_ns = 0;
};

// fit_lock fits the handlers, the lock's hand-off and its contended hand-off into `model`.
LockFit fit_lock(const Steps& steps, const StepCost& cost, proto::CostModel& model) {
  LockFit fit;
  // A handler's cost comes from its runs on the core that held the lock last; the hand-off is
  // what the runs after another core's hold took more, over the constructs seen both ways.
  double extra = 0;
  for (const auto& [name, samples] : steps.handed) {
    const auto same = steps.handlers.find(name);
    if (same == steps.handlers.end() || same->second.empty() || samples.empty()) continue;
    extra += (cost.typical(samples) - cost.typical(same->second)) * static_cast<double>(samples.size());
    fit.handed_weight += static_cast<double>(samples.size());
  }
  const double handoff = fit.handed_weight > 0 ? std::max(0.0, extra / fit.handed_weight) : 0;
  model.lock_handoff = cost.ticks(handoff);
  for (const auto& [name, samples] : steps.handed) {
    const auto same = steps.handlers.find(name);
    if (same == steps.handlers.end() || same->second.empty()) model.handlers[name] = cost.ticks(cost.typical(samples) - handoff);
  }
  for (const auto& [name, samples] : steps.handlers) {
    if (!samples.empty()) model.handlers[name] = cost.ticks(cost.typical(samples));
  }
  // A hold that follows a wait for the lock takes longer again: the contended hand-off is what
  // those holds took beyond the lock, the hand-off and the construct's handler, over the
  // constructs seen after a wait.
  double contended_extra = 0;
  for (const auto& [name, samples] : steps.after_wait) {
    const auto fitted = model.handlers.find(name);
    if (fitted == model.handlers.end() || samples.empty()) continue;
    const double expected = static_cast<double>(model.lock + model.lock_handoff + fitted->second) / cost.ticks_per_ns;
    contended_extra += (cost.typical(samples) - expected) * static_cast<double>(samples.size());
    fit.contended_weight += static_cast<double>(samples.size());
  }
  // The wait's own end comes after the release, by the time the lock's line takes to reach the
  // waiter: on real cores nobody holds the lock then, yet nobody else gets it either.
  fit.handover_ns = median(steps.handover);
  model.lock_contended =
      cost.ticks((fit.contended_weight > 0 ? contended_extra / fit.contended_weight : 0) + fit.handover_ns);
  // A construct the traces never showed costs what a handler typically does.
  std::vector<double> every_handler;
  for (const auto* by_name : {&steps.handlers, &steps.handed}) {
    for (const auto& [name, samples] : *by_name) every_handler.insert(every_handler.end(), samples.begin(), samples.end());
  }
  if (!every_handler.empty()) model.handler = cost.ticks(cost.typical(every_handler));
  return fit;
}

// fit_other_steps fits the communication, the switch, the assigner and the wake-ups into `model`.
void fit_other_steps(const Steps& steps, const StepCost& cost, proto::CostModel& model) {
  // Communication by the construct that ended the unit; the plain key is the typical one of all.
  const double lock_ns = static_cast<double>(model.lock) / cost.ticks_per_ns;
  std::vector<double> all_communication;
  model.communications.clear();
  for (const auto& [name, samples] : steps.communication) {
    model.communications[name] = cost.ticks(cost.typical(samples) - lock_ns);
    all_communication.insert(all_communication.end(), samples.begin(), samples.end());
  }
  if (!all_communication.empty()) model.communication = cost.ticks(cost.typical(all_communication) - lock_ns);
  // A unit that declared no work still takes the switch into its VP and the VP's side of the
  // construct that ends it (the trace counts both as its work); the median such unit, since a
  // program may also leave real work undeclared.
  if (!steps.empty_units.empty()) model.switch_ticks = cost.ticks(median(steps.empty_units));
  if (!steps.decision.empty()) {
    // A real run records a unit's begin before it switches into the VP: its decision holds the
    // lock and the assigner, the switch lies in the unit (see empty_units above).
    const double others = static_cast<double>(model.lock) / cost.ticks_per_ns;
    model.assigner = std::max<std::uint64_t>(1, cost.ticks(cost.typical(steps.decision) - others));
  }
  if (!steps.wake.empty()) model.wake = cost.ticks(cost.typical(steps.wake));
  if (!steps.wake_parked.empty()) model.wake_parked = cost.ticks(cost.typical(steps.wake_parked));
  model.idle_spin = cost.ticks(static_cast<double>(proto::RealMachine::kIdleSpinNs));
}

// log_fit says what the fit found.
void log_fit(std::ostream& log, const proto::CostModel& model, const WorkFit& work, const Steps& steps, const LockFit& lock) {
  const double ticks_per_ns = model.clock_hz / 1e9;
  log << "fit: rate " << std::setprecision(4) << work.line.rate << " ns per declared cycle at " << work.main_site
      << "; stretch per other busy core " << work.line.socket << " (socket), " << work.line.machine
      << " (machine); core speed spread " << model.work.core_spread << " (" << work.spread_runs << " multi-core runs)\n";
  for (const auto& [site, r] : model.work.site_rates) {
    log << "fit: rate " << r / ticks_per_ns << " ns per declared cycle at " << site << '\n';
  }
  log << "fit: switch " << model.switch_ticks << " (" << steps.empty_units.size() << " units that declared no work), lock hand-off "
      << model.lock_handoff << " (" << static_cast<std::uint64_t>(lock.handed_weight) << " handlers after another core's), contended "
      << model.lock_contended << " (" << static_cast<std::uint64_t>(lock.contended_weight) << " holds after a wait, "
      << steps.handover.size() << " hand-overs of " << std::llround(lock.handover_ns) << " ns), communication "
      << model.communication << ", assigner " << model.assigner << ", wake "
      << model.wake << " (" << steps.wake.size() << " wake-ups of a spinning core), " << model.wake_parked << " ("
      << steps.wake_parked.size() << " of a parked one), create_vp handler "
      << (model.handlers.count("create_vp") ? std::to_string(model.handlers.at("create_vp")) : "-") << " ticks\n";
}

}  // namespace

proto::CostModel fit_model(const FitOptions& options, std::ostream& log) {
  if (options.traces.empty()) throw std::runtime_error("--fit needs at least one trace");
  const std::vector<RunFacts> runs = read_runs(options, log);
  proto::CostModel model = options.base;
  const WorkFit work = fit_work(runs, model);
  const Steps steps = pool_steps(runs);
  const StepCost cost{options.step_statistic, model.clock_hz / 1e9};
  const LockFit lock = fit_lock(steps, cost, model);
  fit_other_steps(steps, cost, model);
  log_fit(log, model, work, steps, lock);
  return model;
}

}  // namespace moirai::calibrate

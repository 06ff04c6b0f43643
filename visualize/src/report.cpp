#include "moirai/visualize/report.h"

#include "moirai/visualize/unit_graph.h"

#include "text_format.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <tuple>
#include <unordered_map>

namespace moirai::visualize {

namespace {

// Numeric triggers of the diagnosis rules.
constexpr double kUnusedCoreWork = 0.10;     // a core doing under 10% of the makespan in work
constexpr double kIdleTail = 0.10;           // a core idle for the last 10% of the run or more
constexpr double kTooSmall = 0.20;           // overhead above 20% of work: units too small
constexpr double kTooBigUnitsPerCore = 2.0;  // fewer units per core than this: units too big
constexpr double kLockShare = 0.30;          // lock wait above 30% of overhead: contention
constexpr double kStarvationIdle = 0.02;     // other cores idle over 2% of the run for creations
constexpr double kIdleCause = 0.10;          // one cause holding cores idle over 10% of the run
constexpr double kBandCores = 0.25;          // an idle band: a quarter of the cores (2 at least)
constexpr double kBandLength = 0.02;         //   idle together mid-run for 2% of the run or more
constexpr double kSingletonLate = 0.02;      // a singleton body delayed over 2% of the run

std::string fixed(double value, int digits = 1) { return detail::fixed(value, digits); }
std::string json(const std::string& text) { return detail::json_string(text); }

// core_ranges renders sorted core numbers for people: "0,3-7,9".
std::string core_ranges(std::vector<std::uint32_t> cores) {
  std::sort(cores.begin(), cores.end());
  std::string text;
  for (std::size_t i = 0; i < cores.size();) {
    std::size_t j = i;
    while (j + 1 < cores.size() && cores[j + 1] == cores[j] + 1) ++j;
    text += (text.empty() ? "" : ",") + std::to_string(cores[i]) + (j > i ? "-" + std::to_string(cores[j]) : "");
    i = j + 1;
  }
  return text;
}

// cores_text lists core numbers for JSON arrays.
std::string cores_text(const std::vector<std::uint32_t>& cores) {
  std::string text;
  for (std::uint32_t core : cores) text += (text.empty() ? "" : ",") + std::to_string(core);
  return text;
}

// IdleArea answers "how many core-ticks were idle between two times" in O(log n), over all
// cores and per core, from the idle spans' step functions.
class IdleArea {
 public:
  explicit IdleArea(const trace::Trace& trace) : per_core_(trace.core_count) {
    std::vector<std::vector<std::pair<std::uint64_t, int>>> edges(trace.core_count);
    std::vector<std::pair<std::uint64_t, int>> all;
    for (const trace::Span& idle : trace.idle) {
      if (idle.core >= trace.core_count) continue;
      edges[idle.core].emplace_back(idle.begin, +1);
      edges[idle.core].emplace_back(idle.end, -1);
      all.emplace_back(idle.begin, +1);
      all.emplace_back(idle.end, -1);
    }
    all_ = Steps(std::move(all));
    for (std::size_t core = 0; core < edges.size(); ++core) per_core_[core] = Steps(std::move(edges[core]));
  }
  // all is the idle core-ticks in [begin, end) on every core.
  std::uint64_t all(std::uint64_t begin, std::uint64_t end) const { return end <= begin ? 0 : all_.area(begin, end); }
  // others is the idle core-ticks in [begin, end) on every core but `core`.
  std::uint64_t others(std::uint32_t core, std::uint64_t begin, std::uint64_t end) const {
    if (end <= begin) return 0;
    return all_.area(begin, end) - per_core_[core].area(begin, end);
  }

 private:
  // Steps is a count of idle cores over time and its running integral.
  struct Steps {
    std::vector<std::uint64_t> time, area_before;
    std::vector<std::int64_t> count;
    Steps() = default;
    explicit Steps(std::vector<std::pair<std::uint64_t, int>> edges) {
      std::sort(edges.begin(), edges.end());
      std::int64_t level = 0;
      std::uint64_t area = 0;
      for (const auto& [tick, step] : edges) {
        if (!time.empty()) area += static_cast<std::uint64_t>(level) * (tick - time.back());
        level += step;
        time.push_back(tick);
        area_before.push_back(area);
        count.push_back(level);
      }
    }
    std::uint64_t integral(std::uint64_t t) const {  // idle core-ticks before t
      auto after = std::upper_bound(time.begin(), time.end(), t);
      if (after == time.begin()) return 0;
      const std::size_t k = static_cast<std::size_t>(after - time.begin()) - 1;
      return area_before[k] + static_cast<std::uint64_t>(count[k]) * (t - time[k]);
    }
    std::uint64_t area(std::uint64_t begin, std::uint64_t end) const { return integral(end) - integral(begin); }
  };
  Steps all_;
  std::vector<Steps> per_core_;
};

}  // namespace

Report build_report(const trace::Trace& trace) {
  Report report;
  report.summary = summarize(trace);
  std::unordered_map<std::uint64_t, const trace::Unit*> unit_by_id;
  unit_by_id.reserve(trace.units.size());
  std::map<std::uint32_t, std::vector<const trace::Unit*>> per_core;
  for (const trace::Unit& unit : trace.units) {
    unit_by_id[unit.record.unit] = &unit;
    per_core[unit.core].push_back(&unit);
  }
  if (trace.units.empty() && trace.idle.empty()) return report;
  const RunSpan span = run_span(trace);
  const std::uint64_t first = span.first;
  report.makespan = span.length();
  const double makespan = static_cast<double>(std::max<std::uint64_t>(report.makespan, 1));
  const auto ms = [&](std::uint64_t ticks) { return fixed(static_cast<double>(ticks) * 1e3 / trace.clock_hz, 3) + " ms"; };
  const auto at = [&](std::uint64_t tick) { return ms(tick - first); };

  // The constraint that freed each unit: the latest one recorded for it.
  std::unordered_map<std::uint64_t, const trace::ConstraintRecord*> freed_by;
  freed_by.reserve(trace.constraints.size());
  for (const trace::ConstraintRecord& c : trace.constraints) {
    auto& known = freed_by[c.to];
    if (known == nullptr || known->time < c.time) known = &c;
  }
  // Idle attribution: the unit that ended an idle period is the next one on that core.
  std::map<std::pair<std::string, std::string>, IdleCause> causes;
  for (auto& [core, units] : per_core) {
    const auto by_time = [](auto* a, auto* b) { return a->record.assign < b->record.assign; };
    // A core's units are recorded in time order: check (linear) before sorting (n log n).
    if (!std::is_sorted(units.begin(), units.end(), by_time)) std::sort(units.begin(), units.end(), by_time);
  }
  std::map<std::uint32_t, std::uint64_t> tail;  // idle at the end, per core
  std::vector<const IdleCause*> cause_of_span;  // by index into trace.idle (map nodes stay put)
  for (const trace::Span& idle : trace.idle) {
    const auto& units = per_core[idle.core];
    // Units are in time order: a binary search keeps this linear in the trace, not quadratic.
    const auto next = std::partition_point(units.begin(), units.end(), [&](auto* u) { return u->record.assign < idle.end; });
    std::string construct = "nothing left to run (end of run)", site;
    if (next != units.end()) {
      auto freeing = freed_by.find((*next)->record.unit);
      if (freeing == freed_by.end()) {
        construct = "no recorded constraint";
      } else {
        construct = trace.construct_name(freeing->second->construct);
        auto from = unit_by_id.find(freeing->second->from);
        if (from != unit_by_id.end()) site = trace.site_name(from->second->record.site);
      }
    } else {
      tail[idle.core] += idle.end - idle.begin;
    }
    IdleCause& cause = causes[{construct, site}];
    cause_of_span.push_back(&cause);
    cause.construct = construct;
    cause.site = site;
    cause.ticks += idle.end - idle.begin;
    ++cause.periods;
    if (std::find(cause.cores.begin(), cause.cores.end(), idle.core) == cause.cores.end()) cause.cores.push_back(idle.core);
  }
  for (auto& [key, cause] : causes) report.idle_causes.push_back(cause);
  std::sort(report.idle_causes.begin(), report.idle_causes.end(), [](const IdleCause& a, const IdleCause& b) { return a.ticks > b.ticks; });
  std::map<const IdleCause*, std::uint32_t> rank;  // map node -> its place among the sorted causes
  for (auto& [key, cause] : causes) {
    const auto sorted = std::find_if(report.idle_causes.begin(), report.idle_causes.end(),
                                     [&](const IdleCause& c) { return c.construct == cause.construct && c.site == cause.site; });
    rank[&cause] = static_cast<std::uint32_t>(sorted - report.idle_causes.begin());
  }
  for (const IdleCause* cause : cause_of_span) report.idle_span_cause.push_back(rank[cause]);

  // Unit sizes and overhead.
  std::uint64_t work = 0, overhead = 0, lock = 0;
  for (const trace::Unit& unit : trace.units) {
    const trace::UnitRecord& r = unit.record;
    const std::uint64_t w = r.end - r.begin;
    work += w;
    overhead += (r.begin - r.assign) + (r.handler_end - r.end);
    lock += r.locked - r.end;
    report.overhead.decision += r.begin - r.assign;
    report.overhead.lock_wait += r.locked - r.end;
    report.overhead.communication += r.handler - r.locked;
    (trace.construct_name(r.ended_by) == "create_vp" ? report.overhead.create : report.overhead.constraint_update) +=
        r.handler_end - r.handler;
    const std::size_t bucket = w == 0 ? 0 : static_cast<std::size_t>(std::log2(static_cast<double>(w)));
    if (report.unit_size_histogram.size() <= bucket) report.unit_size_histogram.resize(bucket + 1);
    ++report.unit_size_histogram[bucket];
  }
  report.overhead_per_work = work ? static_cast<double>(overhead) / static_cast<double>(work) : 0;
  const double units_per_core = static_cast<double>(trace.units.size()) / std::max<std::uint32_t>(trace.core_count, 1);
  report.unit_size_verdict = report.overhead_per_work > kTooSmall ? "too small"
                             : units_per_core < kTooBigUnitsPerCore ? "too big"
                                                                    : "fine";

  // Diagnosis.
  std::vector<std::uint32_t> unused;
  for (std::uint32_t core = 0; core < report.summary.cores.size(); ++core) {
    if (static_cast<double>(report.summary.cores[core].work) < kUnusedCoreWork * makespan) unused.push_back(core);
  }
  if (!unused.empty() && unused.size() < report.summary.cores.size()) {
    report.hints.push_back(Hint{"unused-cores",
                                std::to_string(unused.size()) + " of " + std::to_string(report.summary.cores.size()) +
                                    " cores did under " + fixed(kUnusedCoreWork * 100, 0) +
                                    "% of the run in work: check how work is placed on cores (the paper's misplaced brace left 27 of 40 cores empty)",
                                unused, 0, report.makespan, ""});
    for (std::uint32_t core : unused) report.hints.back().lost += report.makespan - report.summary.cores[core].work;
  }
  // Creator starvation (3.4.1): the core of a creating VP runs other VPs' units between two of
  // its creations while other cores sit idle, waiting for work the creator has not made yet.
  const IdleArea idle_area(trace);
  {
    std::uint64_t lost = 0, instances = 0, worst_idle = 0;
    const trace::UnitRecord* first_between = nullptr;  // of the instance that idled other cores most
    const trace::UnitRecord* first_create = nullptr;
    std::uint32_t first_core = 0;
    for (auto& [core, units] : per_core) {
      std::unordered_map<std::uint64_t, std::size_t> last_create;  // VP -> index of its last creation here
      for (std::size_t i = 0; i < units.size(); ++i) {
        const trace::UnitRecord& r = units[i]->record;
        if (trace.construct_name(r.ended_by) != "create_vp") continue;
        auto previous = last_create.find(r.vp);
        if (previous != last_create.end() && previous->second + 1 < i) {
          const trace::UnitRecord& from = units[previous->second]->record;
          const std::uint64_t others_idle = idle_area.others(core, from.handler_end, r.assign);
          if (others_idle > 0) {
            ++instances;
            lost += others_idle;
            if (others_idle > worst_idle) {
              worst_idle = others_idle;
              first_between = &units[previous->second + 1]->record;
              first_create = &from;
              first_core = core;
            }
          }
        }
        last_create[r.vp] = i;
      }
    }
    if (first_between != nullptr && static_cast<double>(lost) > kStarvationIdle * makespan) {
      report.hints.push_back(Hint{"creator-starvation",
                                  "core " + std::to_string(first_core) + " ran unit " + std::to_string(first_between->unit) +
                                      " of another VP between two creations by VP " + std::to_string(first_create->vp) + " (" +
                                      at(first_between->assign) + " .. " + at(first_between->handler_end) + "), " +
                                      std::to_string(instances) + " time" + (instances > 1 ? "s" : "") +
                                      " in all, while other cores idled " + ms(lost) +
                                      " waiting for creations: create the first workers on other cores, or dedicate a core to the creator (paper 3.4.1)",
                                  {first_core}, first_between->assign - first, first_between->handler_end - first,
                                  trace.site_name(first_create->site)});
      report.hints.back().lost = lost;
    }
  }
  // Idle bands (3.4.2, 3.4.3): many cores idle at once in the middle of the run, between two
  // waves of units; idle before a core's first unit or after its last is starvation or the tail.
  {
    const std::size_t band_cores = std::max<std::size_t>(2, static_cast<std::size_t>(std::ceil(kBandCores * trace.core_count)));
    std::vector<std::pair<std::uint64_t, int>> edges;  // (tick, +1 idle begins / -1 ends)
    std::vector<std::size_t> mid_run;                   // idle spans inside their core's busy stretch
    for (std::size_t i = 0; i < trace.idle.size(); ++i) {
      const trace::Span& idle = trace.idle[i];
      const auto& units = per_core[idle.core];
      if (units.empty() || idle.begin < units.front()->record.assign || idle.end > units.back()->record.handler_end) continue;
      mid_run.push_back(i);
      edges.emplace_back(idle.begin, +1);
      edges.emplace_back(idle.end, -1);
    }
    std::sort(edges.begin(), edges.end());  // at one tick, ends (-1) before begins (+1)
    std::vector<std::pair<std::uint64_t, std::uint64_t>> bands;
    std::uint64_t open_at = 0;
    int count = 0;
    for (const auto& [tick, step] : edges) {
      const bool was = count >= static_cast<int>(band_cores);
      count += step;
      const bool is = count >= static_cast<int>(band_cores);
      if (!was && is) open_at = tick;
      if (was && !is && static_cast<double>(tick - open_at) >= kBandLength * makespan) bands.emplace_back(open_at, tick);
    }
    if (!bands.empty()) {
      std::uint64_t lost = 0;
      for (const auto& [begin, end] : bands) lost += idle_area.all(begin, end);
      std::stable_sort(bands.begin(), bands.end(), [](const auto& a, const auto& b) { return a.second - a.first > b.second - b.first; });
      // The three longest, each with its cores and the constraint that ended most of its idle time.
      std::string listed, site;
      std::vector<std::uint32_t> longest_cores;
      for (std::size_t k = 0; k < std::min<std::size_t>(bands.size(), 3); ++k) {
        const auto [band_begin, band_end] = bands[k];
        std::map<const IdleCause*, std::uint64_t> band_causes;
        std::vector<std::uint32_t> band_core_list;
        for (std::size_t i : mid_run) {
          const trace::Span& idle = trace.idle[i];
          const std::uint64_t overlap_begin = std::max(idle.begin, band_begin), overlap_end = std::min(idle.end, band_end);
          if (overlap_begin >= overlap_end) continue;
          band_causes[cause_of_span[i]] += overlap_end - overlap_begin;
          if (std::find(band_core_list.begin(), band_core_list.end(), idle.core) == band_core_list.end()) band_core_list.push_back(idle.core);
        }
        // The most idle time; on a tie the first cause by name, so the text does not depend on
        // where the causes were allocated.
        const auto cause = std::max_element(band_causes.begin(), band_causes.end(), [](const auto& a, const auto& b) {
          return a.second != b.second ? a.second < b.second
                                      : std::tie(b.first->construct, b.first->site) < std::tie(a.first->construct, a.first->site);
        });
        listed += std::string(k ? "; " : "") + at(band_begin) + " .. " + at(band_end) + " (" +
                  fixed(100.0 * static_cast<double>(band_end - band_begin) / makespan) + "% of the run, " +
                  std::to_string(band_core_list.size()) + " cores, most until a " +
                  (cause == band_causes.end() ? std::string("?") : cause->first->construct) +
                  (cause == band_causes.end() || cause->first->site.empty() ? "" : " at " + cause->first->site) + ")";
        if (k == 0) {
          longest_cores = band_core_list;
          if (cause != band_causes.end()) site = cause->first->site;
        }
      }
      std::sort(longest_cores.begin(), longest_cores.end());
      report.hints.push_back(Hint{"idle-band",
                                  std::to_string(bands.size()) + " idle band" + (bands.size() > 1 ? "s" : "") +
                                      " between waves of units (at least " + std::to_string(band_cores) +
                                      " cores idle at once), longest first: " + listed +
                                      ". The next wave became ready late: make its units ready sooner (create them earlier or on a dedicated core), or choose a unit size whose waves fill the cores (paper 3.4.2, 3.4.3)",
                                  longest_cores, bands.front().first - first, bands.front().second - first, site});
      report.hints.back().lost = lost;
    }
  }
  // A singleton whose body ran late (3.4.6): the VP granted the singleton waited on its core
  // behind other work while the VPs that reached the singleton after it waited for its end.
  {
    std::unordered_map<std::uint64_t, std::vector<const trace::ConstraintRecord*>> ends_by_body;
    for (const trace::ConstraintRecord& c : trace.constraints) {
      if (trace.construct_name(c.construct) == "singleton end") ends_by_body[c.from].push_back(&c);
    }
    const trace::ConstraintRecord* worst = nullptr;
    std::uint64_t worst_delay = 0;
    for (const trace::ConstraintRecord& c : trace.constraints) {
      if (trace.construct_name(c.construct) != "singleton") continue;
      auto body = unit_by_id.find(c.to);
      if (body == unit_by_id.end() || body->second->record.begin <= c.time || !ends_by_body.count(c.to)) continue;
      const std::uint64_t delay = body->second->record.begin - c.time;
      if (delay > worst_delay) worst = &c, worst_delay = delay;
    }
    if (worst != nullptr && static_cast<double>(worst_delay) > kSingletonLate * makespan) {
      const trace::Unit& body = *unit_by_id.at(worst->to);
      std::size_t others = 0;  // units of other VPs that ran first on the body's core
      for (const trace::Unit* unit : per_core[body.core]) {
        if (unit->record.vp != body.record.vp && unit->record.begin >= worst->time && unit->record.begin < body.record.begin) ++others;
      }
      std::vector<std::uint32_t> waiting_cores;
      for (const trace::ConstraintRecord* end : ends_by_body.at(worst->to)) {
        auto waiter = unit_by_id.find(end->to);
        if (waiter == unit_by_id.end()) continue;
        if (std::find(waiting_cores.begin(), waiting_cores.end(), waiter->second->core) == waiting_cores.end()) {
          waiting_cores.push_back(waiter->second->core);
        }
      }
      std::sort(waiting_cores.begin(), waiting_cores.end());
      auto from = unit_by_id.find(worst->from);
      report.hints.push_back(Hint{"singleton-late",
                                  "the singleton was granted at " + at(worst->time) + " but its body (unit " +
                                      std::to_string(body.record.unit) + ") ran only at " + at(body.record.begin) + " on core " +
                                      std::to_string(body.core) + ", after " + std::to_string(others) +
                                      " units of other VPs there; " + std::to_string(ends_by_body.at(worst->to).size()) +
                                      " units on cores " + core_ranges(waiting_cores) +
                                      " waited for its end: a runtime fluke the application can only soften by its unit size (paper 3.4.6)",
                                  {body.core}, worst->time - first, body.record.begin - first,
                                  from == unit_by_id.end() ? std::string() : trace.site_name(from->second->record.site)});
      report.hints.back().lost = worst_delay * ends_by_body.at(worst->to).size();
    }
  }
  // The biggest cause of idle time, when it is big: the freeing side of that construct runs late.
  for (const IdleCause& cause : report.idle_causes) {
    if (cause.construct.rfind("nothing left", 0) == 0 || cause.construct == "no recorded constraint") continue;
    if (static_cast<double>(cause.ticks) > kIdleCause * makespan) {
      report.hints.push_back(Hint{"idle-cause",
                                  "cores " + core_ranges(cause.cores) + " sat idle " + ms(cause.ticks) + " in all (" +
                                      fixed(100.0 * static_cast<double>(cause.ticks) / (makespan * std::max<std::uint32_t>(trace.core_count, 1))) +
                                      "% of the cores' time) until a " + cause.construct +
                                      " freed them: the unit on the other side of that construct ran late; look at where its VP is placed and what runs before it on that core",
                                  cause.cores, 0, report.makespan, cause.site});
      report.hints.back().lost = cause.ticks;
    }
    break;  // only the biggest
  }
  std::vector<std::uint32_t> tail_cores;
  std::uint64_t longest_tail = 0;
  for (auto& [core, ticks] : tail) {
    if (static_cast<double>(ticks) >= kIdleTail * makespan) {
      tail_cores.push_back(core);
      longest_tail = std::max(longest_tail, ticks);
    }
  }
  if (!tail_cores.empty()) {
    report.hints.push_back(Hint{"idle-tail",
                                std::to_string(tail_cores.size()) + " cores idle at the end, up to " + ms(longest_tail) +
                                    ": too few units remain for the last wave; try a number of pieces that fills every core (paper 3.4.2)",
                                tail_cores, report.makespan - longest_tail, report.makespan, ""});
    for (std::uint32_t core : tail_cores) report.hints.back().lost += tail[core];
  }
  if (report.unit_size_verdict != "fine") {
    report.hints.push_back(Hint{"unit-size",
                                "units are " + report.unit_size_verdict + ": overhead is " + fixed(report.overhead_per_work * 100) +
                                    "% of work, " + fixed(units_per_core) + " units per core (triggers: overhead above " +
                                    fixed(kTooSmall * 100, 0) + "% of work, or fewer than " + fixed(kTooBigUnitsPerCore, 0) +
                                    " units per core)",
                                {}, 0, report.makespan, ""});
    report.hints.back().lost = overhead;
  }
  if (overhead > 0 && static_cast<double>(lock) > kLockShare * static_cast<double>(overhead)) {
    report.hints.push_back(Hint{"lock-contention",
                                "waiting for the runtime lock is " + fixed(100.0 * static_cast<double>(lock) / static_cast<double>(overhead)) +
                                    "% of the runtime overhead",
                                {}, 0, report.makespan, ""});
    report.hints.back().lost = lock;
  }
  // Critical path: how short the run could be on unlimited cores, and what it is made of.
  {
    const CriticalPath path = critical_path(build_unit_graph(trace), trace);
    report.critical_path_work = path.work;
    report.critical_path_cycles = path.cycles;
    report.critical_path_units = path.nodes.size();
    report.critical_path_share = static_cast<double>(path.work) / makespan;
    report.parallelism = path.parallelism;
    report.critical_path_arcs = path.arcs_by_kind;
  }
  // Named patterns before the generic idle-cause hint (which often shows the same loss from the
  // waiting side), each group by the core time it cost.
  std::stable_sort(report.hints.begin(), report.hints.end(), [](const Hint& a, const Hint& b) {
    const bool generic_a = a.rule == "idle-cause", generic_b = b.rule == "idle-cause";
    return generic_a != generic_b ? generic_b : a.lost > b.lost;
  });
  return report;
}

void print_report(std::ostream& out, const trace::Trace& trace, const Report& report) {
  const auto ms = [&](std::uint64_t ticks) { return fixed(static_cast<double>(ticks) * 1e3 / trace.clock_hz, 3) + " ms"; };
  const auto pct = [&](std::uint64_t ticks) {
    return fixed(report.makespan ? 100.0 * static_cast<double>(ticks) / static_cast<double>(report.makespan) : 0) + "%";
  };
  auto cmd = trace.metadata.find("command_line");
  out << "run:       " << (cmd == trace.metadata.end() ? "?" : cmd->second) << '\n'
      << "makespan:  " << ms(report.makespan) << " on " << trace.core_count << " cores, " << trace.units.size() << " units\n\n"
      << "per core:  work / overhead / idle (of the makespan)\n";
  for (std::size_t k = 0; k < report.summary.cores.size(); ++k) {
    const CoreTime& c = report.summary.cores[k];
    out << "  core " << k << ": " << pct(c.work) << " / " << pct(c.decision + c.communication + c.constraint_update)
        << " / " << pct(c.idle) << "  (" << c.units << " units)\n";
  }
  const OverheadByKind& o = report.overhead;
  out << "\noverhead:  " << fixed(report.overhead_per_work * 100) << "% of work; unit size: " << report.unit_size_verdict << '\n'
      << "  by kind: assigner + switch " << ms(o.decision) << ", communication " << ms(o.communication) << ", lock wait "
      << ms(o.lock_wait) << ", constraint update " << ms(o.constraint_update) << ", create " << ms(o.create) << '\n'
      << "unit sizes (work, ticks): ";
  for (std::size_t k = 0; k < report.unit_size_histogram.size(); ++k) {
    if (report.unit_size_histogram[k]) out << "2^" << k << ":" << report.unit_size_histogram[k] << ' ';
  }
  out << "\n\ncritical path: " << ms(report.critical_path_work) << " of work (" << pct(report.critical_path_work)
      << " of the makespan), " << ms(report.critical_path_cycles) << " with overhead, " << report.critical_path_units
      << " units; parallelism " << fixed(report.parallelism, 2) << " (total work / critical-path work)\n"
      << "  its arcs:";
  if (report.critical_path_arcs.empty()) out << " none";
  for (const auto& [kind, count] : report.critical_path_arcs) out << ' ' << kind << ": " << count;
  out << "\n\nidle time by cause (the constraint whose satisfaction ended it):\n";
  if (report.idle_causes.empty()) out << "  none\n";
  for (const IdleCause& cause : report.idle_causes) {
    out << "  " << ms(cause.ticks) << " in " << cause.periods << " periods on cores " << core_ranges(cause.cores) << ": "
        << cause.construct << (cause.site.empty() ? "" : " at " + cause.site) << '\n';
  }
  out << "\nhints:\n";
  if (report.hints.empty()) out << "  none: no known pattern of lost time in this run\n";
  for (const Hint& hint : report.hints) {
    out << "  [" << hint.rule << "] " << hint.message << (hint.site.empty() ? "" : " (call site " + hint.site + ")")
        << "; lost " << ms(hint.lost) << " of core time\n";
  }
}

void print_report_json(std::ostream& out, const trace::Trace& trace, const Report& report) {
  const auto seconds = [&](std::uint64_t ticks) { return fixed(static_cast<double>(ticks) / trace.clock_hz, 9); };
  out << "{\"makespan_s\":" << seconds(report.makespan) << ",\"cores\":" << trace.core_count << ",\"units\":" << trace.units.size()
      << ",\"per_core\":[";
  for (std::size_t k = 0; k < report.summary.cores.size(); ++k) {
    const CoreTime& c = report.summary.cores[k];
    out << (k ? "," : "") << "{\"core\":" << k << ",\"work_s\":" << seconds(c.work)
        << ",\"overhead_s\":" << seconds(c.decision + c.communication + c.constraint_update) << ",\"idle_s\":" << seconds(c.idle) << "}";
  }
  const OverheadByKind& o = report.overhead;
  out << "],\"overhead_per_work\":" << fixed(report.overhead_per_work, 6) << ",\"overhead_s\":{\"decision\":" << seconds(o.decision)
      << ",\"communication\":" << seconds(o.communication) << ",\"lock_wait\":" << seconds(o.lock_wait)
      << ",\"constraint_update\":" << seconds(o.constraint_update) << ",\"create\":" << seconds(o.create)
      << "},\"unit_size\":" << json(report.unit_size_verdict)
      << ",\"critical_path\":{\"work_s\":" << seconds(report.critical_path_work)
      << ",\"cycles_s\":" << seconds(report.critical_path_cycles) << ",\"units\":" << report.critical_path_units
      << ",\"share_of_makespan\":" << fixed(report.critical_path_share, 6) << ",\"parallelism\":" << fixed(report.parallelism, 6)
      << ",\"arcs\":{";
  for (auto kind = report.critical_path_arcs.begin(); kind != report.critical_path_arcs.end(); ++kind) {
    out << (kind == report.critical_path_arcs.begin() ? "" : ",") << json(kind->first) << ":" << kind->second;
  }
  out << "}}"
      << ",\"idle_causes\":[";
  for (std::size_t i = 0; i < report.idle_causes.size(); ++i) {
    const IdleCause& c = report.idle_causes[i];
    out << (i ? "," : "") << "{\"construct\":" << json(c.construct) << ",\"site\":" << json(c.site) << ",\"idle_s\":" << seconds(c.ticks)
        << ",\"periods\":" << c.periods << ",\"cores\":[" << cores_text(c.cores) << "]}";
  }
  out << "],\"hints\":[";
  for (std::size_t i = 0; i < report.hints.size(); ++i) {
    const Hint& h = report.hints[i];
    out << (i ? "," : "") << "{\"rule\":" << json(h.rule) << ",\"message\":" << json(h.message) << ",\"cores\":[" << cores_text(h.cores)
        << "],\"begin_s\":" << seconds(h.begin) << ",\"end_s\":" << seconds(h.end) << ",\"site\":" << json(h.site) << ",\"lost_core_s\":" << seconds(h.lost) << "}";
  }
  out << "]}\n";
}

}  // namespace moirai::visualize

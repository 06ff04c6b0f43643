#include "moirai/visualize/report.h"

#include "text_format.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
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

std::string fixed(double value, int digits = 1) { return detail::fixed(value, digits); }
std::string json(const std::string& text) { return detail::json_string(text); }

std::string cores_text(const std::vector<std::uint32_t>& cores) {
  std::string text;
  for (std::uint32_t core : cores) text += (text.empty() ? "" : ",") + std::to_string(core);
  return text;
}

}  // namespace

Report build_report(const trace::Trace& trace) {
  Report report;
  report.summary = summarize(trace);
  std::uint64_t first = UINT64_MAX, last = 0;
  std::unordered_map<std::uint64_t, const trace::Unit*> unit_by_id;
  unit_by_id.reserve(trace.units.size());
  std::map<std::uint32_t, std::vector<const trace::Unit*>> per_core;
  for (const trace::Unit& unit : trace.units) {
    first = std::min(first, unit.record.assign);
    last = std::max(last, unit.record.handler_end);
    unit_by_id[unit.record.unit] = &unit;
    per_core[unit.core].push_back(&unit);
  }
  for (const trace::Span& idle : trace.idle) {
    first = std::min(first, idle.begin);
    last = std::max(last, idle.end);
  }
  if (first == UINT64_MAX) return report;
  report.makespan = last - first;
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
    cause.construct = construct;
    cause.site = site;
    cause.ticks += idle.end - idle.begin;
    ++cause.periods;
    if (std::find(cause.cores.begin(), cause.cores.end(), idle.core) == cause.cores.end()) cause.cores.push_back(idle.core);
  }
  for (auto& [key, cause] : causes) report.idle_causes.push_back(cause);
  std::sort(report.idle_causes.begin(), report.idle_causes.end(), [](const IdleCause& a, const IdleCause& b) { return a.ticks > b.ticks; });

  // Unit sizes and overhead.
  std::uint64_t work = 0, overhead = 0, lock = 0;
  for (const trace::Unit& unit : trace.units) {
    const trace::UnitRecord& r = unit.record;
    const std::uint64_t w = r.end - r.begin;
    work += w;
    overhead += (r.begin - r.assign) + (r.handler_end - r.end);
    lock += r.locked - r.end;
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
  }
  // Creator starvation: a VP that creates runs other work between two of its creations on its
  // core, while other cores sit idle waiting for creations.
  std::uint64_t waiting_for_creation = 0;
  for (const IdleCause& cause : report.idle_causes) {
    if (cause.construct == "create_vp") waiting_for_creation += cause.ticks;
  }
  if (static_cast<double>(waiting_for_creation) > kStarvationIdle * makespan) {
    for (auto& [core, units] : per_core) {
      std::unordered_map<std::uint64_t, const trace::Unit*> last_create;  // by VP
      bool found = false;
      for (std::size_t i = 0; i < units.size() && !found; ++i) {
        const trace::UnitRecord& r = units[i]->record;
        if (trace.construct_name(r.ended_by) != "create_vp") continue;
        auto previous = last_create.find(r.vp);
        if (previous != last_create.end()) {
          // Work of another VP ran on this core between two creations of this VP.
          for (std::size_t j = 0; j < i; ++j) {
            const trace::UnitRecord& between = units[j]->record;
            if (between.assign >= previous->second->record.handler_end && between.handler_end <= r.assign &&
                between.vp != r.vp) {
              report.hints.insert(report.hints.begin(),
                                  Hint{"creator-starvation",
                                       "core " + std::to_string(core) + " ran unit " + std::to_string(between.unit) +
                                           " of another VP between two creations by VP " + std::to_string(r.vp) + " (" +
                                           at(between.assign) + " .. " + at(between.handler_end) +
                                           "), while other cores idled " + ms(waiting_for_creation) +
                                           " waiting for creations: create the first workers on other cores, or dedicate a core to the creator (paper 3.4.1)",
                                       {core}, between.assign - first, between.handler_end - first,
                                       trace.site_name(previous->second->record.site)});
              found = true;
              break;
            }
          }
        }
        last_create[r.vp] = units[i];
      }
      if (found) break;
    }
  }
  // The biggest cause of idle time, when it is big: the freeing side of that construct runs late.
  for (const IdleCause& cause : report.idle_causes) {
    if (cause.construct.rfind("nothing left", 0) == 0 || cause.construct == "no recorded constraint") continue;
    if (static_cast<double>(cause.ticks) > kIdleCause * makespan) {
      report.hints.push_back(Hint{"idle-cause",
                                  "cores " + cores_text(cause.cores) + " sat idle " + ms(cause.ticks) + " (" +
                                      fixed(100.0 * static_cast<double>(cause.ticks) / makespan) +
                                      "% of the run) until a " + cause.construct +
                                      " freed them: the unit on the other side of that construct ran late; look at where its VP is placed and what runs before it on that core",
                                  cause.cores, 0, report.makespan, cause.site});
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
  }
  if (report.unit_size_verdict != "fine") {
    report.hints.push_back(Hint{"unit-size",
                                "units are " + report.unit_size_verdict + ": overhead is " + fixed(report.overhead_per_work * 100) +
                                    "% of work, " + fixed(units_per_core) + " units per core (triggers: overhead above " +
                                    fixed(kTooSmall * 100, 0) + "% of work, or fewer than " + fixed(kTooBigUnitsPerCore, 0) +
                                    " units per core)",
                                {}, 0, report.makespan, ""});
  }
  if (overhead > 0 && static_cast<double>(lock) > kLockShare * static_cast<double>(overhead)) {
    report.hints.push_back(Hint{"lock-contention",
                                "waiting for the runtime lock is " + fixed(100.0 * static_cast<double>(lock) / static_cast<double>(overhead)) +
                                    "% of the runtime overhead",
                                {}, 0, report.makespan, ""});
  }
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
  out << "\noverhead:  " << fixed(report.overhead_per_work * 100) << "% of work; unit size: " << report.unit_size_verdict << '\n'
      << "unit sizes (work, ticks): ";
  for (std::size_t k = 0; k < report.unit_size_histogram.size(); ++k) {
    if (report.unit_size_histogram[k]) out << "2^" << k << ":" << report.unit_size_histogram[k] << ' ';
  }
  out << "\n\nidle time by cause (the constraint whose satisfaction ended it):\n";
  if (report.idle_causes.empty()) out << "  none\n";
  for (const IdleCause& cause : report.idle_causes) {
    out << "  " << ms(cause.ticks) << " in " << cause.periods << " periods on cores " << cores_text(cause.cores) << ": "
        << cause.construct << (cause.site.empty() ? "" : " at " + cause.site) << '\n';
  }
  out << "\nhints:\n";
  if (report.hints.empty()) out << "  none: no known pattern of lost time in this run\n";
  for (const Hint& hint : report.hints) {
    out << "  [" << hint.rule << "] " << hint.message << (hint.site.empty() ? "" : " (call site " + hint.site + ")") << '\n';
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
  out << "],\"overhead_per_work\":" << fixed(report.overhead_per_work, 6) << ",\"unit_size\":" << json(report.unit_size_verdict)
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
        << "],\"begin_s\":" << seconds(h.begin) << ",\"end_s\":" << seconds(h.end) << ",\"site\":" << json(h.site) << "}";
  }
  out << "]}\n";
}

}  // namespace moirai::visualize

#include "moirai/visualize/analyses/run_summary.h"

#include "moirai/visualize/analyses/os_load.h"

#include "analyses/integrity.h"
#include "model/chore_index.h"
#include "output/construct_views.h"
#include "output/text_format.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>

namespace moirai::visualize {

RunSummary summarize(const trace::Trace& trace) {
  RunSummary summary;
  summary.vps = trace.vps.size();
  summary.units = trace.units.size();
  summary.groups = trace.groups.size();
  summary.group_kinds = detail::group_kinds(trace, detail::GroupWords::plural);
  summary.cores.resize(trace.core_count);
  // Counted by kind first: a name lookup per constraint cost about a tenth of `moirai stats`.
  std::vector<std::uint64_t> by_kind(0x10000, 0);
  for (const trace::ConstraintRecord& c : trace.constraints) ++by_kind[c.construct];
  for (std::size_t kind = 0; kind < by_kind.size(); ++kind) {
    if (by_kind[kind] != 0) summary.constraints_by_kind[trace.construct_name(static_cast<std::uint32_t>(kind))] += by_kind[kind];
  }
  for (const auto& [match, message] : trace.messages) ++summary.messages, summary.message_bytes += message.bytes;
  for (const auto& [unit, call] : trace.collective_calls) ++summary.collective_calls, summary.collective_bytes += call.bytes;
  summary.counter_totals.reserve(trace.counters.size());
  for (const std::string& name : trace.counters) summary.counter_totals.emplace_back(name, 0);
  // A chore lies inside a decision span or an idle span: it is taken out of the one it is in.
  const detail::ChoreIndex chores(trace);
  const auto chores_in = [&](CoreTime& core, std::uint32_t on, std::uint64_t begin, std::uint64_t end) {
    const detail::ChoreIndex::Ticks in = chores.inside(on, begin, end);
    core.wake_ups += in.wake;
    core.vp_shells += in.shell;
    core.estimated += in.estimated;
    return std::min(in.total(), end - begin);
  };
  for (const trace::Unit& unit : trace.units) {
    const trace::UnitRecord& r = unit.record;
    CoreTime& core = summary.cores.at(unit.core);
    ++core.units;
    core.decision += r.begin - r.assign - chores_in(core, unit.core, r.assign, r.begin);
    core.work += unit.work();
    core.os_taken += unit.taken;
    core.communication += r.handler - r.end;
    core.lock_wait += r.locked - r.end;
    core.constraint_update += r.handler_end - r.handler;
    for (std::size_t i = 0; i < unit.counters.size(); ++i) summary.counter_totals[i].second += unit.counters[i];
  }
  for (const trace::Span& idle : trace.idle) {
    CoreTime& core = summary.cores.at(idle.core);
    core.idle += idle.end - idle.begin - chores_in(core, idle.core, idle.begin, idle.end);
  }
  for (const trace::Trace::ChoreSpan& chore : trace.chores) {
    if (chore.core >= trace.core_count) continue;
    CoreTime& core = summary.cores[chore.core];
    switch (static_cast<Chore>(chore.record.chore)) {
      case Chore::wake_up: ++core.wake_up_count; break;
      case Chore::vp_shell: ++core.vp_shell_count; break;
      case Chore::estimated: ++core.estimated_count; break;
    }
  }
  summary.bytes_per_unit = summary.units ? static_cast<double>(trace.bytes) / static_cast<double>(summary.units) : 0;
  return summary;
}

namespace {

std::string fixed(double value, int digits = 3) { return detail::fixed(value, digits); }

std::string meta(const trace::Trace& trace, const std::string& key) {
  auto found = trace.metadata.find(key);
  return found == trace.metadata.end() ? "" : found->second;
}

// recording_cost says what recording cost per unit (format 2) or per record (older traces).
std::string recording_cost(const trace::Trace& trace) {
  const std::string per_unit = meta(trace, "unit_record_cost_ns");
  if (!per_unit.empty()) return fixed(std::stod(per_unit), 1) + " ns per unit";
  const std::string per_record = meta(trace, "record_cost_ns");
  return per_record.empty() ? std::string("not stated") : per_record + " ns per record (clock readings only)";
}

}  // namespace

void print_summary(std::ostream& out, const std::string& path, const trace::Trace& trace,
                   const RunSummary& s) {
  const auto ms = [&](std::uint64_t ticks) { return fixed(static_cast<double>(ticks) * 1e3 / trace.clock_hz); };
  const auto pct = [](std::uint64_t part, std::uint64_t whole) {
    return whole ? fixed(100.0 * static_cast<double>(part) / static_cast<double>(whole), 1) + "%" : std::string("-");
  };
  out << "trace:        " << path << '\n'
      << "command:      " << meta(trace, "command_line") << '\n'
      << "language:     " << meta(trace, "language") << ", " << detail::plural(trace.core_count, "core") << " ("
      << meta(trace, "topology") << ")\n"
      << "clock:        " << meta(trace, "clock_source") << " at " << fixed(trace.clock_hz / 1e6, 1) << " MHz\n"
      << "VPs:          " << s.vps << '\n'
      << "units:        " << s.units << '\n'
      << "constraints:  ";
  std::uint64_t total = 0;
  for (const auto& [kind, count] : s.constraints_by_kind) total += count;
  out << total;
  for (const auto& [kind, count] : s.constraints_by_kind) out << "  " << kind << ": " << count;
  if (s.messages != 0 || s.collective_calls != 0) {
    out << "\nbytes sent:   " << s.message_bytes << " in " << detail::plural(s.messages, "message") << ", " << s.collective_bytes
        << " in " << detail::plural(s.collective_calls, "collective call");
  }
  out << "\ngroups:       " << s.groups << " (possible partners of " << s.group_kinds << ")\n\n";
  // Shares are of the makespan, as the report gives them, so a core that began late or finished
  // early shows the time it was not there.
  const std::uint64_t makespan = run_span(trace).length();
  char line[200];
  std::snprintf(line, sizeof line, "%-5s %8s %11s %11s %11s %11s %11s %11s\n", "core", "units", "work ms",
                "comm ms", "(lock) ms", "update ms", "decide ms", "idle ms");
  out << "time per core (life-line segments, paper section 5.3.4):\n" << line;
  for (std::size_t k = 0; k < s.cores.size(); ++k) {
    const CoreTime& c = s.cores[k];
    std::snprintf(line, sizeof line, "%-5zu %8llu %11s %11s %11s %11s %11s %11s   work %s, idle %s", k,
                  static_cast<unsigned long long>(c.units), ms(c.work).c_str(), ms(c.communication).c_str(),
                  ms(c.lock_wait).c_str(), ms(c.constraint_update).c_str(), ms(c.decision).c_str(),
                  ms(c.idle).c_str(), pct(c.work, makespan).c_str(), pct(c.idle, makespan).c_str());
    out << line;
    if (c.os_taken != 0) out << ", taken by the OS " << pct(c.os_taken, makespan);
    out << '\n';
  }
  const auto any = [&](std::uint64_t CoreTime::*count) {
    return std::any_of(s.cores.begin(), s.cores.end(), [count](const CoreTime& c) { return c.*count != 0; });
  };
  if (any(&CoreTime::wake_up_count) || any(&CoreTime::vp_shell_count)) {
    out << "chores after the runtime lock (taken out of decide and idle):\n";
    for (std::size_t k = 0; k < s.cores.size(); ++k) {
      const CoreTime& c = s.cores[k];
      out << "  core " << k << ": waking cores " << ms(c.wake_ups) << " ms (" << c.wake_up_count << "), VP shells "
          << ms(c.vp_shells) << " ms (" << c.vp_shell_count << ")\n";
    }
  }
  if (any(&CoreTime::estimated_count)) {
    const std::string cost = meta(trace, "omp_task_cost");
    out << "runtime work estimated inside the units (taken out of their work, counted apart from decide"
        << (cost.empty() ? std::string() : "; omp_task_cost " + cost + ", " + meta(trace, "omp_task_cost_source")) << "):\n";
    for (std::size_t k = 0; k < s.cores.size(); ++k) {
      const CoreTime& c = s.cores[k];
      out << "  core " << k << ": " << ms(c.estimated) << " ms from " << detail::plural(c.estimated_count, "unit") << '\n';
    }
  }
  const OsLoad os = os_load(trace);
  out << "\nOS:           " << os.method;
  if (os.measured) {
    out << "; what it took from the units' work, per core:\n";
    for (const CoreOsLoad& c : os.cores) {
      out << "  core " << c.core << (c.cpu >= 0 ? " (cpu " + std::to_string(c.cpu) + ")" : std::string()) << ": "
          << ms(c.taken) << " ms taken (" << fixed(100.0 * c.share, 1) << "% of the run) from ";
      if (c.per_run) {
        out << "the run (not measured per unit)";
      } else {
        out << c.units_hit << (c.units_hit == 1 ? " unit" : " units") << ", " << c.switches << " involuntary switches, "
            << c.migrations << " migrations";
      }
      if (c.other_busy_ns >= 0) out << "; other work on its CPU " << fixed(c.other_busy_ns / 1e6) << " ms";
      if (c.steal_ns >= 0) out << ", hypervisor steal " << fixed(c.steal_ns / 1e6) << " ms";
      if (c.unpinned) out << "; its thread moved to another CPU (not pinned)";
      out << '\n';
    }
  } else {
    out << '\n';
  }
  out << "\ncounters:     ";
  if (trace.counters.empty()) out << "none recorded";
  for (std::size_t i = 0; i < s.counter_totals.size(); ++i) {
    const std::string& backend = trace.counter_backends[i];
    out << s.counter_totals[i].first << " = " << s.counter_totals[i].second
        << (backend.empty() ? "" : " (" + backend + ")") << "  ";
  }
  out << '\n';
  if (!meta(trace, "counter_read").empty()) out << "  read by:    " << meta(trace, "counter_read") << '\n';
  if (!meta(trace, "counter_notes").empty()) out << "  mapped:     " << meta(trace, "counter_notes") << '\n';
  for (const std::string& missing : trace.missing_counters) out << "  missing:    " << missing << '\n';
  out << "recording:    " << recording_cost(trace)
      << " (the probe's own cost, measured at start), "
      << fixed(s.bytes_per_unit, 1) << " trace bytes per unit\n";
  detail::print_integrity(out, trace);
}

void print_summary_json(std::ostream& out, const std::string& path, const trace::Trace& trace,
                        const RunSummary& s) {
  using Json = nlohmann::ordered_json;
  // Seconds to the nanosecond; a trace without a clock rate (cut after its header) gives null.
  const auto seconds = [&](std::uint64_t ticks) { return detail::rounded(static_cast<double>(ticks) / trace.clock_hz, 9); };
  const auto or_null = [](double value, int digits) { return value < 0 ? Json(nullptr) : Json(detail::rounded(value, digits)); };
  const std::uint64_t makespan = run_span(trace).length();
  // A core's work and idle as shares of the makespan, as the report gives them (null without one).
  const auto share = [&](std::uint64_t ticks) {
    return makespan ? Json(detail::rounded(static_cast<double>(ticks) / static_cast<double>(makespan), 6)) : Json(nullptr);
  };
  Json json;
  json["trace"] = path;
  json["command"] = meta(trace, "command_line");
  json["language"] = meta(trace, "language");
  json["cores"] = trace.core_count;
  json["clock_source"] = meta(trace, "clock_source");
  json["clock_hz"] = detail::whole_number(trace.clock_hz);
  json["makespan_s"] = seconds(makespan);
  json["vps"] = s.vps;
  json["units"] = s.units;
  json["groups"] = s.groups;
  json["constraints"] = Json::object();
  for (const auto& [kind, count] : s.constraints_by_kind) json["constraints"][kind] = count;
  if (s.messages != 0 || s.collective_calls != 0) {
    json["bytes_sent"] = Json{{"messages", s.messages}, {"message_bytes", s.message_bytes}, {"collective_calls", s.collective_calls},
                              {"collective_bytes", s.collective_bytes}};
  }
  Json& per_core = json["per_core"] = Json::array();
  for (std::size_t k = 0; k < s.cores.size(); ++k) {
    const CoreTime& c = s.cores[k];
    per_core.push_back(Json{{"core", k},
                            {"units", c.units},
                            {"work_s", seconds(c.work)},
                            {"communication_s", seconds(c.communication)},
                            {"lock_wait_s", seconds(c.lock_wait)},
                            {"constraint_update_s", seconds(c.constraint_update)},
                            {"decision_s", seconds(c.decision)},
                            {"idle_s", seconds(c.idle)},
                            {"wake_up_s", seconds(c.wake_ups)},
                            {"wake_ups", c.wake_up_count},
                            {"vp_shell_s", seconds(c.vp_shells)},
                            {"vp_shells", c.vp_shell_count},
                            {"estimated_s", seconds(c.estimated)},
                            {"estimated_units", c.estimated_count},
                            {"work_share", share(c.work)},
                            {"idle_share", share(c.idle)}});
  }
  const OsLoad os = os_load(trace);
  Json os_cores = Json::array();
  for (const CoreOsLoad& c : os.cores) {
    os_cores.push_back(Json{{"core", c.core},
                            {"cpu", c.cpu},
                            {"taken_s", seconds(c.taken)},
                            {"share", detail::rounded(c.share, 4)},
                            {"units_hit", c.units_hit},
                            {"switches", c.switches},
                            {"migrations", c.migrations},
                            {"other_busy_s", or_null(c.other_busy_ns / 1e9, 6)},
                            {"steal_s", or_null(c.steal_ns / 1e9, 6)},
                            {"per_run", c.per_run}});
  }
  json["os"] = Json{{"method", os.method}, {"per_core", os_cores}};
  json["counters"] = Json::object();
  for (const auto& [name, value] : s.counter_totals) json["counters"][name] = value;
  json["counter_backends"] = trace.counter_backends;
  json["missing_counters"] = trace.missing_counters;
  const std::string record_cost = meta(trace, "unit_record_cost_ns");
  char* end = nullptr;
  const double cost = std::strtod(record_cost.c_str(), &end);
  json["unit_record_cost_ns"] = record_cost.empty() || *end != '\0' ? Json(nullptr) : Json(cost);
  json["bytes_per_unit"] = detail::rounded(s.bytes_per_unit, 1);
  json["integrity"] = detail::integrity_json(trace);
  out << detail::dump_json(std::move(json)) << '\n';
}

}  // namespace moirai::visualize

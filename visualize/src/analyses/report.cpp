#include "moirai/visualize/analyses/report.h"

#include "analyses/integrity.h"
#include "analyses/report/analysis.h"
#include "output/text_format.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace moirai::visualize {

// The rules, one file each (report/rule_*.cpp, listed by CMake in report_rules.inc).
namespace report {
#define MOIRAI_RULE(name) extern const Rule name;
#include "report_rules.inc"
#undef MOIRAI_RULE
}  // namespace report

namespace {

using report::LossEntry;
using report::LossKind;

constexpr double kTooSmall = 0.20;           // overhead (without lock wait) above 20% of work
constexpr double kTooBigUnitsPerCore = 2.0;  // fewer units per core than this: units too big

std::string fixed(double value, int digits = 1) { return detail::fixed(value, digits); }

// rules lists the rules in the order they claim lost time.
std::vector<const report::Rule*> rules() {
  std::vector<const report::Rule*> all = {
#define MOIRAI_RULE(name) &report::name,
#include "report_rules.inc"
#undef MOIRAI_RULE
  };
  std::stable_sort(all.begin(), all.end(), [](auto* a, auto* b) { return a->order < b->order; });
  return all;
}

}  // namespace

const char* idle_kind_name(IdlePeriod::Kind kind) {
  switch (kind) {
    case IdlePeriod::Kind::idle: return "idle";
    case IdlePeriod::Kind::start_of_run: return "start of run";
    case IdlePeriod::Kind::end_of_run: return "end of run";
  }
  return "idle";
}

namespace {

// add_merged_run_notes says what qualifies the figures of a trace merged from several processes:
// the cores cut short, how its clocks were put in order, and what lies outside its span.
void add_merged_run_notes(const trace::Trace& trace, Report& report) {
  if (const std::string cut = detail::integrity_note(trace, "cores_cut"); !cut.empty()) {
    report.warnings.push_back(cut + ": the figures cover those cores up to where their records end.");
  }
  if (const std::string clocks = detail::clock_order_text(trace); !clocks.empty()) {
    (detail::integrity_note(trace, "clock_order").empty() ? report.notes : report.warnings).push_back("clock order: " + clocks + ".");
  }
  if (const auto outside = trace.metadata.find("outside_span"); outside != trace.metadata.end() && !outside->second.empty()) {
    report.notes.push_back("not in the figures: " + outside->second + ".");
  }
}

}  // namespace

Report build_report(const trace::Trace& trace) {
  Report report;
  report.summary = summarize(trace);
  report::Analysis analysis = report::analyse(trace);
  report.makespan = analysis.makespan;
  if (trace.units.empty() && trace.idle.empty()) return report;

  // The partition by kind, the idle table and the overhead, before any rule cuts it.
  report.lost.core_time = analysis.core_time;
  report.lost.work = analysis.work;
  std::map<std::pair<std::string, std::string>, IdleCause> causes;
  std::vector<const IdleCause*> cause_of_span(trace.idle.size(), nullptr);  // per Trace::idle span
  std::vector<const IdleCause*> cause_of_period;  // per idle_periods entry
  std::uint64_t lost = 0;
  for (const LossEntry& e : analysis.entries) {
    lost += e.ticks;
    report.lost.by_kind[report::loss_kind_name(e.kind)] += e.ticks;
    switch (e.kind) {
      case LossKind::decision: report.overhead.decision += e.ticks; break;
      case LossKind::communication: report.overhead.communication += e.ticks; break;
      case LossKind::lock_wait: report.overhead.lock_wait += e.ticks; break;
      case LossKind::constraint_update: report.overhead.constraint_update += e.ticks; break;
      case LossKind::create: report.overhead.create += e.ticks; break;
      case LossKind::recording: report.overhead.recording += e.ticks; break;
      case LossKind::wake_up: report.overhead.wake_up += e.ticks; break;
      case LossKind::estimated: report.overhead.estimated += e.ticks; break;
      case LossKind::idle:
      case LossKind::run_end:
      case LossKind::run_start: {
        const IdlePeriod::Kind kind = e.kind == LossKind::idle        ? IdlePeriod::Kind::idle
                                      : e.kind == LossKind::run_start ? IdlePeriod::Kind::start_of_run
                                                                      : IdlePeriod::Kind::end_of_run;
        report.idle_periods.push_back(IdlePeriod{kind, e.core, e.begin, e.end, e.ticks, Report::kNoCause});
        cause_of_period.push_back(nullptr);
        if (e.kind == LossKind::run_start) break;  // charged to no cause: the core had not begun
        const std::string construct = analysis.construct_of(e);
        const std::string site = analysis.site_of(analysis.freeing_unit(e));
        IdleCause& cause = causes[{construct, site}];
        cause.construct = construct;
        cause.site = site;
        cause.ticks += e.ticks;
        ++cause.periods;
        cause.cores.push_back(e.core);
        if (e.span != report::kNone) cause_of_span[e.span] = &cause;
        cause_of_period.back() = &cause;
        break;
      }
      default: break;
    }
  }
  report.lost.total = lost;
  for (auto& [key, cause] : causes) {
    std::sort(cause.cores.begin(), cause.cores.end());
    cause.cores.erase(std::unique(cause.cores.begin(), cause.cores.end()), cause.cores.end());
    report.idle_causes.push_back(cause);
  }
  std::stable_sort(report.idle_causes.begin(), report.idle_causes.end(), [](const IdleCause& a, const IdleCause& b) { return a.ticks > b.ticks; });
  // Each recorded idle span's cause, as its place among the sorted causes.
  std::map<const IdleCause*, std::uint32_t> rank;  // map node -> its place among the sorted causes
  for (auto& [key, cause] : causes) {
    const auto sorted = std::find_if(report.idle_causes.begin(), report.idle_causes.end(),
                                     [&](const IdleCause& c) { return c.construct == cause.construct && c.site == cause.site; });
    rank[&cause] = static_cast<std::uint32_t>(sorted - report.idle_causes.begin());
  }
  report.idle_span_cause.assign(trace.idle.size(), Report::kNoCause);
  for (std::size_t span = 0; span < cause_of_span.size(); ++span) {
    if (cause_of_span[span] != nullptr) report.idle_span_cause[span] = rank[cause_of_span[span]];
  }
  for (std::size_t p = 0; p < cause_of_period.size(); ++p) {
    if (cause_of_period[p] != nullptr) report.idle_periods[p].cause = rank[cause_of_period[p]];
  }
  std::stable_sort(report.idle_periods.begin(), report.idle_periods.end(), [](const IdlePeriod& a, const IdlePeriod& b) {
    return a.core != b.core ? a.core < b.core : a.begin < b.begin;
  });

  // Unit sizes.
  for (const trace::Unit& unit : trace.units) {
    const std::uint64_t w = unit.work();
    const std::size_t bucket = w == 0 ? 0 : static_cast<std::size_t>(std::log2(static_cast<double>(w)));
    if (report.unit_size_histogram.size() <= bucket) report.unit_size_histogram.resize(bucket + 1);
    ++report.unit_size_histogram[bucket];
  }
  const std::uint64_t overhead = report.overhead.total();
  report.overhead_per_work = analysis.work ? static_cast<double>(overhead) / static_cast<double>(analysis.work) : 0;
  // The verdict is the runtime's per unit: neither the lock wait (lock contention's), nor waking
  // idle cores (the idle's), nor the probe counts.
  const std::uint64_t runtime = overhead - report.overhead.lock_wait - report.overhead.recording - report.overhead.wake_up;
  const double without_lock = analysis.work ? static_cast<double>(runtime) / static_cast<double>(analysis.work) : 0;
  const double units_per_core = static_cast<double>(trace.units.size()) / std::max<std::uint32_t>(trace.core_count, 1);
  report.unit_size_verdict = without_lock > kTooSmall ? "too small" : units_per_core < kTooBigUnitsPerCore ? "too big" : "fine";

  // Critical path: how short the run could be on unlimited cores, and what it is made of.
  const CriticalPath& path = analysis.path;
  report.critical_path_work = path.work;
  report.critical_path_cycles = path.cycles;
  report.critical_path_units = path.nodes.size();
  report.critical_path_share = analysis.makespan ? static_cast<double>(path.work) / static_cast<double>(analysis.makespan) : 0;
  report.parallelism = path.parallelism;
  report.critical_path_arcs = path.arcs_by_kind;

  // The rules claim lost time in their order; their hints are ranked by what they claimed.
  report::RuleOutput out;
  const auto all = rules();
  for (std::uint32_t i = 0; i < all.size(); ++i) {
    report::Ledger ledger(analysis, i);
    all[i]->run(analysis, ledger, out);
  }
  const auto by_loss = [](const Hint& a, const Hint& b) { return a.lost > b.lost; };
  std::stable_sort(out.hints.begin(), out.hints.end(), by_loss);
  std::stable_sort(out.minor.begin(), out.minor.end(), by_loss);
  report.hints = std::move(out.hints);
  report.minor_hints = std::move(out.minor);
  report.notes = std::move(out.notes);
  report.warnings = std::move(out.warnings);
  const std::string left_out = detail::integrity_note(trace, "integrity");
  if (!left_out.empty()) report.warnings.insert(report.warnings.begin(), left_out + ".");
  add_merged_run_notes(trace, report);
  for (const Hint& hint : report.hints) report.lost.explained += hint.lost;
  return report;
}

void print_report(std::ostream& out, const trace::Trace& trace, const Report& report) {
  const auto ms = [&](std::uint64_t ticks) { return fixed(static_cast<double>(ticks) * 1e3 / trace.clock_hz, 3) + " ms"; };
  const auto pct = [&](std::uint64_t ticks) {
    return fixed(report.makespan ? 100.0 * static_cast<double>(ticks) / static_cast<double>(report.makespan) : 0) + "%";
  };
  // What qualifies every figure below comes before them.
  for (const std::string& warning : report.warnings) out << warning << "\n\n";
  auto cmd = trace.metadata.find("command_line");
  out << "run:       " << (cmd == trace.metadata.end() ? "?" : cmd->second) << '\n';
  // A run cut short or interrupted is analysed as far as it got; the reader must know that.
  if (!trace.complete) out << "partial:   " << detail::integrity_note(trace, "cut") << '\n';
  if (!trace.interrupted.empty()) out << "interrupted: " << trace.interruption() << '\n';
  out << "makespan:  " << ms(report.makespan) << " on " << detail::plural(trace.core_count, "core") << ", "
      << detail::plural(trace.units.size(), "unit") << "\n\n"
      << "per core:  work / overhead / idle (of the makespan)\n";
  for (std::size_t k = 0; k < report.summary.cores.size(); ++k) {
    const CoreTime& c = report.summary.cores[k];
    out << "  core " << k << ": " << pct(c.work) << " / " << pct(c.overhead())
        << " / " << pct(c.idle) << "  (" << detail::plural(c.units, "unit")
        << (c.os_taken ? ", and the OS took " + pct(c.os_taken) : std::string()) << ")\n";
  }
  const OverheadByKind& o = report.overhead;
  out << "\noverhead:  " << fixed(report.overhead_per_work * 100) << "% of work; unit size: " << report.unit_size_verdict << '\n'
      << "  by kind: assigner + switch " << ms(o.decision) << ", communication " << ms(o.communication) << ", lock wait "
      << ms(o.lock_wait) << ", constraint update " << ms(o.constraint_update) << ", create " << ms(o.create)
      << ", waking cores " << ms(o.wake_up) << ", recording " << ms(o.recording)
      << (o.estimated != 0 ? ", runtime work (estimated) " + ms(o.estimated) : std::string()) << '\n'
      << "unit sizes (work, ticks): ";
  for (std::size_t k = 0; k < report.unit_size_histogram.size(); ++k) {
    if (report.unit_size_histogram[k]) out << "2^" << k << ":" << report.unit_size_histogram[k] << ' ';
  }
  out << "\n\ncritical path: " << ms(report.critical_path_work) << " of work (" << pct(report.critical_path_work)
      << " of the makespan), " << ms(report.critical_path_cycles) << " with overhead, " << detail::plural(report.critical_path_units, "unit")
      << "; parallelism " << fixed(report.parallelism, 2) << " (total work / critical-path work)\n"
      << "  its arcs:";
  if (report.critical_path_arcs.empty()) out << " none";
  for (const auto& [kind, count] : report.critical_path_arcs) out << ' ' << kind << ": " << count;
  out << "\n\nidle time by cause (the constraint whose satisfaction ended it):\n";
  if (report.idle_causes.empty()) out << "  none\n";
  for (const IdleCause& cause : report.idle_causes) {
    out << "  " << ms(cause.ticks) << " in " << detail::plural(cause.periods, "period") << " on " << detail::core_set(cause.cores) << ": "
        << cause.construct << (cause.site.empty() ? "" : " at " + cause.site) << '\n';
  }
  const LostTime& lost = report.lost;
  const auto of_lost = [&](std::uint64_t ticks) {
    return fixed(lost.total ? 100.0 * static_cast<double>(ticks) / static_cast<double>(lost.total) : 0) + "%";
  };
  out << "\nlost core time: " << ms(lost.total) << " of " << ms(lost.core_time) << " ("
      << fixed(lost.core_time ? 100.0 * static_cast<double>(lost.total) / static_cast<double>(lost.core_time) : 0) << "%):";
  for (const auto& [kind, ticks] : lost.by_kind) out << ' ' << kind << ' ' << ms(ticks) << ';';
  out << "\n  the hints explain " << ms(lost.explained) << " (" << of_lost(lost.explained) << "), unexplained "
      << ms(lost.total - lost.explained) << " (" << of_lost(lost.total - lost.explained) << ")\n";
  for (const std::string& note : report.notes) out << "\nnote: " << note << '\n';
  out << "\nhints (most lost core time first; no tick is in two hints):\n";
  if (report.hints.empty()) out << "  none\n";
  const auto print_hint = [&](const Hint& hint) {
    out << "  [" << hint.rule << "] " << hint.message << (hint.site.empty() ? "" : " (call site " + hint.site + ")")
        << "; lost " << ms(hint.lost) << " of core time\n";
  };
  for (const Hint& hint : report.hints) print_hint(hint);
  if (!report.minor_hints.empty()) {
    out << "\nbelow the line (each under a few per cent of the core time, not worth tuning):\n";
    for (const Hint& hint : report.minor_hints) print_hint(hint);
  }
}

void print_report_json(std::ostream& out, const trace::Trace& trace, const Report& report) {
  using Json = nlohmann::ordered_json;
  // Seconds to the nanosecond; a trace without a clock rate (cut after its header) gives null.
  const auto seconds = [&](std::uint64_t ticks) { return detail::rounded(static_cast<double>(ticks) / trace.clock_hz, 9); };
  const auto sorted = [](std::vector<std::uint32_t> cores) {
    std::sort(cores.begin(), cores.end());
    return cores;
  };
  Json json;
  json["makespan_s"] = seconds(report.makespan);
  json["cores"] = trace.core_count;
  json["units"] = trace.units.size();
  json["complete"] = trace.complete;
  json["interrupted"] = trace.interrupted.empty() ? Json(nullptr) : Json(trace.interrupted);
  Json& per_core = json["per_core"] = Json::array();
  for (std::size_t k = 0; k < report.summary.cores.size(); ++k) {
    const CoreTime& c = report.summary.cores[k];
    per_core.push_back(Json{{"core", k}, {"work_s", seconds(c.work)}, {"overhead_s", seconds(c.overhead())}, {"idle_s", seconds(c.idle)}});
  }
  const OverheadByKind& o = report.overhead;
  json["overhead_per_work"] = detail::rounded(report.overhead_per_work, 6);
  json["overhead_s"] = Json{{"decision", seconds(o.decision)},
                            {"communication", seconds(o.communication)},
                            {"lock_wait", seconds(o.lock_wait)},
                            {"constraint_update", seconds(o.constraint_update)},
                            {"create", seconds(o.create)},
                            {"wake_up", seconds(o.wake_up)},
                            {"recording", seconds(o.recording)}};
  // Only a trace that books estimated runtime work (an OpenMP run given libomp's cost per task).
  if (o.estimated != 0) json["overhead_s"]["estimated"] = seconds(o.estimated);
  json["unit_size"] = report.unit_size_verdict;
  Json arcs = Json::object();
  for (const auto& [kind, count] : report.critical_path_arcs) arcs[kind] = count;
  json["critical_path"] = Json{{"work_s", seconds(report.critical_path_work)},
                               {"cycles_s", seconds(report.critical_path_cycles)},
                               {"units", report.critical_path_units},
                               {"share_of_makespan", detail::rounded(report.critical_path_share, 6)},
                               {"parallelism", detail::rounded(report.parallelism, 6)},
                               {"arcs", arcs}};
  Json& causes = json["idle_causes"] = Json::array();
  for (const IdleCause& c : report.idle_causes) {
    causes.push_back(Json{{"construct", c.construct}, {"site", c.site}, {"idle_s", seconds(c.ticks)}, {"periods", c.periods}, {"cores", sorted(c.cores)}});
  }
  const auto hints_json = [&](const std::vector<Hint>& hints) {
    Json list = Json::array();
    for (const Hint& h : hints) {
      list.push_back(Json{{"rule", h.rule},
                          {"message", h.message},
                          {"cores", sorted(h.cores)},
                          {"begin_s", seconds(h.begin)},
                          {"end_s", seconds(h.end)},
                          {"site", h.site},
                          {"units", h.units},
                          {"construct", h.construct},
                          {"lost_core_s", seconds(h.lost)}});
    }
    return list;
  };
  Json by_kind = Json::object();
  for (const auto& [kind, ticks] : report.lost.by_kind) by_kind[kind] = seconds(ticks);
  json["lost"] = Json{{"core_s", seconds(report.lost.core_time)},
                      {"work_s", seconds(report.lost.work)},
                      {"lost_s", seconds(report.lost.total)},
                      {"explained_s", seconds(report.lost.explained)},
                      {"by_kind", by_kind}};
  json["warnings"] = report.warnings;
  json["notes"] = report.notes;
  json["hints"] = hints_json(report.hints);
  json["minor_hints"] = hints_json(report.minor_hints);
  out << detail::dump_json(std::move(json)) << '\n';
}

}  // namespace moirai::visualize

// Chrome Trace Event JSON for Perfetto (docs/export.md): process 1 has a track per core with a
// slice per unit and its life-line segments nested in it, process 2 a track per VP with its
// units' work. Flow events draw every constraint (the SCG's lines) between unit slices, counter
// events each core's counters, instant events the user events. Written one core after another,
// each track in time order. (The default Perfetto export is protobuf: export_perfetto_proto.cpp.)
#include "moirai/visualize/export/export.h"

#include "analyses/integrity.h"
#include "export/export_common.h"
#include "output/text_format.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace moirai::visualize {

namespace {

constexpr int kCoresPid = 1;
constexpr int kVpsPid = 2;

class PerfettoWriter {
 public:
  PerfettoWriter(const detail::ExportModel& model, detail::OutFile& out) : model_(model), trace_(model.trace), out_(out) {
    for (const std::string& counter : trace_.counters) counter_names_.push_back(detail::json_string(counter));
  }

  void write() {
    out_ << "{\"displayTimeUnit\":\"ns\",\"otherData\":{";
    bool first = true;
    for (const auto& [key, value] : trace_.metadata) {
      out_ << (first ? "" : ",") << detail::json_string(key) << ':' << detail::json_string(value);
      first = false;
    }
    for (const auto& [name, text] : detail::integrity_notes(trace_)) {
      out_ << (first ? "" : ",") << detail::json_string(name) << ':' << detail::json_string(text);
      first = false;
    }
    out_ << "},\"traceEvents\":[\n";
    names();
    for (std::uint32_t core = 0; core < trace_.core_count; ++core) write_core(core);
    for (std::uint32_t n = 0; n < model_.graph.nodes.size(); ++n) write_vp_slice(n);
    // Each flow's start, then its end: DevTools pairs them in the order it reads them.
    for (std::uint32_t a = 0; a < model_.arcs.size(); ++a) {
      const UnitNode &from = model_.graph.nodes[model_.arcs[a].from], &to = model_.graph.nodes[model_.arcs[a].to];
      flow('s', a, from.core, from.assign);
      flow('f', a, to.core, to.assign);
    }
    out_ << "{\"ph\":\"M\",\"pid\":" << "2,\"name\":\"process_sort_index\",\"args\":{\"sort_index\":2}}\n]}\n";
  }

 private:
  void event_head(char phase, int pid, std::uint64_t tid, std::int64_t ts) {
    out_ << "{\"ph\":\"" << phase << "\",\"pid\":";
    out_.number(pid) << ",\"tid\":";
    out_.number(static_cast<std::int64_t>(tid)) << ",\"ts\":";
    out_.micros(ts);
  }

  // open_slice writes a complete event up to its args; `name` is JSON-quoted.
  void open_slice(int pid, std::uint64_t tid, std::uint64_t begin, std::uint64_t end, std::string_view name,
                  std::string_view category) {
    event_head('X', pid, tid, model_.ns(begin));
    out_ << ",\"dur\":";
    duration(pid, model_.ns(begin), model_.ns(end));
    out_ << ",\"name\":" << name << ",\"cat\":\"" << category << '"';
  }
  // duration writes a slice's length in microseconds such that its ts plus it, added in doubles
  // as Chrome DevTools adds them, never passes the ts its end has as a number, nor the end of an
  // enclosing slice (on a core's track) that ends at the same time: with three decimals a
  // rounding bit can put a slice's end past its parent's end or its next sibling's start, and
  // DevTools then drops a slice from its tree. Where three decimals add up, they are written.
  void duration(int pid, std::int64_t begin_ns, std::int64_t end_ns) {
    if (end_ns < begin_ns) {  // a damaged trace: written as it is
      out_.micros(end_ns - begin_ns);
      return;
    }
    const double begin = static_cast<double>(begin_ns) / 1000;
    double limit = static_cast<double>(end_ns) / 1000;
    if (pid == kCoresPid) {
      while (!enclosing_.empty() && enclosing_.back().first <= begin_ns) enclosing_.pop_back();
      if (!enclosing_.empty() && enclosing_.back().first == end_ns) limit = std::min(limit, enclosing_.back().second);
    }
    double length = limit - begin;
    for (int step = 0; step < 8 && begin + length > limit; ++step) length = std::nextafter(length, 0.0);
    if (pid == kCoresPid) enclosing_.emplace_back(end_ns, begin + length);
    if (length == static_cast<double>(end_ns - begin_ns) / 1000) {
      out_.micros(end_ns - begin_ns);
      return;
    }
    char text[32];
    const auto written = std::to_chars(text, text + sizeof text, length);
    out_ << std::string_view(text, static_cast<std::size_t>(written.ptr - text));
  }
  // slice writes a complete event without args.
  void slice(int pid, std::uint64_t tid, std::uint64_t begin, std::uint64_t end, std::string_view name,
             std::string_view category) {
    open_slice(pid, tid, begin, end, name, category);
    out_ << "},\n";
  }

  void names() {
    out_ << "{\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\",\"args\":{\"name\":\"cores\"}},\n"
            "{\"ph\":\"M\",\"pid\":1,\"name\":\"process_sort_index\",\"args\":{\"sort_index\":1}},\n"
            "{\"ph\":\"M\",\"pid\":2,\"name\":\"process_name\",\"args\":{\"name\":\"VPs\"}},\n";
    for (std::uint32_t core = 0; core < trace_.core_count; ++core) {
      out_ << "{\"ph\":\"M\",\"pid\":1,\"tid\":";
      out_.number(core) << ",\"name\":\"thread_name\",\"args\":{\"name\":\"core " << std::to_string(core) << "\"}},\n";
    }
    for (const trace::Trace::Vp& vp : trace_.vps) {
      out_ << "{\"ph\":\"M\",\"pid\":2,\"tid\":";
      out_.number(static_cast<std::int64_t>(vp.id))
          << ",\"name\":\"thread_name\",\"args\":{\"name\":" << vp_label(vp.id) << "}},\n";
    }
  }

  const std::string& json_text(std::unordered_map<std::uint64_t, std::string>& cache, std::uint64_t key, auto make) {
    auto [it, added] = cache.try_emplace(key);
    if (added) it->second = detail::json_string(make());
    return it->second;
  }
  // vp_label is a VP's track and slice name, "name #id", JSON-quoted (cached per VP).
  const std::string& vp_label(std::uint64_t vp) {
    return json_text(vp_labels_, vp, [&] { return model_.vp_name(vp) + " #" + std::to_string(vp); });
  }

  // ending is a unit's ending construct and call site, JSON-quoted (cached per pair).
  const std::string& ending(const trace::UnitRecord& r) {
    return json_text(endings_, (std::uint64_t{r.ended_by} << 32) | r.site, [&] { return model_.ending(r); });
  }

  // flow writes one end of a constraint's flow, bound to the unit slice that begins at `tick` on
  // `core`: the freeing unit's for the start ('s'), the freed unit's for the end ('f'). The
  // Trace Event Format binds a start to the slice enclosing it and an end with "bp":"e" to its
  // enclosing slice too; Chrome DevTools binds a flow event to the slice with the same ts, pid,
  // tid and cat. Both hold at the unit slice's own start, with the unit's category.
  void flow(char phase, std::uint32_t arc_index, std::uint32_t core, std::uint64_t tick) {
    const detail::ExportModel::Arc& arc = model_.arcs[arc_index];
    event_head(phase, kCoresPid, core, model_.ns(tick));
    out_ << ",\"id\":";
    out_.number(arc_index + 1) << ",\"name\":"
                               << json_text(constructs_, trace_.constraints[arc.constraint].construct,
                                            [&] { return trace_.construct_name(trace_.constraints[arc.constraint].construct); })
                               << ",\"cat\":\"unit\"";
    // A message (the trace's message_constructs) carries its number, as the SQLite messages table.
    if (arc.message) {
      out_ << ",\"args\":{\"message\":";
      const std::uint64_t match = trace_.constraints[arc.constraint].match;
      out_.number(static_cast<std::int64_t>(match));
      if (const trace::MessageRecord* m = trace_.message(match)) {
        out_ << ",\"bytes\":";
        out_.number(static_cast<std::int64_t>(m->bytes));
      }
      out_ << '}';
    }
    out_ << (phase == 'f' ? ",\"bp\":\"e\"},\n" : "},\n");
  }

  void counters(std::uint32_t core, std::uint64_t tick, const trace::Unit* unit) {
    if (trace_.counters.empty()) return;
    event_head('C', kCoresPid, core, model_.ns(tick));
    out_ << ",\"name\":\"core " << std::to_string(core) << " counters\",\"args\":{";
    for (std::size_t c = 0; c < trace_.counters.size(); ++c) {
      out_ << (c ? "," : "") << counter_names_[c] << ':';
      out_.number(unit != nullptr && c < unit->counters.size() ? static_cast<std::int64_t>(unit->counters[c]) : 0);
    }
    out_ << "}},\n";
  }

  // unit_args writes a unit slice's args: the unit, its VP, the call sites that ended and began
  // it, its counter deltas; straight into the output, as there are millions.
  void unit_args(std::uint32_t node) {
    const trace::Unit& unit = model_.unit(node);
    const trace::UnitRecord& r = unit.record;
    out_ << ",\"args\":{\"unit\":";
    out_.number(static_cast<std::int64_t>(r.unit)) << ",\"vp\":";
    out_.number(static_cast<std::int64_t>(r.vp)) << ",\"vp_name\":"
        << json_text(vp_names_, r.vp, [&] { return model_.vp_name(r.vp); }) << ",\"ended_by\":" << ending(r);
    const std::uint32_t previous = model_.previous_of_vp(node);
    if (previous != UINT32_MAX) out_ << ",\"began_by\":" << ending(model_.unit(previous).record);
    if (unit.taken != 0) {  // what the OS took from the work span (trace::Unit::taken)
      out_ << ",\"os_taken_ns\":";
      out_.number(model_.duration_ns(r.begin, r.begin + unit.taken)) << ",\"switches\":";
      out_.number(unit.switches) << ",\"migrations\":";
      out_.number(unit.migrations);
    }
    if (!trace_.counters.empty()) {
      out_ << ",\"counters\":{";
      for (std::size_t c = 0; c < trace_.counters.size() && c < unit.counters.size(); ++c) {
        out_ << (c ? "," : "") << counter_names_[c] << ':';
        out_.number(static_cast<std::int64_t>(unit.counters[c]));
      }
      out_ << '}';
    }
    out_ << "}},\n";
  }

  void write_core(std::uint32_t core) {
    enclosing_.clear();
    // The core's chores, each drawn inside the decision or idle slice it lies in.
    auto chores = model_.chores(core);
    const auto chores_before = [&](std::uint64_t time) {
      chores.before(time, [&](const trace::ChoreRecord& c) {
        open_slice(kCoresPid, core, c.begin, c.end, detail::json_string(std::string(chore_name(static_cast<Chore>(c.chore)))), "overhead");
        out_ << ",\"args\":{\"cores\":";
        out_.number(static_cast<std::int64_t>(c.cores)) << "}},\n";
      });
    };
    const auto on_idle = [&](const trace::Span& span, std::uint32_t) {
      chores_before(span.begin);
      slice(kCoresPid, core, span.begin, span.end, "\"idle\"", "idle");
      chores_before(span.end);
    };
    const auto on_user_event = [&](const trace::Trace::UserEvent& event) {
      event_head('i', kCoresPid, core, model_.ns(event.record.time));
      auto name = trace_.user_event_names.find(event.record.name);
      out_ << ",\"s\":\"t\",\"cat\":\"user event\",\"name\":"
           << detail::json_string(name != trace_.user_event_names.end() ? name->second : "user event " + std::to_string(event.record.name))
           << ",\"args\":{\"phase\":\"" << (event.record.phase == 1 ? "begin" : "end") << "\",\"unit\":" << std::to_string(event.record.unit)
           << "}},\n";
    };
    const auto on_unit = [&](std::uint32_t node, auto& user_events_before) {
      const trace::Unit& unit = model_.unit(node);
      const trace::UnitRecord& r = unit.record;
      chores_before(r.assign);
      open_slice(kCoresPid, core, r.assign, r.handler_end, vp_label(r.vp), "unit");
      unit_args(node);
      slice(kCoresPid, core, r.assign, r.begin, quoted_.decision, "overhead");
      chores_before(r.begin);
      slice(kCoresPid, core, r.begin, r.end, quoted_.work, "work");
      counters(core, r.begin, &unit);
      user_events_before(r.end);
      counters(core, r.end, nullptr);
      slice(kCoresPid, core, r.end, r.handler, quoted_.communication, "overhead");
      if (r.locked > r.end) slice(kCoresPid, core, r.end, r.locked, quoted_.lock_wait, "overhead");
      slice(kCoresPid, core, r.handler, r.handler_end, quoted_.constraint_update, "overhead");
    };
    model_.walk_core(core, on_idle, on_unit, on_user_event);
    chores_before(UINT64_MAX);
  }

  void write_vp_slice(std::uint32_t node) {
    const trace::UnitRecord& r = model_.unit(node).record;
    open_slice(kVpsPid, r.vp, r.begin, r.end, vp_label(r.vp), "work");
    out_ << ",\"args\":{\"unit\":";
    out_.number(static_cast<std::int64_t>(r.unit)) << ",\"core\":";
    out_.number(model_.graph.nodes[node].core) << "}},\n";
  }

  const detail::ExportModel& model_;
  const trace::Trace& trace_;
  detail::OutFile& out_;
  std::unordered_map<std::uint64_t, std::string> vp_labels_, vp_names_, endings_, constructs_;
  // The slices enclosing the one being written on the current core's track: their end in ns and
  // as DevTools computes it (duration()).
  std::vector<std::pair<std::int64_t, double>> enclosing_;
  std::vector<std::string> counter_names_;  // JSON-quoted
  // The segment names, JSON-quoted once.
  struct {
    std::string decision = detail::json_string(detail::kDecisionSegment), work = detail::json_string(detail::kWorkSegment),
                communication = detail::json_string(detail::kCommunicationSegment),
                lock_wait = detail::json_string(detail::kLockWaitSegment),
                constraint_update = detail::json_string(detail::kConstraintUpdateSegment);
  } quoted_;
};

}  // namespace

ExportCounts export_perfetto(const trace::Trace& trace, const std::string& out) {
  detail::OutFile file(out);
  const detail::ExportModel model(trace);
  PerfettoWriter(model, file).write();
  file.close();
  return ExportCounts{model.graph.nodes.size(), model.arcs.size(), model.cross_core, model.unresolved, file.bytes()};
}

}  // namespace moirai::visualize

#include "export/export_common.h"

#include <charconv>
#include <unordered_set>

#include "moirai/visualize/model/run_span.h"

namespace moirai::visualize::detail {

namespace {

constexpr std::uint32_t kNone = UINT32_MAX;

// compressed_rows turns (row, value) pairs into rows of values: begin[r] .. begin[r + 1].
void compressed_rows(std::size_t rows, const std::vector<std::pair<std::uint32_t, std::uint32_t>>& pairs,
                     std::vector<std::uint32_t>& begin, std::vector<std::uint32_t>& values) {
  begin.assign(rows + 1, 0);
  for (const auto& [row, value] : pairs) ++begin[row + 1];
  for (std::size_t r = 0; r < rows; ++r) begin[r + 1] += begin[r];
  values.resize(pairs.size());
  std::vector<std::uint32_t> next(begin.begin(), begin.end() - 1);
  for (const auto& [row, value] : pairs) values[next[row]++] = value;
}

}  // namespace

ExportModel::ExportModel(const trace::Trace& trace_in) : trace(trace_in), graph(build_unit_graph(trace_in)), chores_(trace_in) {
  origin = graph.origin;
  ns_per_tick_ = trace.clock_hz > 0 ? 1e9 / trace.clock_hz : 1;
  const std::size_t count = graph.nodes.size();
  core_nodes_.resize(trace.core_count);
  core_idle_.resize(trace.core_count);
  core_user_events_.resize(trace.core_count);
  for (std::uint32_t n = 0; n < count; ++n) {
    if (graph.nodes[n].core < trace.core_count) core_nodes_[graph.nodes[n].core].push_back(n);
  }
  for (std::uint32_t i = 0; i < trace.idle.size(); ++i) {
    if (trace.idle[i].core < trace.core_count) core_idle_[trace.idle[i].core].push_back(i);
  }
  for (std::uint32_t i = 0; i < trace.user_events.size(); ++i) {
    if (trace.user_events[i].core < trace.core_count) core_user_events_[trace.user_events[i].core].push_back(i);
  }
  // Recorded in time order per core; sorting (stable) only guards hand-made traces.
  for (auto& idle : core_idle_) {
    std::stable_sort(idle.begin(), idle.end(), [&](std::uint32_t a, std::uint32_t b) { return trace.idle[a].begin < trace.idle[b].begin; });
  }
  for (auto& events : core_user_events_) {
    std::stable_sort(events.begin(), events.end(), [&](std::uint32_t a, std::uint32_t b) {
      return trace.user_events[a].record.time < trace.user_events[b].record.time;
    });
  }
  // The same constraints the unit graph keeps: both units known, the freeing one earlier.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> ins, outs;
  for (std::uint32_t c = 0; c < trace.constraints.size(); ++c) {
    const std::uint32_t from = graph.node_of(trace.constraints[c].from), to = graph.node_of(trace.constraints[c].to);
    if (from == kNone || to == kNone || from >= to) {
      ++unresolved;
      continue;
    }
    const bool cross = graph.nodes[from].core != graph.nodes[to].core;
    cross_core += cross;
    const auto arc = static_cast<std::uint32_t>(arcs.size());
    arcs.push_back(Arc{c, from, to, cross});
    outs.emplace_back(from, arc);
    ins.emplace_back(to, arc);
  }
  mark_messages();
  compressed_rows(count, ins, in_begin_, in_arcs_);
  compressed_rows(count, outs, out_begin_, out_arcs_);
  for (const trace::Trace::Vp& vp : trace.vps) vps_[vp.id] = &vp;
}

void ExportModel::mark_messages() {
  if (trace.message_constructs.empty()) return;
  const std::unordered_set<std::uint32_t> kinds(trace.message_constructs.begin(), trace.message_constructs.end());
  std::unordered_map<std::uint64_t, std::uint32_t> by_match;
  for (std::uint32_t a = 0; a < arcs.size(); ++a) {
    const trace::ConstraintRecord& k = trace.constraints[arcs[a].constraint];
    if (!arcs[a].cross_core || k.match == 0 || !kinds.count(k.construct)) continue;
    const auto [at, added] = by_match.try_emplace(k.match, a);
    if (!added && arcs[a].to > arcs[at->second].to) at->second = a;
  }
  for (const auto& [match, a] : by_match) arcs[a].message = true;
  messages = by_match.size();
}

std::uint32_t ExportModel::previous_of_vp(std::uint32_t node) const {
  for (std::uint32_t a = graph.in_begin[node]; a < graph.in_begin[node + 1]; ++a) {
    const UnitArc& arc = graph.arcs[graph.in_arcs[a]];
    if (arc.kind == ArcKind::same_vp) return arc.from;
  }
  return kNone;
}

std::string ExportModel::vp_name(std::uint64_t vp) const {
  auto found = vps_.find(vp);
  return found != vps_.end() && !found->second->name.empty() ? found->second->name : "VP " + std::to_string(vp);
}

std::string ExportModel::ending(const trace::UnitRecord& record) const {
  return trace.construct_name(record.ended_by) + " at " + trace.site_name(record.site);
}

OutFile& OutFile::number(std::int64_t value) {
  char text[24];
  const auto result = std::to_chars(text, text + sizeof text, value);
  return *this << std::string_view(text, static_cast<std::size_t>(result.ptr - text));
}

OutFile& OutFile::micros(std::int64_t ns) {
  if (ns < 0) {
    *this << '-';
    ns = -ns;
  }
  number(ns / 1000);
  const auto fraction = static_cast<int>(ns % 1000);
  const char digits[4] = {'.', static_cast<char>('0' + fraction / 100), static_cast<char>('0' + fraction / 10 % 10),
                          static_cast<char>('0' + fraction % 10)};
  return *this << std::string_view(digits, 4);
}

void OutFile::drain() {
  file_.write(buffer_);
  buffer_.clear();
}

void OutFile::close() {
  drain();
  file_.commit();
}

}  // namespace moirai::visualize::detail

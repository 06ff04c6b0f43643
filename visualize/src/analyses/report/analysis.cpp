#include "analyses/report/analysis.h"

#include <algorithm>

#include "model/chore_index.h"
#include "moirai/visualize/model/run_span.h"
#include "output/text_format.h"

namespace moirai::visualize::report {

const char* loss_kind_name(LossKind kind) {
  switch (kind) {
    case LossKind::idle: return "idle";
    case LossKind::run_start: return "start of the run";
    case LossKind::run_end: return "nothing left to run (end of run)";
    case LossKind::decision: return "assigner + switch";
    case LossKind::communication: return "communication";
    case LossKind::lock_wait: return "lock wait";
    case LossKind::constraint_update: return "constraint update";
    case LossKind::create: return "create";
    case LossKind::os: return "taken by the OS";
    case LossKind::unrecorded: return "not recorded";
    case LossKind::recording: return "recording (the probe)";
    case LossKind::wake_up: return "waking cores";
    case LossKind::estimated: return "runtime work (estimated)";
  }
  return "?";
}

bool per_call(LossKind kind) { return is_overhead(kind) && kind != LossKind::lock_wait && kind != LossKind::wake_up; }

std::uint64_t per_unit_overhead(const std::vector<LossEntry>& entries) {
  std::uint64_t ticks = 0;
  for (const LossEntry& e : entries) {
    if (per_call(e.kind)) ticks += e.ticks;
  }
  return ticks;
}

bool is_overhead(LossKind kind) {
  return kind == LossKind::decision || kind == LossKind::communication || kind == LossKind::lock_wait ||
         kind == LossKind::constraint_update || kind == LossKind::create || kind == LossKind::wake_up ||
         kind == LossKind::estimated;
}

std::string Analysis::site_of(std::uint32_t index) const {
  return index == kNone ? std::string() : trace.site_name(trace.units[index].record.site);
}

std::uint32_t Analysis::freeing_unit(const LossEntry& entry) const {
  if (entry.freed_by == kNone) return kNone;
  auto found = unit_index.find(trace.constraints[entry.freed_by].from);
  return found == unit_index.end() ? kNone : found->second;
}

std::string Analysis::construct_of(const LossEntry& entry) const {
  if (entry.kind != LossKind::idle) return loss_kind_name(entry.kind);
  if (entry.freed_by == kNone) return "no recorded constraint";
  return trace.construct_name(trace.constraints[entry.freed_by].construct);
}

std::uint64_t Analysis::ready_since(std::uint32_t u) const {
  const UnitGraph& g = graph;
  std::uint32_t node = g.node_of(unit(u).record.unit);
  if (node == UINT32_MAX) return unit(u).record.assign;
  for (;;) {
    std::uint64_t ready = 0;
    std::uint32_t previous = UINT32_MAX;  // the VP's unit before, when it was the last to arrive
    for (std::uint32_t k = g.in_begin[node]; k < g.in_begin[node + 1]; ++k) {
      const UnitArc& arc = g.arcs[g.in_arcs[k]];
      if (arc.kind != ArcKind::constraint && arc.kind != ArcKind::same_vp) continue;
      const std::uint64_t at = g.nodes[arc.from].handler_end;
      if (at > ready || (at == ready && arc.kind == ArcKind::constraint)) {
        ready = at;
        previous = arc.kind == ArcKind::same_vp ? arc.from : UINT32_MAX;
      }
    }
    if (previous == UINT32_MAX) return ready == 0 ? g.nodes[node].assign : ready;
    node = previous;
  }
}

bool Analysis::last_of_a_wave(std::uint32_t u) const {
  const trace::Unit& self = unit(u);
  const trace::UnitRecord& r = self.record;
  const std::uint64_t ready = ready_since(u);
  for (std::uint32_t core = 0; core < units_on_core.size(); ++core) {
    if (core == self.core) continue;
    const auto& units = units_on_core[core];
    auto it = std::partition_point(units.begin(), units.end(), [&](std::uint32_t w) { return unit(w).record.handler_end <= ready; });
    for (; it != units.end() && unit(*it).record.assign < r.handler_end; ++it) {
      const trace::UnitRecord& q = unit(*it).record;
      const bool beside = q.begin < r.end && r.begin < q.end;
      if (q.vp != r.vp && q.site == r.site && q.ended_by == r.ended_by && (beside || 2 * unit(*it).work() >= self.work())) return true;
    }
  }
  return false;
}

std::string Analysis::busiest_site() const {
  std::unordered_map<std::uint32_t, std::uint64_t> units_by_site;
  for (const trace::Unit& u : trace.units) ++units_by_site[u.record.site];
  std::uint32_t site = 0;
  std::uint64_t most = 0;
  for (const auto& [s, n] : units_by_site) {
    if (n > most || (n == most && s < site)) most = n, site = s;
  }
  return most ? trace.site_name(site) : std::string();
}

std::string Analysis::ms(std::uint64_t ticks) const {
  return detail::fixed(static_cast<double>(ticks) * 1e3 / trace.clock_hz, 3) + " ms";
}

namespace {

// Interval is a lock wait on one core, from a lock-handoff record.
struct Interval {
  std::uint64_t begin, end;
};

// overlap is the length of [a, b) inside [c, d).
std::uint64_t overlap(std::uint64_t a, std::uint64_t b, std::uint64_t c, std::uint64_t d) {
  const std::uint64_t lo = std::max(a, c), hi = std::min(b, d);
  return hi > lo ? hi - lo : 0;
}

// waits_inside sums the lock waits (sorted, disjoint) inside [begin, end).
std::uint64_t waits_inside(const std::vector<Interval>& waits, std::uint64_t begin, std::uint64_t end) {
  std::uint64_t sum = 0;
  auto it = std::partition_point(waits.begin(), waits.end(), [&](const Interval& w) { return w.end <= begin; });
  for (; it != waits.end() && it->begin < end; ++it) sum += overlap(it->begin, it->end, begin, end);
  return sum;
}

// take_chores books the chores of `core` inside [begin, end) (chore_index.h) in `totals`, a
// wake-up as waking cores, a VP shell as creation, estimated runtime work as its own kind, and
// returns their sum.
std::uint64_t take_chores(const detail::ChoreIndex& chores, std::uint32_t core, std::uint64_t begin, std::uint64_t end,
                          std::uint64_t* totals) {
  const detail::ChoreIndex::Ticks in = chores.inside(core, begin, end);
  totals[static_cast<int>(LossKind::wake_up)] += in.wake;
  totals[static_cast<int>(LossKind::create)] += in.shell;
  totals[static_cast<int>(LossKind::estimated)] += in.estimated;
  return in.total();
}

// unit_record_cost is what recording one unit cost, in ticks, as the trace measured it at its
// start (0 on a simulated machine, whose virtual clock the probe does not advance, and in
// traces that do not state it).
std::uint64_t unit_record_cost(const trace::Trace& trace) {
  auto source = trace.metadata.find("clock_source");
  auto cost = trace.metadata.find("unit_record_cost_ns");
  if (cost == trace.metadata.end() || (source != trace.metadata.end() && source->second == "virtual")) return 0;
  try {
    return static_cast<std::uint64_t>(std::max(0.0, std::stod(cost->second)) * trace.clock_hz / 1e9);
  } catch (const std::exception&) {
    return 0;  // the reader accepts any metadata text; a cost it cannot read counts as unknown
  }
}

// worked is the work of unit `u` inside [begin, end): its work span's part there, less the OS's
// share of it.
std::uint64_t worked(const trace::Unit& u, std::uint64_t begin, std::uint64_t end) {
  const std::uint64_t inside = overlap(u.record.begin, u.record.end, begin, end), length = u.record.end - u.record.begin;
  return inside == length ? u.work() : static_cast<std::uint64_t>(static_cast<long double>(u.work()) * inside / length);
}

}  // namespace

Analysis::HeldBy Analysis::held_by(const LossEntry& entry) const {
  const std::uint32_t freeing = freeing_unit(entry);
  if (entry.kind != LossKind::idle || freeing == kNone) return {};
  std::uint32_t node = graph.node_of(unit(freeing).record.unit);
  if (node == UINT32_MAX) return {};
  // The whole idle span, not the piece of it a rule left: what held the core is a fact of the span.
  const std::uint64_t begin = entry.span != kNone ? trace.idle[entry.span].begin : entry.begin;
  // Up to the release: after it the core itself was slow to run what it was given.
  const std::uint64_t release = std::clamp(trace.constraints[entry.freed_by].time, begin, entry.span != kNone ? trace.idle[entry.span].end : entry.end);
  std::uint64_t busy = 0, from = release;  // `from`: how far back the chain was followed
  for (int hop = 0; hop < kChainHops && from > begin; ++hop) {
    const UnitNode& n = graph.nodes[node];
    busy += worked(unit(n.trace_index), begin, release);
    from = std::max(begin, std::min(from, n.assign));
    if (n.assign <= begin) break;
    // The arrival that made n ready: its latest constraint, or its VP's previous unit.
    std::uint32_t previous = UINT32_MAX;
    std::uint64_t ready = 0;
    for (std::uint32_t k = graph.in_begin[node]; k < graph.in_begin[node + 1]; ++k) {
      const UnitArc& arc = graph.arcs[graph.in_arcs[k]];
      if (arc.kind != ArcKind::constraint && arc.kind != ArcKind::same_vp) continue;
      const std::uint64_t at = graph.nodes[arc.from].handler_end;
      if (previous == UINT32_MAX || at > ready) ready = at, previous = arc.from;
    }
    if (previous == UINT32_MAX) break;
    // Ready before its core took it up: what that core worked on meanwhile held the chain too.
    const std::uint64_t lo = std::max(ready, begin), hi = std::min(n.assign, release);
    if (hi > lo) {
      const auto& units = units_on_core[n.core];
      auto it = std::partition_point(units.begin(), units.end(), [&](std::uint32_t u) { return unit(u).record.end <= lo; });
      for (; it != units.end() && unit(*it).record.begin < hi; ++it) busy += worked(unit(*it), lo, hi);
    }
    from = std::max(begin, std::min(from, ready));
    node = previous;
  }
  return {release - from, std::min(busy, release - from)};
}

namespace {

// index_units fills `a`'s unit index, each core's units (in record order) and, per unit, the
// latest constraint that freed it.
void index_units(Analysis& a, const trace::Trace& trace) {
  a.units_on_core.resize(trace.core_count);
  a.unit_index.reserve(trace.units.size());
  for (std::uint32_t i = 0; i < trace.units.size(); ++i) {
    const trace::Unit& unit = trace.units[i];
    a.unit_index[unit.record.unit] = i;
    if (unit.core < trace.core_count) a.units_on_core[unit.core].push_back(i);
  }
  a.freed_by.reserve(trace.constraints.size());
  for (std::uint32_t i = 0; i < trace.constraints.size(); ++i) {
    const trace::ConstraintRecord& c = trace.constraints[i];
    auto [known, added] = a.freed_by.try_emplace(c.to, i);
    if (!added && trace.constraints[known->second].time < c.time) known->second = i;
  }
}

// lock_waits is each core's lock waits by their begin, from the handoff records: the recorder
// marks only the wait between a unit's end and its handler; a wait before the assigner lies in
// the next decision or idle span.
std::vector<std::vector<Interval>> lock_waits(const trace::Trace& trace) {
  std::vector<std::vector<Interval>> waits(trace.core_count);
  for (const trace::Trace::LockHandoff& h : trace.lock_handoffs) {
    if (h.core < trace.core_count && h.record.acquired > h.record.waited) waits[h.core].push_back({h.record.waited, h.record.acquired});
  }
  for (auto& w : waits) {
    std::sort(w.begin(), w.end(), [](const Interval& x, const Interval& y) { return x.begin < y.begin; });
  }
  return waits;
}

}  // namespace

namespace {

// one_vp_per_core says whether each core of `trace` runs one VP of its own (its home core).
bool one_vp_per_core(const trace::Trace& trace) {
  if (trace.vps.size() != trace.core_count) return false;
  std::vector<bool> taken(trace.core_count, false);
  for (const trace::Trace::Vp& vp : trace.vps) {
    if (vp.home_core >= trace.core_count || taken[vp.home_core]) return false;  // kNoHomeCore too
    taken[vp.home_core] = true;
  }
  return true;
}

}  // namespace

Analysis analyse(const trace::Trace& trace) {
  Analysis a{.trace = trace};
  a.words = vocabulary_of(trace);
  a.own_cores = one_vp_per_core(trace);
  const RunSpan span = run_span(trace);
  a.first = span.first;
  a.makespan = span.length();
  a.core_time = a.makespan * trace.core_count;
  a.core_work.assign(trace.core_count, 0);
  index_units(a, trace);
  if (trace.units.empty() && trace.idle.empty()) return a;
  const std::uint64_t record_cost = unit_record_cost(trace);
  const auto by_assign = [&](std::uint32_t x, std::uint32_t y) { return trace.units[x].record.assign < trace.units[y].record.assign; };
  for (auto& units : a.units_on_core) {
    // A core's units are recorded in time order: check (linear) before sorting (n log n).
    if (!std::is_sorted(units.begin(), units.end(), by_assign)) std::sort(units.begin(), units.end(), by_assign);
  }
  const std::vector<std::vector<Interval>> waits = lock_waits(trace);
  // Chores lie inside decision and idle spans, and are taken out of them.
  const detail::ChoreIndex chores(trace);
  std::vector<std::vector<std::size_t>> idle_on_core(trace.core_count);
  for (std::size_t i = 0; i < trace.idle.size(); ++i) {
    if (trace.idle[i].core < trace.core_count) idle_on_core[trace.idle[i].core].push_back(i);
  }
  for (std::uint32_t core = 0; core < trace.core_count; ++core) {
    std::uint64_t totals[kLossKinds] = {};
    const auto& units = a.units_on_core[core];
    std::uint64_t covered = 0, core_first = UINT64_MAX, core_last = 0;
    for (std::uint32_t index : units) {
      const trace::Unit& unit = trace.units[index];
      const trace::UnitRecord& r = unit.record;
      a.core_work[core] += unit.work();
      a.work += unit.work();
      totals[static_cast<int>(LossKind::os)] += (r.end - r.begin) - unit.work();
      const std::uint64_t before_assigner = waits_inside(waits[core], r.assign, r.begin);
      const std::uint64_t chored = take_chores(chores, core, r.assign, r.begin, totals);
      totals[static_cast<int>(LossKind::decision)] += (r.begin - r.assign) - std::min(before_assigner + chored, r.begin - r.assign);
      // After the unit the record marks the wait ([end, locked)); a trace that did not mark it
      // still has the handoff records.
      const std::uint64_t after_unit = std::max(r.locked - r.end, waits_inside(waits[core], r.end, r.handler));
      totals[static_cast<int>(LossKind::lock_wait)] += before_assigner + after_unit;
      totals[static_cast<int>(LossKind::communication)] += (r.handler - r.end) - std::min(after_unit, r.handler - r.end);
      const bool create = trace.construct_role(r.ended_by) == ConstructRole::create;
      totals[static_cast<int>(create ? LossKind::create : LossKind::constraint_update)] += r.handler_end - r.handler;
      covered += r.handler_end - r.assign;
      core_first = std::min(core_first, r.assign);
      core_last = std::max(core_last, r.handler_end);
    }
    std::sort(idle_on_core[core].begin(), idle_on_core[core].end(),
              [&](std::size_t x, std::size_t y) { return trace.idle[x].begin < trace.idle[y].begin; });
    for (std::size_t i : idle_on_core[core]) {
      const trace::Span& idle = trace.idle[i];
      covered += idle.end - idle.begin;
      core_first = std::min(core_first, idle.begin);
      core_last = std::max(core_last, idle.end);
      const std::uint64_t locked = waits_inside(waits[core], idle.begin, idle.end);
      totals[static_cast<int>(LossKind::lock_wait)] += locked;
      const std::uint64_t chored = std::min(take_chores(chores, core, idle.begin, idle.end, totals), idle.end - idle.begin - locked);
      LossEntry entry{.core = core, .begin = idle.begin, .end = idle.end, .ticks = idle.end - idle.begin - locked - chored,
                      .span = static_cast<std::uint32_t>(i)};
      // The unit that ended the idle span is the next one on the core, freed by its latest constraint.
      const auto next = std::partition_point(units.begin(), units.end(),
                                             [&](std::uint32_t u) { return trace.units[u].record.assign < idle.end; });
      if (next == units.end()) {
        entry.kind = LossKind::run_end;
      } else {
        entry.next_unit = *next;
        // A constraint satisfied before the core went idle did not keep it idle: the unit it ran
        // next was ready all along, and the core (its runtime, or the OS that took its thread)
        // was slow to run it. Such a span is charged to no constraint.
        auto freeing = a.freed_by.find(trace.units[*next].record.unit);
        if (freeing != a.freed_by.end() && trace.constraints[freeing->second].time >= idle.begin) entry.freed_by = freeing->second;
      }
      if (entry.ticks > 0) a.entries.push_back(entry);
    }
    if (core_first == UINT64_MAX) core_first = core_last = span.last;
    if (core_first > span.first) {
      a.entries.push_back(LossEntry{.kind = LossKind::run_start, .core = core, .begin = span.first, .end = core_first,
                                    .ticks = core_first - span.first});
    }
    if (span.last > core_last) {
      a.entries.push_back(LossEntry{.kind = LossKind::run_end, .core = core, .begin = core_last, .end = span.last,
                                    .ticks = span.last - core_last});
    }
    // The probe's readings and the unit record's copy happen between a unit's end and the next
    // one's begin, inside the assigner-and-switch span: the recording is taken out of it.
    const std::uint64_t recording = std::min(units.size() * record_cost, totals[static_cast<int>(LossKind::decision)]);
    totals[static_cast<int>(LossKind::decision)] -= recording;
    totals[static_cast<int>(LossKind::recording)] += recording;
    // Between the first and last record, what neither a unit nor an idle span covers.
    const std::uint64_t inside = core_last - core_first;
    if (inside > covered) totals[static_cast<int>(LossKind::unrecorded)] += inside - covered;
    for (std::size_t kind = 0; kind < kLossKinds; ++kind) {
      if (totals[kind] == 0) continue;
      a.entries.push_back(LossEntry{.kind = static_cast<LossKind>(kind), .core = core, .begin = span.first,
                                    .end = span.last, .ticks = totals[kind]});
    }
  }
  a.graph = build_unit_graph(trace);
  a.path = critical_path(a.graph, trace);
  return a;
}

std::uint64_t Ledger::claim(std::size_t entry) {
  LossEntry& e = analysis_.entries[entry];
  if (e.owner != kNone) return 0;
  e.owner = rule_;
  return e.ticks;
}

std::uint64_t Ledger::claim_kind(LossKind kind, std::vector<std::uint32_t>& cores) {
  std::uint64_t taken = 0;
  for (std::size_t i = 0; i < analysis_.entries.size(); ++i) {
    if (analysis_.entries[i].kind != kind) continue;
    const std::uint64_t got = claim(i);
    taken += got;
    if (got > 0) cores.push_back(analysis_.entries[i].core);
  }
  return taken;
}

std::uint64_t Ledger::claim_within(std::size_t entry, std::uint64_t begin, std::uint64_t end) {
  LossEntry e = analysis_.entries[entry];
  if (e.owner != kNone || is_overhead(e.kind) || e.kind == LossKind::os || e.kind == LossKind::unrecorded) return 0;
  const std::uint64_t lo = std::max(begin, e.begin), hi = std::min(end, e.end);
  if (hi <= lo) return 0;
  // A span's ticks may be less than its length (lock waits inside went to their own entry):
  // each piece keeps its share.
  const auto part = [&](std::uint64_t b, std::uint64_t x) {
    return e.end > e.begin ? static_cast<std::uint64_t>(static_cast<long double>(e.ticks) * (x - b) / (e.end - e.begin)) : 0;
  };
  LossEntry claimed = e;
  claimed.begin = lo;
  claimed.end = hi;
  claimed.ticks = lo == e.begin && hi == e.end ? e.ticks : part(lo, hi);
  claimed.owner = rule_;
  std::uint64_t rest = e.ticks - claimed.ticks;
  analysis_.entries[entry] = claimed;
  if (lo > e.begin) {
    LossEntry before = e;
    before.end = lo;
    before.ticks = hi == e.end ? rest : std::min(rest, part(e.begin, lo));
    rest -= before.ticks;
    analysis_.entries.push_back(before);
  }
  if (hi < e.end) {
    LossEntry after = e;
    after.begin = hi;
    after.ticks = rest;
    analysis_.entries.push_back(after);
  }
  return claimed.ticks;
}

std::uint64_t Ledger::claim_windows(const std::vector<Window>& windows,
                                    const std::function<bool(const LossEntry&, const Window&)>& accept,
                                    std::vector<std::uint64_t>* per_window) {
  std::uint64_t taken = 0;
  if (per_window != nullptr) per_window->assign(windows.size(), 0);
  if (windows.empty()) return 0;
  const std::size_t count = analysis_.entries.size();  // pieces cut off below are outside their window
  for (std::size_t i = 0; i < count; ++i) {
    const LossEntry e = analysis_.entries[i];
    if (e.owner != kNone || is_overhead(e.kind) || e.kind == LossKind::os || e.kind == LossKind::unrecorded) continue;
    auto w = std::partition_point(windows.begin(), windows.end(), [&](const Window& x) { return x.end <= e.begin; });
    std::size_t piece = i;  // the part of the entry not yet looked at: cut pieces go to the back
    for (; w != windows.end() && w->begin < e.end; ++w) {
      if (!accept(e, *w)) continue;
      const std::size_t before = analysis_.entries.size();
      const std::uint64_t got = claim_within(piece, w->begin, w->end);
      taken += got;
      if (per_window != nullptr) (*per_window)[static_cast<std::size_t>(w - windows.begin())] += got;
      // What lies after this window was appended last: continue there.
      if (analysis_.entries.size() > before && analysis_.entries.back().begin >= w->end) piece = analysis_.entries.size() - 1;
      else break;
    }
  }
  return taken;
}

Hint make_hint(const std::string& rule, std::string message, std::vector<std::uint32_t> cores, std::uint64_t begin,
               std::uint64_t end, std::string site, std::uint64_t lost) {
  std::sort(cores.begin(), cores.end());
  cores.erase(std::unique(cores.begin(), cores.end()), cores.end());
  return Hint{rule, std::move(message), std::move(cores), begin, end, std::move(site), {}, {}, lost};
}

}  // namespace moirai::visualize::report

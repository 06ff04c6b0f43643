// The SCG laid out: every block and line placed, before anything is drawn (scg_draw.cpp draws it).
#include "moirai/visualize/views/scg.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

#include "analyses/integrity.h"
#include "model/chore_index.h"
#include "moirai/visualize/model/run_span.h"
#include "moirai/visualize/model/unit_graph.h"
#include "output/construct_views.h"
#include "output/text_format.h"

namespace moirai::visualize {

namespace {

constexpr double kFitHeight = 1600;  // points, when no scale is given
constexpr double kMinBlock = 1.0;    // points: smaller units merge with their neighbours

std::string lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// A miss counter counts cache misses (PAPI_L1_DCM, PAPI_L2_TCM, perf::CACHE-MISSES, ...).
bool is_miss_counter(const std::string& name) {
  const std::string n = lower(name);
  return n.find("_dcm") != std::string::npos || n.find("_tcm") != std::string::npos ||
         n.find("miss") != std::string::npos;
}

bool is_instruction_counter(const std::string& name) {
  const std::string n = lower(name);
  return n == "papi_tot_ins" || n == "perf::instructions" || n == "instructions";
}

// PreviousUnits finds a unit's record by id, and the unit of the same VP before it, whose
// construct began it.
class PreviousUnits {
 public:
  explicit PreviousUnits(const trace::Trace& trace) {
    std::vector<const trace::UnitRecord*> units;
    units.reserve(trace.units.size());
    for (const trace::Unit& unit : trace.units) units.push_back(&unit.record);
    std::sort(units.begin(), units.end(), [](auto* a, auto* b) { return a->vp != b->vp ? a->vp < b->vp : a->begin < b->begin; });
    units_.reserve(units.size());
    for (std::size_t i = 0; i < units.size(); ++i) {
      units_.emplace(units[i]->unit, Entry{units[i], i > 0 && units[i - 1]->vp == units[i]->vp ? units[i - 1] : nullptr});
    }
  }
  // of is the unit of the same VP before `unit` (nullptr for a VP's first unit).
  const trace::UnitRecord* of(const trace::UnitRecord& unit) const { return of(unit.unit); }
  const trace::UnitRecord* of(std::uint64_t unit) const {
    auto found = units_.find(unit);
    return found == units_.end() ? nullptr : found->second.previous;
  }
  // record is the unit's own record (nullptr when the trace has no such unit).
  const trace::UnitRecord* record(std::uint64_t unit) const {
    auto found = units_.find(unit);
    return found == units_.end() ? nullptr : found->second.self;
  }

 private:
  struct Entry {
    const trace::UnitRecord* self;
    const trace::UnitRecord* previous;
  };
  std::unordered_map<std::uint64_t, Entry> units_;
};

// never_waited: the constraint was recorded by the freed VP's own call, which came after the
// freeing unit had finished, so that call found it satisfied and nothing made the VP wait (a VP
// reaching a singleton that had already completed). The SCG draws no line for it. Matched pairs
// (rendezvous, typed sends) keep both crossing lines, as the paper draws them.
bool never_waited(const trace::ConstraintRecord& c, const PreviousUnits& units) {
  if (c.match != 0) return false;
  const trace::UnitRecord* freeing = units.record(c.from);
  const trace::UnitRecord* asked = units.of(c.to);  // the freed VP's call that the freed unit follows
  return freeing != nullptr && asked != nullptr && freeing->handler_end <= asked->end && c.time >= asked->end;
}

}  // namespace

double ScgLayout::x_of(std::uint32_t core) const {
  const auto at = std::find(cores.begin(), cores.end(), core) - cores.begin();
  // One more gap before the first column of each node after the first.
  std::size_t node_gaps = 0;
  for (std::size_t c = 1; c <= static_cast<std::size_t>(at) && c < nodes.size(); ++c) node_gaps += nodes[c] != nodes[c - 1];
  return static_cast<double>(at) * (column_width + column_gap) + static_cast<double>(node_gaps) * column_gap;
}

double fit_cycles_per_point(const trace::Trace& trace) {
  return std::max(1.0, static_cast<double>(run_span(trace).length()) / kFitHeight);
}

namespace {

// add_critical_path rims the blocks of the critical path's units and joins them in order, each
// line from the moment the earlier unit called the runtime to the start of the later one.
template <class YOf, class BlockOf>
void add_critical_path(ScgLayout& layout, const trace::Trace& trace, const PreviousUnits& units, YOf y_of, BlockOf block_of) {
  const UnitGraph graph = build_unit_graph(trace);
  const CriticalPath path = critical_path(graph, trace);
  layout.critical_units = path.nodes.size();
  layout.critical_work = path.work;
  constexpr std::size_t kNoBlock = SIZE_MAX;
  std::size_t previous = kNoBlock;  // the block of the path's previous unit
  std::uint64_t previous_unit = 0;
  for (std::uint32_t n : path.nodes) {
    const std::uint64_t unit = graph.nodes[n].unit;
    const auto drawn = block_of(unit);
    if (drawn) layout.blocks[drawn->first].critical = true;
    if (drawn && previous != kNoBlock && drawn->first != previous) {
      const ScgBlock& tail = layout.blocks[previous];
      const trace::UnitRecord* from = units.record(previous_unit);
      const double from_y = std::clamp(from ? y_of(from->end) : tail.y + tail.height, tail.y, tail.y + tail.height);
      layout.arcs.push_back(ScgArc{previous, drawn->first, kCriticalPathArc, from_y, drawn->second});
    }
    previous = drawn ? drawn->first : kNoBlock;
    previous_unit = unit;
  }
}

}  // namespace

namespace {

// start_layout checks the options against the trace and sets the columns and the title.
ScgLayout start_layout(const trace::Trace& trace, const ScgOptions& options) {
  if (options.cycles_per_point < 0) throw std::invalid_argument("the scale must be positive");
  if (options.miss_min && options.miss_max && !(*options.miss_min < *options.miss_max)) {
    throw std::invalid_argument("the miss colour range is empty: its minimum must be below its maximum");
  }
  ScgLayout layout;
  layout.overhead_detail = options.overhead_detail;
  layout.cores = options.cores;
  if (layout.cores.empty()) {
    for (std::uint32_t k = 0; k < trace.core_count; ++k) layout.cores.push_back(k);
  }
  std::vector<std::uint32_t> missing, present;
  for (std::uint32_t core : layout.cores) {
    if (core >= trace.core_count) missing.push_back(core);
  }
  if (!missing.empty()) {
    for (std::uint32_t core = 0; core < trace.core_count; ++core) present.push_back(core);
    throw std::invalid_argument(detail::core_set(missing) + (missing.size() == 1 ? " does" : " do") +
                                " not exist: the trace has " + detail::core_set(present));
  }
  if (!trace.core_nodes.empty()) {
    // The cores of one node side by side, nodes in the order their first core comes.
    std::map<std::string, std::size_t> order;
    for (std::uint32_t core : layout.cores) order.try_emplace(trace.core_nodes[core], order.size());
    std::stable_sort(layout.cores.begin(), layout.cores.end(), [&](std::uint32_t a, std::uint32_t b) {
      return order[trace.core_nodes[a]] < order[trace.core_nodes[b]];
    });
    for (std::uint32_t core : layout.cores) layout.nodes.push_back(trace.core_nodes[core]);
  }
  // Columns narrow as cores grow, so that 40 cores read like the paper's figures (tall, narrow).
  layout.column_width = std::clamp(576.0 / static_cast<double>(std::max<std::size_t>(layout.cores.size(), 1)), 12.0, 72.0);
  layout.column_gap = layout.column_width / 2;
  std::set<std::string> known = {kLockHandoffArc, kCoreSuccessionArc, kUserEventArc};
  for (const std::string& name : trace.constructs) known.insert(name);
  for (const std::string& kind : options.arc_kinds) {
    if (!known.count(kind)) {
      std::string list;
      for (const std::string& name : known) list += (list.empty() ? "" : ", ") + name;
      throw std::invalid_argument("no arc kind '" + kind + "' in this trace (kinds: " + list + ")");
    }
  }
  auto cmd = trace.metadata.find("command_line");
  layout.title = "Scheduling Consequence Graph: " + (cmd == trace.metadata.end() ? std::string("?") : cmd->second);
  const std::string left_out = detail::integrity_note(trace, "integrity");
  if (!left_out.empty()) layout.title += "\\n" + left_out;
  return layout;
}

// Window is the drawn stretch of the run, [begin, end) in ticks, and where a tick lies in it.
struct Window {
  std::uint64_t begin = 0, end = 0;
  double cycles_per_point = 1;
  double y_of(std::uint64_t tick) const {
    return static_cast<double>(std::clamp(tick, begin, end) - begin) / cycles_per_point;
  }
};

// set_window checks the zoom and fixes the layout's window and scale.
Window set_window(ScgLayout& layout, const trace::Trace& trace, const ScgOptions& options) {
  const RunSpan span = run_span(trace);
  layout.run_start = span.first;
  const std::uint64_t from = options.from.value_or(0), to = options.to.value_or(span.length());
  if (options.from && options.to && from >= to) {
    throw std::invalid_argument("the window is empty: --from must be before --to");
  }
  if (options.from && from >= span.length() && !trace.units.empty()) {
    throw std::invalid_argument("--from is past the end of the run (" + std::to_string(span.length()) + " ticks long)");
  }
  const std::uint64_t window_begin = span.first + from, window_end = span.first + std::min(to, span.length());
  layout.origin = window_begin;
  layout.makespan = window_end - window_begin;
  layout.cycles_per_point = options.cycles_per_point > 0
                                ? options.cycles_per_point
                                : std::max(1.0, static_cast<double>(layout.makespan) / kFitHeight);
  return Window{window_begin, window_end, layout.cycles_per_point};
}

// MissCounters are the counters behind the work colour: cache misses, per instruction when the
// trace counted instructions, else per work tick.
struct MissCounters {
  std::optional<std::size_t> miss, instructions;

  MissCounters(ScgLayout& layout, const trace::Trace& trace) {
    for (std::size_t i = 0; i < trace.counters.size(); ++i) {
      if (!miss && is_miss_counter(trace.counters[i])) miss = i;
      if (!instructions && is_instruction_counter(trace.counters[i])) instructions = i;
    }
    if (miss) {
      layout.miss_counter = trace.counters[*miss];
      layout.miss_denominator = instructions ? "instruction" : "work tick";
    }
  }
  // rate is a unit's misses per instruction (or work tick), -1 when unknown.
  double rate(const trace::Unit& unit) const {
    if (!miss) return -1;
    const double denominator = instructions ? static_cast<double>(unit.counters[*instructions]) : static_cast<double>(unit.work());
    return denominator > 0 ? static_cast<double>(unit.counters[*miss]) / denominator : -1;
  }
};

// Placed is where place_blocks put the units: each drawn unit's block and start, and each core's
// blocks top down.
struct Placed {
  struct Drawn {
    std::size_t block;  // index into layout.blocks
    double y;           // the unit's start
  };
  std::unordered_map<std::uint64_t, Drawn> block_of_unit;  // drawn units by id
  std::vector<std::vector<std::size_t>> column;            // block indexes per core, top down

  // block_at is the block of `core` that holds `y` (or ends less than a point above it).
  std::optional<std::size_t> block_at(const ScgLayout& layout, std::uint32_t core, double y) const {
    if (core >= column.size()) return std::nullopt;
    const auto& blocks = column[core];
    auto after = std::upper_bound(blocks.begin(), blocks.end(), y,
                                  [&](double at, std::size_t b) { return at < layout.blocks[b].y; });
    if (after == blocks.begin()) return std::nullopt;
    const ScgBlock& block = layout.blocks[*(after - 1)];
    if (y > block.y + block.height + kMinBlock) return std::nullopt;
    return *(after - 1);
  }
};

// add_unit adds a unit's ticks to `block`, by life-line segment (decide less the chores in it).
void add_unit(ScgBlock& block, const trace::Unit& unit, std::uint64_t decide, const detail::ChoreIndex::Ticks& chores) {
  const trace::UnitRecord& r = unit.record;
  block.ticks += r.handler_end - r.assign;
  block.work_ticks += r.end - r.begin;
  block.taken_ticks += unit.taken;
  block.decide_ticks += decide;
  block.wake_ticks += chores.wake;
  block.shell_ticks += chores.shell;
  block.estimated_ticks += chores.estimated;
  block.lock_ticks += r.locked - r.end;
  block.communicate_ticks += r.handler - r.locked;
  block.update_ticks += r.handler_end - r.handler;
}

// place_blocks puts a block per unit of the drawn cores inside the window, merging neighbours
// below a point, and sets the work colour's range.
Placed place_blocks(ScgLayout& layout, const trace::Trace& trace, const ScgOptions& options, const Window& window,
                    const PreviousUnits& previous_units) {
  const MissCounters misses(layout, trace);
  std::unordered_map<std::uint32_t, std::vector<const trace::Unit*>> per_core;
  for (const trace::Unit& unit : trace.units) per_core[unit.core].push_back(&unit);
  const detail::ChoreIndex chore_index(trace);  // the chores inside each unit's decision span
  Placed placed;
  placed.block_of_unit.reserve(trace.units.size());
  placed.column.resize(trace.core_count);
  double rate_min = HUGE_VAL, rate_max = -HUGE_VAL;
  for (std::uint32_t core : layout.cores) {
    auto& units = per_core[core];
    std::vector<std::size_t>& column = placed.column[core];
    std::sort(units.begin(), units.end(),
              [](const trace::Unit* a, const trace::Unit* b) { return a->record.assign < b->record.assign; });
    for (const trace::Unit* unit : units) {
      const trace::UnitRecord& r = unit->record;
      if (r.handler_end <= window.begin || r.assign >= window.end) continue;
      const double y = window.y_of(r.assign);
      const double height = window.y_of(r.handler_end) - y;
      const detail::ChoreIndex::Ticks chores = chore_index.inside(core, r.assign, r.begin);
      const std::uint64_t decide = r.begin - r.assign - std::min(chores.total(), r.begin - r.assign);
      if (chores.wake + chores.shell > 0) layout.chores_any = true;
      if (chores.estimated > 0) layout.estimated_any = true;
      const double rate = misses.rate(*unit);
      if (rate >= 0) {
        rate_min = std::min(rate_min, rate);
        rate_max = std::max(rate_max, rate);
      }
      // A unit below a point joins the previous block on its core when that one is small too.
      if (height < kMinBlock && !column.empty()) {
        ScgBlock& block = layout.blocks[column.back()];
        if (block.height < kMinBlock && block.y + block.height + kMinBlock >= y) {
          block.height = y + height - block.y;
          add_unit(block, *unit, decide, chores);
          block.miss_rate = -1;
          ++block.merged;
          layout.merged_any = true;
          placed.block_of_unit[r.unit] = Placed::Drawn{column.back(), y};
          continue;
        }
      }
      ScgBlock block;
      block.core = core;
      block.unit = r.unit;
      block.y = y;
      block.height = height;
      add_unit(block, *unit, decide, chores);
      if (unit->taken > 0) layout.taken_any = true;
      block.created = trace.construct_role(r.ended_by) == ConstructRole::create;
      block.miss_rate = rate;
      block.first = unit;
      block.previous = previous_units.of(r);
      placed.block_of_unit[r.unit] = Placed::Drawn{layout.blocks.size(), y};
      column.push_back(layout.blocks.size());
      layout.blocks.push_back(std::move(block));
    }
  }
  layout.miss_min = options.miss_min.value_or(rate_min == HUGE_VAL ? 0 : rate_min);
  layout.miss_max = options.miss_max.value_or(rate_max == -HUGE_VAL ? 0 : rate_max);
  return placed;
}

// add_constraint_arcs draws each constraint of a chosen kind from the moment the freeing unit's
// handler recorded it to the start of the freed unit.
void add_constraint_arcs(ScgLayout& layout, const trace::Trace& trace, const ScgOptions& options,
                         const std::set<std::string>& kinds, const Placed& placed, const Window& window,
                         const PreviousUnits& previous_units) {
  std::unordered_set<std::uint64_t> merged_arcs;  // (from, to, construct) drawn between merged blocks
  for (const trace::ConstraintRecord& c : trace.constraints) {
    const std::string kind = trace.construct_name(c.construct);
    if (!kinds.count(kind)) continue;
    auto from_block = placed.block_of_unit.find(c.from);
    auto to_block = placed.block_of_unit.find(c.to);
    if (from_block == placed.block_of_unit.end() || to_block == placed.block_of_unit.end()) continue;  // not drawn
    const ScgBlock& tail = layout.blocks[from_block->second.block];
    if (!options.same_core_arcs && tail.core == layout.blocks[to_block->second.block].core) continue;
    if (never_waited(c, previous_units)) continue;
    const std::size_t tail_block = from_block->second.block, head_block = to_block->second.block;
    if (tail.merged > 1 || layout.blocks[head_block].merged > 1) {
      // Between merged blocks one line per kind says it all; a large graph stays light.
      const std::uint64_t key =
          (static_cast<std::uint64_t>(tail_block) << 36) ^ (static_cast<std::uint64_t>(head_block) << 8) ^ c.construct;
      if (!merged_arcs.insert(key).second) continue;
    }
    const double from_y = std::clamp(window.y_of(c.time), tail.y, tail.y + tail.height);
    layout.arcs.push_back(ScgArc{from_block->second.block, to_block->second.block, kind, from_y, to_block->second.y});
  }
}

// add_lock_handoffs draws each runtime-lock handoff from the releasing core's block at the moment
// of the handoff to the waiting core's block.
void add_lock_handoffs(ScgLayout& layout, const trace::Trace& trace, const Placed& placed, const Window& window) {
  for (const auto& handoff : trace.lock_handoffs) {
    const std::uint64_t at = handoff.record.acquired;
    if (at < window.begin || at > window.end) continue;
    const double y = window.y_of(at);
    const auto releasing = placed.block_at(layout, handoff.record.from, y), waiting = placed.block_at(layout, handoff.core, y);
    if (releasing && waiting) layout.arcs.push_back(ScgArc{*releasing, *waiting, kLockHandoffArc, y, y});
  }
}

// add_phases draws each application phase from the point it began to the point it ended, in its
// VP's units.
void add_phases(ScgLayout& layout, const trace::Trace& trace, const Placed& placed, const Window& window) {
  std::unordered_map<std::uint64_t, std::uint64_t> vp_of;  // unit -> VP
  for (const trace::Unit& unit : trace.units) vp_of[unit.record.unit] = unit.record.vp;
  std::map<std::pair<std::uint64_t, std::uint32_t>, std::vector<const trace::UserEventRecord*>> open;  // (VP, name)
  std::vector<const trace::UserEventRecord*> events;
  for (const auto& event : trace.user_events) events.push_back(&event.record);
  std::sort(events.begin(), events.end(), [](auto* a, auto* b) { return a->time < b->time; });
  for (const trace::UserEventRecord* event : events) {
    auto vp = vp_of.find(event->unit);
    if (vp == vp_of.end()) continue;
    auto& stack = open[{vp->second, event->name}];
    if (event->phase == 1) {
      stack.push_back(event);
    } else if (!stack.empty()) {
      const trace::UserEventRecord* begin = stack.back();
      stack.pop_back();
      auto from_block = placed.block_of_unit.find(begin->unit), to_block = placed.block_of_unit.find(event->unit);
      if (from_block == placed.block_of_unit.end() || to_block == placed.block_of_unit.end()) continue;
      layout.arcs.push_back(ScgArc{from_block->second.block, to_block->second.block, kUserEventArc, window.y_of(begin->time),
                                   window.y_of(event->time)});
      auto name = trace.user_event_names.find(event->name);
      layout.arcs.back().note = "phase '" + (name == trace.user_event_names.end() ? std::string("?") : name->second) + "'";
    }
  }
}

// add_core_succession joins consecutive blocks of each drawn core.
void add_core_succession(ScgLayout& layout, const Placed& placed) {
  for (std::uint32_t core : layout.cores) {
    const std::vector<std::size_t>& column = placed.column[core];
    for (std::size_t i = 1; i < column.size(); ++i) {
      const ScgBlock& previous = layout.blocks[column[i - 1]];
      layout.arcs.push_back(ScgArc{column[i - 1], column[i], kCoreSuccessionArc, previous.y + previous.height,
                                   layout.blocks[column[i]].y});
    }
  }
}

}  // namespace

ScgLayout layout_scg(const trace::Trace& trace, const ScgOptions& options) {
  ScgLayout layout = start_layout(trace, options);
  const Window window = set_window(layout, trace, options);
  const PreviousUnits previous_units(trace);
  const Placed placed = place_blocks(layout, trace, options, window, previous_units);
  const std::set<std::string> kinds = options.arc_kinds.empty() ? detail::default_arc_kinds(trace) : options.arc_kinds;
  add_constraint_arcs(layout, trace, options, kinds, placed, window, previous_units);
  if (kinds.count(kLockHandoffArc)) add_lock_handoffs(layout, trace, placed, window);
  if (kinds.count(kUserEventArc) && !trace.user_events.empty()) add_phases(layout, trace, placed, window);
  if (options.critical_path) {
    const auto y_of = [&](std::uint64_t tick) { return window.y_of(tick); };
    add_critical_path(layout, trace, previous_units, y_of, [&](std::uint64_t unit) -> std::optional<std::pair<std::size_t, double>> {
      auto found = placed.block_of_unit.find(unit);
      if (found == placed.block_of_unit.end()) return std::nullopt;
      return std::pair{found->second.block, found->second.y};
    });
  }
  if (kinds.count(kCoreSuccessionArc)) add_core_succession(layout, placed);
  return layout;
}

}  // namespace moirai::visualize

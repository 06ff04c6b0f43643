#include "moirai/visualize/scg.h"

#include "moirai/visualize/pinned_graph.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

#include "moirai/visualize/run_summary.h"
#include "moirai/visualize/unit_graph.h"
#include "chore_index.h"
#include "construct_views.h"
#include "text_format.h"

namespace moirai::visualize {

namespace {

constexpr double kFitHeight = 1600;  // points, when no scale is given
constexpr double kMinBlock = 1.0;    // points: smaller units merge with their neighbours
constexpr double kArrow = 4.0;       // points: arrowhead length

// Overhead kinds in detail mode, in the order they are stacked from the top of a block.
struct OverheadKind {
  const char* name;
  const char* color;
};
constexpr OverheadKind kDecide{"assigner + switch", "grey45"};
constexpr OverheadKind kCommunicate{"state-update communication", "grey65"};
constexpr OverheadKind kLock{"runtime-lock wait", "grey20"};
constexpr OverheadKind kUpdate{"constraint update", "grey85"};
constexpr OverheadKind kCreate{"create meta-unit", "rosybrown"};
// Chores after the lock, inside the decision span: drawn after the assigner, before the work.
constexpr OverheadKind kWake{"waking cores (a chore after the lock)", "deeppink"};
constexpr OverheadKind kShell{"VP shell for the next creation (a chore after the lock)", "rosybrown"};
// Not overhead: time inside a work span when the core's thread did not run. Its own colour, so
// a preempted unit is not read as a long one.
constexpr OverheadKind kTaken{"taken by the OS", "#ffd700c0"};  // gold, the label shows through

std::string fmt(double value, const char* format = "%.2f") {
  char text[64];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

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

// VpNames renders "VP 3 'worker'" without a search per unit.
class VpNames {
 public:
  explicit VpNames(const trace::Trace& trace) {
    for (const auto& vp : trace.vps) names_[vp.id] = &vp;
  }
  std::string operator()(std::uint64_t id) const {
    auto found = names_.find(id);
    return "VP " + std::to_string(id) + (found == names_.end() ? "" : " '" + found->second->name + "'");
  }
  const trace::Trace::Vp* find(std::uint64_t id) const {
    auto found = names_.find(id);
    return found == names_.end() ? nullptr : found->second;
  }

 private:
  std::unordered_map<std::uint64_t, const trace::Trace::Vp*> names_;
};

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

std::string miss_color(double rate, double min, double max) {
  const double t = max > min ? std::clamp((rate - min) / (max - min), 0.0, 1.0) : 0.0;
  char text[8];
  std::snprintf(text, sizeof text, "#%02x00%02x", static_cast<int>(std::lround(255 * t)),
                static_cast<int>(std::lround(255 * (1 - t))));
  return text;
}

double ScgLayout::x_of(std::uint32_t core) const {
  const auto at = std::find(cores.begin(), cores.end(), core) - cores.begin();
  return static_cast<double>(at) * (column_width + column_gap);
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

ScgLayout layout_scg(const trace::Trace& trace, const ScgOptions& options) {
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
  if (!trace.integrity.sound()) layout.title += "\\n" + trace.integrity.summary();

  // The drawn window of the run.
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
  const auto y_of = [&](std::uint64_t tick) {
    return static_cast<double>(std::clamp(tick, window_begin, window_end) - window_begin) / layout.cycles_per_point;
  };

  // The counters behind the work colour.
  std::optional<std::size_t> miss, instructions;
  for (std::size_t i = 0; i < trace.counters.size(); ++i) {
    if (!miss && is_miss_counter(trace.counters[i])) miss = i;
    if (!instructions && is_instruction_counter(trace.counters[i])) instructions = i;
  }
  if (miss) {
    layout.miss_counter = trace.counters[*miss];
    layout.miss_denominator = instructions ? "instruction" : "work tick";
  }

  std::unordered_map<std::uint32_t, std::vector<const trace::Unit*>> per_core;
  for (const trace::Unit& unit : trace.units) per_core[unit.core].push_back(&unit);
  const detail::ChoreIndex chore_index(trace);  // the chores inside each unit's decision span
  const VpNames vps(trace);
  const PreviousUnits previous_units(trace);
  struct Drawn {
    std::size_t block;  // index into layout.blocks
    double y;           // the unit's start
  };
  std::unordered_map<std::uint64_t, Drawn> block_of_unit;  // drawn units by id
  block_of_unit.reserve(trace.units.size());
  std::vector<std::vector<std::size_t>> column(trace.core_count);  // block indexes per core, top down
  double rate_min = HUGE_VAL, rate_max = -HUGE_VAL;
  for (std::uint32_t core : layout.cores) {
    auto& units = per_core[core];
    std::sort(units.begin(), units.end(),
              [](const trace::Unit* a, const trace::Unit* b) { return a->record.assign < b->record.assign; });
    for (const trace::Unit* unit : units) {
      const trace::UnitRecord& r = unit->record;
      if (r.handler_end <= window_begin || r.assign >= window_end) continue;
      const double y = y_of(r.assign);
      const double height = y_of(r.handler_end) - y;
      const detail::ChoreIndex::Ticks chores = chore_index.inside(core, r.assign, r.begin);
      const std::uint64_t decide = r.begin - r.assign - std::min(chores.total(), r.begin - r.assign);
      if (chores.total() > 0) layout.chores_any = true;
      double rate = -1;
      if (miss) {
        const double denominator = instructions ? static_cast<double>(unit->counters[*instructions])
                                                : static_cast<double>(unit->work());
        if (denominator > 0) {
          rate = static_cast<double>(unit->counters[*miss]) / denominator;
          rate_min = std::min(rate_min, rate);
          rate_max = std::max(rate_max, rate);
        }
      }
      // A unit below a point joins the previous block on its core when that one is small too.
      if (height < kMinBlock && !column[core].empty()) {
        ScgBlock& block = layout.blocks[column[core].back()];
        if (block.height < kMinBlock && block.y + block.height + kMinBlock >= y) {
          block.height = y + height - block.y;
          block.ticks += r.handler_end - r.assign;
          block.work_ticks += r.end - r.begin;
          block.taken_ticks += unit->taken;
          block.decide_ticks += decide;
          block.wake_ticks += chores.wake;
          block.shell_ticks += chores.shell;
          block.lock_ticks += r.locked - r.end;
          block.communicate_ticks += r.handler - r.locked;
          block.update_ticks += r.handler_end - r.handler;
          block.miss_rate = -1;
          ++block.merged;
          layout.merged_any = true;
          block_of_unit[r.unit] = Drawn{column[core].back(), y};
          continue;
        }
      }
      ScgBlock block;
      block.core = core;
      block.unit = r.unit;
      block.y = y;
      block.height = height;
      block.ticks = r.handler_end - r.assign;
      block.work_ticks = r.end - r.begin;
      block.taken_ticks = unit->taken;
      if (unit->taken > 0) layout.taken_any = true;
      block.decide_ticks = decide;
      block.wake_ticks = chores.wake;
      block.shell_ticks = chores.shell;
      block.lock_ticks = r.locked - r.end;
      block.communicate_ticks = r.handler - r.locked;
      block.update_ticks = r.handler_end - r.handler;
      block.created = trace.construct_role(r.ended_by) == ConstructRole::create;
      block.miss_rate = rate;
      block.first = unit;
      block.previous = previous_units.of(r);
      block_of_unit[r.unit] = Drawn{layout.blocks.size(), y};
      column[core].push_back(layout.blocks.size());
      layout.blocks.push_back(std::move(block));
    }
  }
  layout.miss_min = options.miss_min.value_or(rate_min == HUGE_VAL ? 0 : rate_min);
  layout.miss_max = options.miss_max.value_or(rate_max == -HUGE_VAL ? 0 : rate_max);

  // Constraint arcs: from the moment the freeing unit's handler recorded the constraint to the
  // start of the freed unit.
  const std::set<std::string> kinds = options.arc_kinds.empty() ? detail::default_arc_kinds(trace) : options.arc_kinds;
  std::unordered_set<std::uint64_t> merged_arcs;  // (from, to, construct) drawn between merged blocks
  for (const trace::ConstraintRecord& c : trace.constraints) {
    const std::string kind = trace.construct_name(c.construct);
    if (!kinds.count(kind)) continue;
    auto from_block = block_of_unit.find(c.from);
    auto to_block = block_of_unit.find(c.to);
    if (from_block == block_of_unit.end() || to_block == block_of_unit.end()) continue;  // not drawn
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
    const double from_y = std::clamp(y_of(c.time), tail.y, tail.y + tail.height);
    layout.arcs.push_back(ScgArc{from_block->second.block, to_block->second.block, kind, from_y, to_block->second.y});
  }
  // Runtime-lock handoffs: the releasing core's block at the moment of the handoff to the
  // waiting core's block.
  const auto block_at = [&](std::uint32_t core, double y) -> std::optional<std::size_t> {
    if (core >= column.size()) return std::nullopt;
    const auto& blocks = column[core];
    auto after = std::upper_bound(blocks.begin(), blocks.end(), y,
                                  [&](double at, std::size_t b) { return at < layout.blocks[b].y; });
    if (after == blocks.begin()) return std::nullopt;
    const ScgBlock& block = layout.blocks[*(after - 1)];
    if (y > block.y + block.height + kMinBlock) return std::nullopt;
    return *(after - 1);
  };
  if (kinds.count(kLockHandoffArc)) {
    for (const auto& handoff : trace.lock_handoffs) {
      const std::uint64_t at = handoff.record.acquired;
      if (at < window_begin || at > window_end) continue;
      const double y = y_of(at);
      const auto releasing = block_at(handoff.record.from, y), waiting = block_at(handoff.core, y);
      if (releasing && waiting) layout.arcs.push_back(ScgArc{*releasing, *waiting, kLockHandoffArc, y, y});
    }
  }
  // Application phases: from the point a phase began to the point it ended, in its VP's units.
  if (kinds.count(kUserEventArc) && !trace.user_events.empty()) {
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
        auto from_block = block_of_unit.find(begin->unit), to_block = block_of_unit.find(event->unit);
        if (from_block == block_of_unit.end() || to_block == block_of_unit.end()) continue;
        layout.arcs.push_back(ScgArc{from_block->second.block, to_block->second.block, kUserEventArc, y_of(begin->time),
                                     y_of(event->time)});
        auto name = trace.user_event_names.find(event->name);
        layout.arcs.back().note = "phase '" + (name == trace.user_event_names.end() ? std::string("?") : name->second) + "'";
      }
    }
  }
  if (options.critical_path) add_critical_path(layout, trace, previous_units, y_of, [&](std::uint64_t unit) -> std::optional<std::pair<std::size_t, double>> {
    auto found = block_of_unit.find(unit);
    if (found == block_of_unit.end()) return std::nullopt;
    return std::pair{found->second.block, found->second.y};
  });
  if (kinds.count(kCoreSuccessionArc)) {
    for (std::uint32_t core : layout.cores) {
      for (std::size_t i = 1; i < column[core].size(); ++i) {
        const ScgBlock& previous = layout.blocks[column[core][i - 1]];
        layout.arcs.push_back(ScgArc{column[core][i - 1], column[core][i], kCoreSuccessionArc,
                                     previous.y + previous.height, layout.blocks[column[core][i]].y});
      }
    }
  }
  return layout;
}

namespace {

// block_tooltip is what hovering a block shows. It is written while drawing, not kept in the
// layout: a large graph would otherwise hold every text twice (ours and Graphviz's copy).
std::string block_tooltip(const ScgLayout& layout, const trace::Trace& trace, const VpNames& vps, const ScgBlock& block) {
  if (block.merged > 1 || block.first == nullptr) {
    return std::to_string(block.merged) + " units merged (each below one point), from unit " + std::to_string(block.unit);
  }
  const trace::UnitRecord& r = block.first->record;
  std::string began;
  if (block.previous != nullptr) {
    began = trace.construct_name(block.previous->ended_by) + " at " + trace.site_name(block.previous->site);
  } else {
    const trace::Trace::Vp* vp = vps.find(r.vp);
    began = "created at " + (vp ? trace.site_name(vp->site) : std::string("?"));
  }
  std::string text = "unit " + std::to_string(r.unit) + ", " + vps(r.vp) + ", core " + std::to_string(block.core) +
                     "\\nbegan after " + began + "\\nended by " + trace.construct_name(r.ended_by) + " at " +
                     trace.site_name(r.site) + "\\ncycles " + std::to_string(block.ticks) + ": work " +
                     std::to_string(block.work_ticks) +
                     (block.taken_ticks ? " (of which taken by the OS " + std::to_string(block.taken_ticks) + ")" : std::string()) +
                     ", decide " + std::to_string(block.decide_ticks) +
                     (block.wake_ticks ? ", waking cores " + std::to_string(block.wake_ticks) : std::string()) +
                     (block.shell_ticks ? ", VP shell " + std::to_string(block.shell_ticks) : std::string()) +
                     ", communicate " + std::to_string(r.handler - r.end) + " (lock " + std::to_string(block.lock_ticks) +
                     "), " + (block.created ? "create " : "update ") + std::to_string(block.update_ticks);
  for (std::size_t i = 0; i < block.first->counters.size() && i < trace.counters.size(); ++i) {
    text += "\\n" + trace.counters[i] + " " + std::to_string(block.first->counters[i]);
  }
  if (block.miss_rate >= 0) text += "\\nmisses per " + layout.miss_denominator + " " + fmt(block.miss_rate, "%.4g");
  return text;
}

}  // namespace

void render_scg(const ScgLayout& layout, const trace::Trace& trace, const std::string& format,
                const std::string& path) {
  scg_graph(layout, trace)->render(format, path);
}

std::unique_ptr<detail::PinnedGraph> scg_graph(const ScgLayout& layout, const trace::Trace& trace) {
  const VpNames vps(trace);
  const detail::ArcColours colour_of(trace);
  auto built = std::make_unique<detail::PinnedGraph>("scg");
  detail::PinnedGraph& pinned = *built;
  Agraph_t* graph = pinned.graph();
  const auto set = detail::set_attribute;
  set(graph, "outputorder", "nodesfirst");  // arcs cross the blocks, as in the paper
  set(graph, "label", layout.title);
  set(graph, "labelloc", "t");
  const bool tsc = trace.metadata.count("clock_source") && trace.metadata.at("clock_source") == "tsc";
  // TSC ticks are cycles; a 1 GHz clock (monotonic, or the simulated machine's default) counts
  // nanoseconds; any other simulated clock counts plain ticks.
  const std::string unit_word = tsc ? "cycles" : trace.clock_hz == 1e9 ? "ns" : "ticks";
  const auto work_color = [&](const ScgBlock& block) {
    if (block.merged > 1) return std::string("lightsteelblue");
    if (layout.miss_counter.empty() || block.miss_rate < 0) return std::string("steelblue");
    return miss_color(block.miss_rate, layout.miss_min, layout.miss_max);
  };
  std::size_t overlays = 0;
  const auto overlay = [&](const ScgBlock& block, const std::string& tooltip, double y, double height, const OverheadKind& kind) {
    if (height < 0.3) return;  // invisible at this scale
    Agnode_t* node = agnode(graph, const_cast<char*>(("o" + std::to_string(overlays++)).c_str()), 1);
    set(node, "shape", "box");
    set(node, "style", "filled");
    set(node, "fixedsize", "true");
    set(node, "penwidth", "0");
    set(node, "label", "");
    set(node, "fillcolor", kind.color);
    set(node, "width", fmt(layout.column_width / 72.0, "%.4f"));
    set(node, "height", fmt(height / 72.0, "%.4f"));
    set(node, "pos", fmt(layout.x_of(block.core) + layout.column_width / 2) + "," + fmt(-(y + height / 2)) + "!");
    set(node, "tooltip", std::string(kind.name) + " (" + tooltip + ")");
    set(node, "class", std::string("scgoverhead ") + kind.name);
  };

  std::vector<Agnode_t*> nodes(layout.blocks.size());
  for (std::size_t i = 0; i < layout.blocks.size(); ++i) {
    const ScgBlock& block = layout.blocks[i];
    Agnode_t* node = agnode(graph, const_cast<char*>(("b" + std::to_string(i)).c_str()), 1);
    nodes[i] = node;
    const double height = std::max(block.height, 0.5);
    const double x = layout.x_of(block.core) + layout.column_width / 2;
    const double y = -(block.y + height / 2);
    set(node, "shape", "box");
    set(node, "style", "filled");
    set(node, "fixedsize", "true");
    set(node, "penwidth", "0.3");
    set(node, "width", fmt(layout.column_width / 72.0, "%.4f"));
    set(node, "height", fmt(height / 72.0, "%.4f"));
    set(node, "pos", fmt(x) + "," + fmt(y) + "!");
    const double overhead = block.ticks ? 1.0 - static_cast<double>(block.work_ticks) / static_cast<double>(block.ticks) : 0;
    if (layout.overhead_detail || block.merged > 1) {
      set(node, "fillcolor", work_color(block));
    } else {
      // Overhead (grey) over work; the two-stop gradient with a weight draws a sharp edge.
      set(node, "fillcolor", "grey70;" + fmt(std::clamp(overhead, 0.001, 0.999), "%.3f") + ":" + work_color(block));
      set(node, "gradientangle", "270");
    }
    set(node, "label", height >= 10 ? (block.merged > 1 ? std::to_string(block.merged) + " units" : std::to_string(block.unit)) : "");
    set(node, "fontsize", fmt(std::min(8.0, layout.column_width / 3), "%.1f"));
    const std::string tooltip = block_tooltip(layout, trace, vps, block);
    set(node, "tooltip", tooltip);
    set(node, "class", block.merged > 1 ? "scgmerged" : "scgunit");
    if (layout.overhead_detail && block.merged == 1 && block.ticks > 0) {
      // The life-line in time order, each segment as tall as its share of the block: decision to
      // animate, the work (the block's own fill shows through), then the lock wait, the rest of
      // the state-update communication and the constraint update.
      const double per_tick = block.height / static_cast<double>(block.ticks);
      double top = block.y;
      for (const auto& [ticks, kind] : {std::pair{block.decide_ticks, &kDecide}, std::pair{block.wake_ticks, &kWake},
                                        std::pair{block.shell_ticks, &kShell}, std::pair<std::uint64_t, const OverheadKind*>{block.work_ticks, nullptr},
                                        std::pair{block.lock_ticks, &kLock}, std::pair{block.communicate_ticks, &kCommunicate},
                                        std::pair{block.update_ticks, block.created ? &kCreate : &kUpdate}}) {
        const double h = static_cast<double>(ticks) * per_tick;
        if (kind != nullptr) overlay(block, tooltip, top, h, *kind);
        top += h;
      }
    }
    if (block.merged == 1 && block.taken_ticks > 0 && block.ticks > 0) {
      // The trace says how much of the work span the OS took, not when: drawn at the span's end.
      const double per_tick = block.height / static_cast<double>(block.ticks);
      const double work_end =
          block.y + static_cast<double>(block.decide_ticks + block.wake_ticks + block.shell_ticks + block.work_ticks) * per_tick;
      const double h = static_cast<double>(block.taken_ticks) * per_tick;
      overlay(block, tooltip, work_end - h, h, kTaken);
    }
    if (block.critical) {
      set(node, "color", "black");  // not red: red lines are creations
      set(node, "penwidth", "2.5");
      set(node, "class", std::string(block.merged > 1 ? "scgmerged" : "scgunit") + " scgcritical");
    }
  }
  // Arcs take the positions the layout gave them (nop2 keeps an edge's pos): from the freeing
  // point on the side of its column that faces the freed block, to the top of the freed block.
  for (const ScgArc& arc : layout.arcs) {
    const ScgBlock& tail = layout.blocks[arc.from];
    const ScgBlock& head = layout.blocks[arc.to];
    const double head_x = layout.x_of(head.core) + layout.column_width / 2;
    double tail_x = layout.x_of(tail.core) + layout.column_width / 2;
    if (head.core != tail.core) tail_x += (layout.x_of(head.core) > layout.x_of(tail.core) ? 0.5 : -0.5) * layout.column_width;
    const double x0 = tail_x, y0 = -arc.from_y, x3 = head_x, y3 = -arc.to_y;
    const double length = std::max(std::hypot(x3 - x0, y3 - y0), kArrow * 2);
    const double xe = x3 - (x3 - x0) * kArrow / length, ye = y3 - (y3 - y0) * kArrow / length;
    Agedge_t* edge = agedge(graph, nodes[arc.from], nodes[arc.to], nullptr, 1);
    set(edge, "pos", "e," + fmt(x3) + "," + fmt(y3) + " " + fmt(x0) + "," + fmt(y0) + " " + fmt(x0 + (xe - x0) / 3) +
                         "," + fmt(y0 + (ye - y0) / 3) + " " + fmt(x0 + 2 * (xe - x0) / 3) + "," +
                         fmt(y0 + 2 * (ye - y0) / 3) + " " + fmt(xe) + "," + fmt(ye));
    set(edge, "color", colour_of(arc.kind));
    set(edge, "arrowsize", "0.4");
    set(edge, "penwidth", arc.kind == kCoreSuccessionArc ? "0.4" : arc.kind == kCriticalPathArc ? "2.2" : "0.8");
    if (arc.kind == kCriticalPathArc) set(edge, "style", "dashed");
    set(edge, "class", "scgarc " + arc.kind);
    set(edge, "tooltip", arc.note.empty() ? arc.kind : arc.kind + ": " + arc.note);
  }
  // Column heads and a time axis, counted from the run's start.
  for (std::uint32_t core : layout.cores) {
    Agnode_t* head = agnode(graph, const_cast<char*>(("core" + std::to_string(core)).c_str()), 1);
    set(head, "shape", "plaintext");
    set(head, "label", (layout.column_width >= 40 ? "core " : "") + std::to_string(core));
    set(head, "fontsize", layout.column_width >= 40 ? "14" : "7");
    set(head, "pos", fmt(layout.x_of(core) + layout.column_width / 2) + ",14!");
  }
  const double height_points = static_cast<double>(layout.makespan) / layout.cycles_per_point;
  const double offset = static_cast<double>(layout.origin - layout.run_start);
  for (int tick = 0; tick <= 10; ++tick) {
    Agnode_t* label = agnode(graph, const_cast<char*>(("t" + std::to_string(tick)).c_str()), 1);
    set(label, "shape", "plaintext");
    set(label, "fontsize", "8");
    const double ticks = offset + height_points * tick / 10 * layout.cycles_per_point;
    set(label, "label", fmt(ticks, "%.3g") + " " + unit_word + " (" + fmt(ticks * 1e3 / trace.clock_hz, "%.4g") + " ms) -");
    set(label, "pos", "-60," + fmt(-height_points * tick / 10) + "!");
  }
  // Legend.
  std::string legend = "<table border='0' cellborder='1' cellspacing='0' cellpadding='3'>"
                       "<tr><td colspan='2'><b>legend</b></td></tr>";
  if (layout.overhead_detail) {
    const auto row = [&](const OverheadKind& kind) {
      legend += "<tr><td bgcolor='" + std::string(kind.color) + "'> </td><td align='left'>overhead: " + kind.name + "</td></tr>";
    };
    for (const OverheadKind& kind : {kDecide, kCommunicate, kLock, kUpdate, kCreate}) row(kind);
    if (layout.chores_any) {
      row(kWake);
      row(kShell);
    }
  } else {
    legend += "<tr><td bgcolor='grey70'> </td><td align='left'>runtime overhead of a unit</td></tr>";
  }
  if (layout.miss_counter.empty()) {
    legend += "<tr><td bgcolor='steelblue'> </td><td align='left'>work (no cache-miss counter in this trace: neutral colour)</td></tr>";
  } else {
    legend += "<tr><td bgcolor='#0000ff:#ff0000'> </td><td align='left'>work, by " + layout.miss_counter + " per " +
              layout.miss_denominator + ": blue " + fmt(layout.miss_min, "%.3g") + " to red " + fmt(layout.miss_max, "%.3g") +
              "</td></tr>";
  }
  std::set<std::string> shown;
  for (const ScgArc& arc : layout.arcs) shown.insert(arc.kind);
  for (const std::string& kind : shown) {
    legend += "<tr><td bgcolor='" + colour_of(kind) + "'> </td><td align='left'>" + kind + "</td></tr>";
  }
  if (layout.critical_units) {
    legend += "<tr><td><b>[ ]</b></td><td align='left'>black rim, bold dashed lines: the critical path, " +
              detail::plural(layout.critical_units, "unit") + " with " + std::to_string(layout.critical_work) + " " + unit_word +
              " of work; the run can be no shorter: split them</td></tr>";
  }
  if (layout.merged_any) legend += "<tr><td bgcolor='lightsteelblue'> </td><td align='left'>units below a point, merged per core</td></tr>";
  if (layout.taken_any) {
    legend += "<tr><td bgcolor='" + std::string(kTaken.color) + "'> </td><td align='left'>" + kTaken.name +
              ": inside a unit's work span its core's thread did not run (how much is recorded, not when: drawn at the span's end)</td></tr>";
  }
  if (layout.origin != layout.run_start || layout.makespan != run_span(trace).length()) {
    legend += "<tr><td colspan='2' align='left'>window: " + fmt(offset, "%.6g") + " to " +
              fmt(offset + static_cast<double>(layout.makespan), "%.6g") + " " + unit_word + "</td></tr>";
  }
  legend += "<tr><td colspan='2' align='left'>scale: " + fmt(layout.cycles_per_point, "%.4g") + " " + unit_word + " per point</td></tr></table>";
  Agnode_t* key = agnode(graph, const_cast<char*>("legend"), 1);
  set(key, "shape", "plaintext");
  pinned.html_label(key, legend);
  // The legend is as wide as its longest line; its left edge sits a gap right of the last column.
  std::size_t longest = 0, line = 0;
  for (std::size_t i = 0; i < legend.size(); ++i) {
    if (legend[i] == '<') {
      const std::size_t close = legend.find('>', i);
      if (legend.compare(i, 4, "<tr>") == 0) line = 0;
      i = close == std::string::npos ? legend.size() : close;
    } else {
      longest = std::max(longest, ++line);
    }
  }
  const double right = layout.cores.empty() ? 0 : layout.x_of(layout.cores.back()) + layout.column_width;
  set(key, "pos", fmt(right + 40 + 3.8 * static_cast<double>(longest)) + ",-100!");

  return built;
}

}  // namespace moirai::visualize

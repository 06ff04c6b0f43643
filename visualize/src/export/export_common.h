// What the exporters (export_otf2.cpp, export_perfetto.cpp, export_sqlite.cpp) share: the trace
// indexed for writing one core after another in time order, times in nanoseconds, and a
// buffered output file that reports every failure.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "model/chore_index.h"
#include "moirai/trace/reader.h"
#include "moirai/visualize/export/export.h"
#include "moirai/visualize/model/unit_graph.h"
#include "moirai/visualize/output/output_file.h"

namespace moirai::visualize::detail {

// Segment names the life-line segments of a unit record (format.h), in the order they happen.
inline constexpr const char* kDecisionSegment = "decision to animate";
inline constexpr const char* kWorkSegment = "work";
inline constexpr const char* kCommunicationSegment = "communication";
inline constexpr const char* kLockWaitSegment = "lock wait";
inline constexpr const char* kConstraintUpdateSegment = "constraint update";

// ExportModel is a trace indexed for export: units as the unit graph's nodes (time order), each
// core's nodes, idle spans and user events in time order, constraints resolved to nodes with
// each node's incoming and outgoing ones.
class ExportModel {
 public:
  explicit ExportModel(const trace::Trace& trace);

  // Arc is a constraint both of whose units the trace has, the freeing one first in time.
  struct Arc {
    std::uint32_t constraint = 0;  // index into Trace::constraints
    std::uint32_t from = 0, to = 0;  // nodes
    bool cross_core = false;
    // message: a message between cores (the trace's message_constructs): the sender's unit to the
    // receiver's, one arc per match number (the one that freed the latest unit: a probe's comes first).
    bool message = false;
  };

  const trace::Trace& trace;
  UnitGraph graph;
  std::vector<Arc> arcs;
  std::uint64_t unresolved = 0;
  std::uint64_t cross_core = 0;
  std::uint64_t messages = 0;  // arcs that are messages
  std::uint64_t origin = 0;  // the run's first clock reading: time 0 of every export

  // ns converts a clock reading to whole nanoseconds since the run's first reading. Rounding one
  // reading at a time keeps segments that share a reading adjacent and nested ones nested.
  std::int64_t ns(std::uint64_t tick) const {
    return static_cast<std::int64_t>(static_cast<double>(static_cast<std::int64_t>(tick - origin)) * ns_per_tick_ + 0.5);
  }
  // duration_ns converts a span of ticks with the same rounding as ns.
  std::int64_t duration_ns(std::uint64_t begin, std::uint64_t end) const { return ns(end) - ns(begin); }
  // record is a node's unit record; unit its trace unit.
  const trace::Unit& unit(std::uint32_t node) const { return trace.units[graph.nodes[node].trace_index]; }
  // in and out are the arcs (indexes into arcs) ending and starting at a node.
  std::pair<const std::uint32_t*, const std::uint32_t*> in(std::uint32_t node) const {
    return {in_arcs_.data() + in_begin_[node], in_arcs_.data() + in_begin_[node + 1]};
  }
  std::pair<const std::uint32_t*, const std::uint32_t*> out(std::uint32_t node) const {
    return {out_arcs_.data() + out_begin_[node], out_arcs_.data() + out_begin_[node + 1]};
  }
  // previous_of_vp is the node of the same VP's unit before this one (whose construct began it),
  // or UINT32_MAX for a VP's first unit.
  std::uint32_t previous_of_vp(std::uint32_t node) const;
  // vp_name is the name a VP was defined with ("VP <id>" when undefined).
  std::string vp_name(std::uint64_t vp) const;
  // ending renders a unit's ending construct and call site: "send_of_type_to at file:line".
  std::string ending(const trace::UnitRecord& record) const;

  // ChoreCursor hands out one core's chores in time order: `before(t, emit)` calls emit(record)
  // for each chore not yet handed out that begins before t. An exporter asks at each segment
  // boundary, so a chore lands inside the decision or idle span it lies in.
  class ChoreCursor {
   public:
    explicit ChoreCursor(const std::vector<const trace::ChoreRecord*>& chores) : chores_(chores) {}
    template <class Emit>
    void before(std::uint64_t time, Emit emit) {
      for (; next_ < chores_.size() && chores_[next_]->begin < time; ++next_) emit(*chores_[next_]);
    }

   private:
    const std::vector<const trace::ChoreRecord*>& chores_;
    std::size_t next_ = 0;
  };
  ChoreCursor chores(std::uint32_t core) const { return ChoreCursor(chores_.on(core)); }

  // has_events is true when a core has a unit, a chore or a user event (idle spans alone show
  // nothing on a timeline).
  bool has_events(std::uint32_t core) const {
    return core < core_nodes_.size() && (!core_nodes_[core].empty() || !core_user_events_[core].empty() || !chores_.on(core).empty());
  }

  // walk_core visits one core's idle spans, units and user events in time order. on_unit gets
  // the node and a function that visits the user events before a clock reading, which it calls
  // where those events belong among its own (user events happen inside a unit's work).
  template <class OnIdle, class OnUnit, class OnUserEvent>
  void walk_core(std::uint32_t core, OnIdle on_idle, OnUnit on_unit, OnUserEvent on_user_event) const {
    const std::vector<std::uint32_t>& nodes = core_nodes_[core];
    const std::vector<std::uint32_t>& idle = core_idle_[core];
    const std::vector<std::uint32_t>& events = core_user_events_[core];
    std::size_t n = 0, i = 0, e = 0;
    const auto before = [&](std::uint64_t tick) {
      for (; e < events.size() && trace.user_events[events[e]].record.time < tick; ++e) on_user_event(trace.user_events[events[e]]);
    };
    while (n < nodes.size() || i < idle.size()) {
      if (n == nodes.size() || (i < idle.size() && trace.idle[idle[i]].begin < graph.nodes[nodes[n]].assign)) {
        before(trace.idle[idle[i]].begin);
        on_idle(trace.idle[idle[i]], idle[i]);
        ++i;
      } else {
        before(graph.nodes[nodes[n]].assign);
        on_unit(nodes[n], before);
        ++n;
      }
    }
    before(UINT64_MAX);
  }

 private:
  // mark_messages sets Arc::message (a trace without message_constructs has none).
  void mark_messages();
  double ns_per_tick_ = 1;
  std::vector<std::vector<std::uint32_t>> core_nodes_, core_idle_, core_user_events_;
  ChoreIndex chores_;
  std::vector<std::uint32_t> in_begin_, in_arcs_, out_begin_, out_arcs_;
  std::unordered_map<std::uint64_t, const trace::Trace::Vp*> vps_;
};

// OutFile is an output file (OutputFile: a temporary renamed into place by close()) written
// through a buffer of 1 MiB; every failure is an ExportError naming the file.
class OutFile {
 public:
  explicit OutFile(const std::string& path) : file_(path) { buffer_.reserve(kBuffer); }

  OutFile& operator<<(std::string_view text) {
    if (buffer_.size() + text.size() > kBuffer) drain();
    buffer_.append(text);
    return *this;
  }
  OutFile& operator<<(char c) {
    if (buffer_.size() + 1 > kBuffer) drain();
    buffer_.push_back(c);
    return *this;
  }
  // number writes an integer in decimal.
  OutFile& number(std::int64_t value);
  // micros writes nanoseconds as microseconds with three decimals (Trace Event JSON's unit).
  OutFile& micros(std::int64_t ns);
  // close writes what is buffered and puts the file in place, throwing when anything failed.
  void close();
  std::uint64_t bytes() const { return file_.bytes() + buffer_.size(); }

 private:
  static constexpr std::size_t kBuffer = 1 << 20;
  void drain();
  OutputFile file_;
  std::string buffer_;
};

}  // namespace moirai::visualize::detail

// The model behind both pictures (paper sections 4 and 5.4): the run as a directed graph with
// units as nodes, and the critical path through the dependencies the program imposes.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "moirai/trace/reader.h"

namespace moirai::visualize {

// ArcKind is the kind of causality an arc stands for (paper section 4.2).
enum class ArcKind : std::uint8_t {
  constraint,    // a unit's construct call freed the other (the program's)
  same_vp,       // a VP's next unit follows its previous one (the base language's control order)
  same_core,     // the next unit on a core followed the previous one there (hardware)
  lock_handoff,  // the runtime lock released on one core let the waiting core go on (runtime)
};

// UnitNode is one unit, weighted by its cycles with work and overhead kept apart.
struct UnitNode {
  std::uint64_t unit = 0;
  std::uint64_t vp = 0;
  std::uint64_t assign = 0, begin = 0, end = 0, handler_end = 0;  // life-line boundaries
  std::uint32_t core = 0;
  std::uint32_t trace_index = 0;  // into Trace::units, for counters and call sites
  std::uint64_t taken = 0;        // ticks the OS took from the work span (trace::Unit::taken)
  std::uint64_t work() const { return end - begin > taken ? end - begin - taken : 0; }
  std::uint64_t overhead() const { return (begin - assign) + (handler_end - end); }
};

// UnitArc is one arc between two nodes (indexes into UnitGraph::nodes).
struct UnitArc {
  std::uint32_t from = 0, to = 0;
  ArcKind kind = ArcKind::constraint;
  std::uint16_t construct = 0;  // constraint arcs: the construct kind that imposed it
  std::uint64_t match = 0;      // constraint arcs: shared by a rendezvous' two crossing arcs
};

// UnitGraph is the SCG as a directed graph: nodes in time order (work begin), which is a
// topological order of the constraint, same-VP and same-core arcs; arcs in flat vectors, the
// incoming arcs of each node reachable without per-node maps.
struct UnitGraph {
  std::vector<UnitNode> nodes;
  std::vector<UnitArc> arcs;
  std::vector<std::uint32_t> in_begin;  // incoming arcs of node n: in_arcs[in_begin[n] .. in_begin[n+1])
  std::vector<std::uint32_t> in_arcs;   // arc indexes, constraint arcs before the others
  std::uint64_t origin = 0, makespan = 0;  // the run's first clock reading and its length
  std::uint64_t unresolved = 0;  // records naming a unit the trace lacks, or going back in time
  std::uint64_t id_base = 0;               // dense ids: the smallest unit id
  std::vector<std::uint32_t> dense_node;   // dense ids: node of unit id_base + i (UINT32_MAX: none)
  std::vector<std::uint64_t> sorted_ids;   // sparse ids: unit ids, ascending
  std::vector<std::uint32_t> node_of_id;   // sparse ids: node of sorted_ids[i]

  // node_of is the node of a unit id, or UINT32_MAX when the trace has no such unit.
  std::uint32_t node_of(std::uint64_t unit) const;
  // index_units fills the id -> node tables from `nodes`.
  void index_units();
  // arc_count counts the arcs of one kind.
  std::size_t arc_count(ArcKind kind) const;
};

// build_unit_graph builds the graph of a trace in O(units log units).
UnitGraph build_unit_graph(const trace::Trace& trace);

// LongestPaths is, for every node, where the heaviest chain of program dependencies
// (constraints and same-VP order) ending just before it starts, and the arc it arrives by.
struct LongestPaths {
  std::vector<std::uint64_t> start;     // sum of the weights of the heaviest chain before the node
  std::vector<std::uint32_t> via;       // arc index into UnitGraph::arcs, UINT32_MAX at a chain's start
};

// longest_paths computes LongestPaths for per-node `weight` (indexed like UnitGraph::nodes).
LongestPaths longest_paths(const UnitGraph& graph, const std::vector<std::uint64_t>& weight);

// CriticalPath is the heaviest chain of program dependencies by work: the run could not be
// shorter than its work on any number of cores.
struct CriticalPath {
  std::vector<std::uint32_t> nodes;  // first to last
  std::vector<std::uint32_t> arcs;   // arcs[i] joins nodes[i] and nodes[i+1]
  std::uint64_t work = 0;            // work on the path
  std::uint64_t cycles = 0;          // work + overhead of the path's units
  std::uint64_t total_work = 0;      // all units' work
  std::uint64_t makespan = 0;
  double parallelism = 0;            // total_work / work
  std::map<std::string, std::uint64_t> arcs_by_kind;  // construct names, and "same VP"
};

// critical_path finds the critical path of a graph built from `trace`.
CriticalPath critical_path(const UnitGraph& graph, const trace::Trace& trace);

}  // namespace moirai::visualize

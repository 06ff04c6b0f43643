// The critical path unit by unit (`moirai report --critical-path`): the units whose work the run
// could not overlap, so the ones to split to make it shorter.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "moirai/trace/reader.h"

namespace moirai::visualize {

// CriticalUnit is one unit of the critical path, with the calls that began and ended it.
struct CriticalUnit {
  std::uint64_t unit = 0, vp = 0;
  std::uint32_t core = 0;
  std::uint64_t work = 0;            // ticks: trace::Unit::work(), without what the OS took
  std::string arrived_by;            // the path's arc into it: a construct, "same VP", or "" (first)
  std::string began_by, began_at;    // construct and call site that began it (or "created" and the VP's site)
  std::string ended_by, ended_at;    // construct and call site that ended it
};

// CriticalPathListing is the critical path of unit_graph.h, first unit to last.
struct CriticalPathListing {
  std::vector<CriticalUnit> units;
  std::uint64_t work = 0;       // the units' work added up: the path's length
  std::uint64_t makespan = 0;   // ticks of the whole run
  double clock_hz = 0;
};

// list_critical_path finds the critical path of `trace` and names its units.
CriticalPathListing list_critical_path(const trace::Trace& trace);
// print_critical_path writes the listing as a table; print_critical_path_json as one JSON object.
void print_critical_path(std::ostream& out, const CriticalPathListing& listing);
void print_critical_path_json(std::ostream& out, const CriticalPathListing& listing);

}  // namespace moirai::visualize

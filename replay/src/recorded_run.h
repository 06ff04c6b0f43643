// The recorded run as replay needs it: each VP's units in order and the constraints between units.
#pragma once

#include <array>
#include <cstdint>
#include <unordered_map>
#include <string>
#include <vector>

#include "moirai/core/ids.h"
#include "moirai/replay/replay.h"
#include "moirai/trace/reader.h"

namespace moirai::replay::detail {

// RecordedUnit is one unit of the recording: what ended it, where, on which core, after how much work.
struct RecordedUnit {
  std::uint64_t id = 0;          // the trace's unit id
  std::uint32_t vp = 0;          // index into RecordedRun::vps
  std::uint32_t core = 0;        // the core it ran on
  ConstructKind ended_by = 0;    // the construct kind of the call that ended it
  CallSite site;                 // that call's site (strings owned by the trace)
  double work_seconds = 0;       // its work span less what the OS took
  double busy_beside = 0;        // how many other cores worked, on average, during its work span
  bool exclusive_body = false;   // an exclusive section's body: the call that ended it left the section
  std::uint32_t constraints = 0; // how many constraints must be satisfied before it may start
  std::uint32_t first_out = 0;   // its constraints on other units: RecordedRun::out[first_out ..
  std::uint32_t out_count = 0;   //   first_out + out_count)
  // The lock domains its handler waited for in the recording (format 3.4), by the language's key.
  std::array<LockDomain, 4> domains{};
  std::uint8_t domain_count = 0;
};

// RecordedConstraint says that a unit's construct call freed unit `to` (an index into units).
struct RecordedConstraint {
  std::uint32_t to = 0;
  ConstructKind construct = 0;
  std::uint64_t match = 0;  // shared by both arcs of one recorded rendezvous (0: none)
  bool dropped = false;     // taken away by a what-if (unchain): it frees nothing
};

// RecordedVp is one VP: its name, the core it was pinned to, its units in the order it ran them.
struct RecordedVp {
  std::string name;
  CoreId pinned = kAnyCore;       // in the recording
  std::uint32_t created_at = 0;   // the call site that created it (trace site id)
  CoreId target_core = kAnyCore;  // the core it is pinned to on the target (pin_vps)
  std::vector<std::uint32_t> units;
  bool at_start = false;  // nothing freed its first unit: it exists from the run's start
};

// RecordedRun is the graph a replay animates. Every constraint and every VP's order points forward
// in the recorded time, so the graph has no cycle.
struct RecordedRun {
  std::vector<RecordedUnit> units;
  std::vector<RecordedConstraint> out;  // grouped by the freeing unit
  std::vector<RecordedVp> vps;
  std::uint32_t seed = 0;               // the VP the run starts with
  double makespan_seconds = 0;          // the recording's
  std::vector<double> handler_seconds;  // by construct kind: its handlers' median (-1: never ran)
  std::vector<std::string> notes;       // what was left out of the recording, and why
  bool exclusive_first = false;         // a ready exclusive body goes ahead of its core's queue
  // names_domains: the recorded language named lock domains (metadata lock_domains=named); the
  // replay then holds each handler's recorded domains (those it waited for) instead of one lock.
  bool names_domains = false;
  std::unordered_map<LockDomain, std::string> domain_names;

  // first_of says whether unit `u` is its VP's first.
  bool first_of(std::uint32_t u) const { return vps[units[u].vp].units.front() == u; }
};

// pin_vps sets each VP's target_core for a machine of `cores` cores under `pinning` (not automatic).
void pin_vps(RecordedRun& run, Pinning pinning, std::size_t cores);

// rebuild reads the run out of `trace`; throws ReplayError when the trace holds no unit.
RecordedRun rebuild(const trace::Trace& trace);

}  // namespace moirai::replay::detail

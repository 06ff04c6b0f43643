// Replay: a recorded run's units and constraints run again on a simulated machine (the what-if).
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "moirai/core/runtime_observer.h"
#include "moirai/proto_runtime/cost_model.h"
#include "moirai/proto_runtime/sim_machine.h"
#include "moirai/trace/reader.h"

namespace moirai::replay {

// Placement is who chooses the core of a unit that was not pinned (a pinned VP keeps its core).
enum class Placement {
  language,   // the policy closest to the trace's language's assigner, as its trace says (SSR: last_core)
  recorded,   // the core the unit ran on in the recording (modulo the target's cores)
  last_core,  // SSR's FIFO assigner: the core the VP last ran on, a new VP round-robin
  any_core,   // one ready queue every core takes from, oldest first (VSs, OpenMP tasks, fork/join)
};

// language_placement is the placement closest to the assigner of the language that recorded
// `trace`, as the trace gives it (what Placement::language means for it).
Placement language_placement(const trace::Trace& trace);

// Pinning is what becomes of a VP the recording pinned to a core.
enum class Pinning {
  automatic,  // keep on a machine of the recorded core count, else spread
  keep,       // the recorded core (modulo the target's cores)
  spread,     // the VPs created at one call site dealt round-robin over the target's cores from the
              // first one's recorded core, as a loop that pins round-robin would on that machine
  free,       // not pinned: the placement decides
};

// parse_pinning reads a --pinning value; throws std::invalid_argument naming the choices.
Pinning parse_pinning(std::string_view text);
// pinning_name spells a pinning as --pinning takes it.
std::string_view pinning_name(Pinning pinning);

// parse_placement reads a --placement value; throws std::invalid_argument naming the choices.
Placement parse_placement(std::string_view text);
// placement_name spells a placement as --placement takes it.
std::string_view placement_name(Placement placement);

// Cause is a cause of lost time a replay can take away (--remove-cause), named as the report's
// rule that finds it: the what-if that checks the loss a hint claims against the gain it buys.
enum class Cause {
  none,
  lock_contention,  // "lock-contention": the runtime lock never makes a core wait, and costs nothing
  unit_size,        // "unit-size": the runtime's own steps (switch, communication, lock, assigner,
                    // handlers, wake-ups) cost nothing, and the lock makes no core wait
  waking_cores,     // "waking-cores": waking an idle core costs nothing
  work_at,          // "work-at:FILE:LINE": the units that end at that call site do no work (a
                    // singleton's body, a serial reduction)
  work_of,          // "work-of:UNIT[,UNIT...]": those units (by the trace's unit ids) do no work (the
                    // upper bound of what splitting them gains)
  split,            // "split:UNIT[,UNIT...]": those units' work shared out evenly over the target's
                    // cores, 1/N of it left where it ran (the cure long-serial and critical-path give)
  share,            // "share:UNIT[,UNIT...]": as split, the rest of each unit's work moved into the
                    // tasks or VPs it created (their first units): a creator's preparation done by
                    // the tasks themselves, the work kept, and no VP pinned, one ready queue
                    // (creator-starvation's cure where cores already share one queue)
  balance,          // "balance:FILE:LINE": the work of the units that end at that call site evened
                    // out over the cores that ran them (a wave that fills every core: idle-tail's cure)
  unchain,          // "unchain:CONSTRUCT": the constraints that construct recorded free nothing: the
                    // units they freed wait only for their VP's previous unit (a dependence removed)
  exclusive_first,  // "exclusive-first": an exclusive section's body, once ready, runs before the
                    // other ready VPs of its core (exclusive-late's cure: the owner not kept waiting)
  placement,        // "placement": no VP pinned, one ready queue every free core takes from (the
                    // recorded placement taken away: cores left unused, a creator crowded)
  even,             // "even:UNIT[,UNIT...]": each of those units' work evened out with that of the
                    // units that waited for it (on each VP its constraints freed, the unit before
                    // the one freed): a late arrival's excess shared with those it kept idle
                    // (idle-cause's cure where the freeing unit was late: a late sender, the last
                    // arrival at a collective)
};

// RemovedCause is a cause and, for work_at and balance, its call site ("file:line"), for unchain
// its construct's name; for work_of, split, share and even, its units.
struct RemovedCause {
  Cause cause = Cause::none;
  std::string site;
  std::vector<std::uint64_t> units;
};

// parse_cause reads a --remove-cause value; throws std::invalid_argument naming the choices.
RemovedCause parse_cause(std::string_view text);
// cause_text spells a removed cause as --remove-cause takes it.
std::string cause_text(const RemovedCause& cause);
// cause_for_rule is the what-if that takes away what the report's rule `rule` blames, its hint
// naming call site `site`, units `units` and the dependence `construct` that binds its chain;
// Cause::none where replay has none for that rule yet.
RemovedCause cause_for_rule(std::string_view rule, std::string_view site, const std::vector<std::uint64_t>& units = {},
                            std::string_view construct = {});

// ReplayOptions is the machine a trace is replayed on and how.
struct ReplayOptions {
  proto::SimTopology machine;                          // the target: sim:N or sim:SxC
  // costs: the runtime's steps on the target. A construct whose handler it does not name
  // (handler.NAME) costs what the recording measured (the median of its handlers).
  proto::CostModel costs = proto::CostModel::default_model();
  Placement placement = Placement::language;
  Pinning pinning = Pinning::automatic;
  double work_scale = 1.0;  // the target's work against the recorded machine's (2: twice as slow)
  RemovedCause removed;     // a cause of lost time taken away (none: the run as recorded)
  RuntimeObserver* observer = nullptr;  // records the replayed run, or nothing
};

// ReplayResult is what a replay did.
struct ReplayResult {
  Placement placement = Placement::language;  // the placement used (never `language`)
  Pinning pinning = Pinning::automatic;        // the pinning used (never `automatic`)
  std::uint64_t units = 0;                     // units animated (the recorded ones, plus one
                                               // closing unit per VP whose end was not recorded)
  std::uint64_t makespan_ticks = 0;            // virtual time, ticks of costs.clock_hz
  double makespan_seconds = 0;
  double recorded_seconds = 0;                 // the recording's makespan, for comparison
  std::vector<std::string> notes;              // what the replay left out of the recording and why,
                                               // and how it converted the recorded work
};

// ReplayError is a trace that cannot be replayed (no units, constraints that form a cycle): its
// message says what and where.
class ReplayError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// replay rebuilds `recorded`'s units (each VP's in order, with its recorded work and the construct
// that ended it) and constraints (which unit's construct call freed which), and runs them on the
// simulated machine `options` describe: a unit starts when its VP's previous unit was handled,
// every constraint on it satisfied and a core free. Rendezvous and typed messages keep the pairing
// the recording made. Throws ReplayError, or proto::ConfigError for a bad machine.
ReplayResult replay(const trace::Trace& recorded, const ReplayOptions& options);

}  // namespace moirai::replay

// The report's one partition of lost core time, and what its rules share (internal to visualize).
//
// Every core-tick of [run start, run end) that was not a unit's work is one LossEntry: an idle
// stretch with the constraint whose satisfaction ended it, the start or end of the run, a kind of
// runtime overhead on one core, or what the OS took. A rule claims entries (or parts of them, cut
// at a time window) for its hint; an entry has at most one owner, so hints never overlap and
// their losses add up to at most the run's lost time.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "moirai/trace/reader.h"
#include "moirai/visualize/analyses/report.h"
#include "moirai/visualize/model/unit_graph.h"
#include "analyses/report/vocabulary.h"

namespace moirai::visualize::report {

inline constexpr std::uint32_t kNone = UINT32_MAX;

// LossKind is what an entry of lost core time was spent on.
enum class LossKind : std::uint8_t {
  idle,               // waiting for a constraint: ended when the next unit on the core was freed
  run_start,          // before the core's first record (the run had not reached it yet)
  run_end,            // nothing left to run: after the core's last unit
  decision,           // assigner and switch into the VP, without lock wait
  communication,      // state-update communication, without lock wait
  lock_wait,          // waiting for the runtime lock, wherever it happened
  constraint_update,  // request handlers other than creation
  create,             // handlers of VP creation, and making the VP shells creations use
  os,                 // what the OS took from units' work spans (noise, not work)
  unrecorded,         // paused recording, writer waits and other gaps between records
  recording,          // the probe's own cost: units x the trace's measured cost per unit
  wake_up,            // waking the cores this core made work for (a chore after the lock)
  estimated,          // the runtime's work a front-end estimated inside the units (format 3.5)
};
inline constexpr std::size_t kLossKinds = 13;
const char* loss_kind_name(LossKind kind);
bool is_overhead(LossKind kind);

// LossEntry is one piece of the partition: a span on one core (idle, start, end, gaps) or a
// per-core total (overhead by kind, OS), with the cause that ended it for idle spans.
struct LossEntry {
  LossKind kind = LossKind::idle;
  std::uint32_t core = 0;
  std::uint64_t begin = 0, end = 0;  // spans: the ticks it covers; totals: the run's span
  std::uint64_t ticks = 0;           // spans: end - begin less lock wait inside; totals: the sum
  std::uint32_t next_unit = kNone;   // idle: index into Trace::units of the unit that ended it
  std::uint32_t freed_by = kNone;    // idle: index into Trace::constraints of what freed that unit
  std::uint32_t owner = kNone;       // the rule (index into the composition) that claimed it
  std::uint32_t span = kNone;        // idle, run_end: the recorded span (index into Trace::idle), if any
};

// per_call says whether an overhead kind is the runtime's own work for each construct call: all
// but lock waits and wake-ups, which calls of any size pay when cores collide or wait.
bool per_call(LossKind kind);
// per_unit_overhead sums the per_call kinds: what the units cost the runtime on one core.
std::uint64_t per_unit_overhead(const std::vector<LossEntry>& entries);
// kUnitsTooSmall: units are too small when per_unit_overhead exceeds this share of the work.
inline constexpr double kUnitsTooSmall = 0.20;
// kChainHops bounds how far back Analysis::held_by follows a chain: past it the chain's last
// links stand for the whole, and a report stays linear in the units.
inline constexpr int kChainHops = 256;

// Analysis is the partition and the facts about the run every rule reads.
struct Analysis {
  const trace::Trace& trace;
  std::uint64_t first = 0, makespan = 0;  // the run's span
  std::uint64_t work = 0;                 // all units' work (Unit::work)
  std::uint64_t core_time = 0;            // cores x makespan
  std::vector<LossEntry> entries{};         // the partition (rules cut and claim in it)
  std::vector<std::uint64_t> core_work{};   // work per core
  std::vector<std::vector<std::uint32_t>> units_on_core{};  // unit indexes, in time order
  std::unordered_map<std::uint64_t, std::uint32_t> unit_index{};  // unit id -> index
  std::unordered_map<std::uint64_t, std::uint32_t> freed_by{};    // unit id -> latest constraint
  UnitGraph graph{};
  Vocabulary words{};  // the language the hints speak
  // own_cores: every core runs one VP of its own, pinned there (MPI's ranks): no runtime places
  // work, so idle cores wait for other VPs' constraints, never for a wave the runtime hands out.
  bool own_cores = false;
  CriticalPath path{};

  // unit is the unit record at an index.
  const trace::Unit& unit(std::uint32_t index) const { return trace.units[index]; }
  // site of the construct call that ended unit `index`, "" for kNone.
  std::string site_of(std::uint32_t index) const;
  // freeing_unit is the unit on the other side of an idle entry's constraint (kNone: none).
  std::uint32_t freeing_unit(const LossEntry& entry) const;
  // construct_of names the construct that ended an idle entry (or its LossKind).
  std::string construct_of(const LossEntry& entry) const;
  // ready_since is when unit `u`'s VP last waited for another VP: the end of the unit whose
  // constraint freed it, or, where u's VP did not block before u (it only passed a construct that
  // did not wait), the same for the VP's unit before. A unit queued behind others was ready long
  // before it ran.
  std::uint64_t ready_since(std::uint32_t u) const;
  // last_of_a_wave: unit `u` ran alone only because the other units of its wave finished first (a
  // unit of another VP ended at the same call site by the same construct, on another core, while
  // u was ready, with half u's work or more, or working while u worked: a loop split unevenly, one
  // thread's share three times the other's, is a wave too). The cores it left idle are the
  // wave's tail (idle-tail), not a serial section nor a chain: the program let u run beside them.
  bool last_of_a_wave(std::uint32_t u) const;
  // held_by is what kept an idle entry's core waiting: the chain of units that released it,
  // followed back from the unit whose construct freed the core (each link the arrival that made
  // the next unit ready) over the recorded idle span the entry is part of, up to the release, at
  // most kChainHops links. `span` is how much of the idle before the release the chain was
  // followed over (from the release back), `work` how much of that the chain spent working, its
  // own units' or those that ran ahead of a ready link on its core; the rest was the runtime's
  // overhead on the chain (handlers, assigners, switches, waking its cores). Empty for other
  // entries and idle no recorded unit released.
  struct HeldBy {
    std::uint64_t span = 0, work = 0;
  };
  HeldBy held_by(const LossEntry& entry) const;
  // busiest_site is the call site that ends most units ("" without units).
  std::string busiest_site() const;
  // ms renders ticks as milliseconds; at renders a clock reading as ms from the run's start.
  std::string ms(std::uint64_t ticks) const;
  std::string at(std::uint64_t tick) const { return ms(tick - first); }
  // share is ticks as a fraction of the run's core time.
  double share(std::uint64_t ticks) const {
    return core_time ? static_cast<double>(ticks) / static_cast<double>(core_time) : 0;
  }
};

// analyse builds the partition of a trace.
Analysis analyse(const trace::Trace& trace);

// Window is a stretch of time a rule claims lost time in.
struct Window {
  std::uint64_t begin = 0, end = 0;
};

// Ledger hands entries of the partition to rules; each claim returns the ticks it took.
class Ledger {
 public:
  Ledger(Analysis& analysis, std::uint32_t rule) : analysis_(analysis), rule_(rule) {}
  // claim takes a whole unowned entry.
  std::uint64_t claim(std::size_t entry);
  // claim_kind takes every unowned entry of `kind` and adds the cores it took from to `cores`.
  std::uint64_t claim_kind(LossKind kind, std::vector<std::uint32_t>& cores);
  // claim_within takes the part of an unowned span entry inside [begin, end), cutting it there.
  std::uint64_t claim_within(std::size_t entry, std::uint64_t begin, std::uint64_t end);
  // claim_windows takes, of every unowned span entry `accept` admits for a window, its part
  // inside that window; windows sorted by begin and disjoint. `per_window`, when given, gets
  // what each window took.
  std::uint64_t claim_windows(const std::vector<Window>& windows,
                              const std::function<bool(const LossEntry&, const Window&)>& accept,
                              std::vector<std::uint64_t>* per_window = nullptr);
  std::uint32_t rule() const { return rule_; }

 private:
  Analysis& analysis_;
  std::uint32_t rule_;
};

// RuleOutput is what rules add to the report: warnings that qualify every figure (shown first),
// hints (ranked later by loss), notes shown before every hint, and hints too small to be worth
// tuning.
struct RuleOutput {
  std::vector<std::string> warnings;
  std::vector<Hint> hints;
  std::vector<std::string> notes;
  std::vector<Hint> minor;
};

// Rule is one diagnosis over the partition. Rules claim in `order` (narrow premises first, so a
// generic rule only gets what no specific one explained); their hints are then ranked by loss.
struct Rule {
  int order;
  const char* name;
  void (*run)(const Analysis& analysis, Ledger& ledger, RuleOutput& out);
};

// hint_of builds a hint from what a rule claimed.
Hint make_hint(const std::string& rule, std::string message, std::vector<std::uint32_t> cores,
               std::uint64_t begin, std::uint64_t end, std::string site, std::uint64_t lost);

}  // namespace moirai::visualize::report

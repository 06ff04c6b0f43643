// Reading a trace file: validated, with every problem named by its offset (docs/trace-format.md).
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "moirai/core/construct_role.h"
#include "moirai/core/language_info.h"
#include "moirai/trace/format.h"
#include "moirai/trace/integrity.h"

namespace moirai::trace {

// TraceError is a file that is not a readable trace: its message names the byte offset and
// the problem.
class TraceError : public std::runtime_error {
 public:
  TraceError(std::uint64_t offset, const std::string& problem);
  std::uint64_t offset() const noexcept { return offset_; }

 private:
  std::uint64_t offset_;
};

// TraceOutOfMemory is a trace that did not fit in memory: the machine's limit, not the file's
// fault, so the tools exit 1 for it (a failed run) rather than 2 (bad input).
class TraceOutOfMemory : public TraceError {
 public:
  using TraceError::TraceError;
};

// Unit is a unit record with the core that animated it and its counter deltas.
struct Unit {
  std::uint32_t core = 0;
  UnitRecord record{};
  std::vector<std::uint64_t> counters;
  // What the OS took from the unit's work span [begin, end): ticks its core's thread did not
  // run (another process or the hypervisor had the CPU), involuntary context switches and CPU
  // migrations. All 0 where the trace does not measure it (simulated machines, old traces).
  std::uint64_t taken = 0;
  std::uint32_t switches = 0;
  std::uint32_t migrations = 0;
  // The work the program declared for the unit (charge_work), in its own cycles; 0 where it
  // declared none or the trace predates format 3.1.
  std::uint64_t declared = 0;
  // work is the unit's work span less what the OS took from it.
  std::uint64_t work() const noexcept {
    const std::uint64_t span = record.end - record.begin;
    return span > taken ? span - taken : 0;
  }
};

// Span is an idle or writer-wait span on a core.
struct Span {
  std::uint32_t core = 0;
  std::uint64_t begin = 0;
  std::uint64_t end = 0;
};

// kCollectiveOps are the collective operations metadata `collective_constructs` may name.
inline constexpr const char* kCollectiveOps[] = {"barrier", "bcast",          "gather", "scatter", "allgather",
                                                 "alltoall", "reduce_scatter", "reduce", "allreduce", "scan"};

// Trace is everything a trace file holds, in file order per core.
struct Trace {
  std::pair<std::uint16_t, std::uint16_t> version{};  // the file's format, major and minor
  std::map<std::string, std::string> metadata;
  std::uint32_t core_count = 0;
  double clock_hz = 0;
  std::vector<std::string> counters;          // recorded counters, in record order
  std::vector<std::string> counter_backends;  // who counted each ("papi", "perf_event"; "" in old traces)
  std::vector<std::string> missing_counters;  // "name: reason"
  std::vector<std::string> constructs;        // display name by construct kind
  // core_nodes is the node (host) each core is on, by core (metadata `core_nodes`; empty when
  // the trace does not say: all on one machine).
  std::vector<std::string> core_nodes;
  // message_constructs are the construct kinds whose constraints between cores are messages, from
  // the freeing unit's core to the freed unit's, one per match number (metadata `message_constructs`).
  std::vector<std::uint32_t> message_constructs;
  // collective_constructs are the construct kinds whose call is a collective operation, each
  // with the operation (one of kCollectiveOps), from metadata `collective_constructs`
  // (`KIND:OPERATION`, comma-separated): the call lasts from the unit it ends to the next of its core.
  std::map<std::uint32_t, std::string> collective_constructs;
  std::vector<ConstructRole> construct_roles;  // by kind (format 2 and older: SSR's, by name)
  std::vector<std::string> construct_colours;  // by kind ("": the views pick)
  // language_choices is the language's placement and report words (format 3.6; an older trace's
  // are the reader's format history's for its language: docs/trace-format.md).
  LanguageChoices language_choices;
  struct Site { std::string file, function; std::uint32_t line = 0; };
  std::unordered_map<std::uint32_t, Site> sites;
  struct Vp { std::uint64_t id = 0; std::string name; std::uint32_t home_core = 0; std::uint32_t site = 0; };
  std::vector<Vp> vps;
  struct Group { std::uint64_t id = 0; std::uint32_t construct = 0; std::string name; };
  std::vector<Group> groups;
  std::vector<Unit> units;
  std::vector<Span> idle;
  std::vector<Span> writer_waits;
  std::vector<Span> paused;                     // spans a core did not record (pause/resume)
  struct LockHandoff { std::uint32_t core = 0; LockHandoffRecord record{}; };
  std::vector<LockHandoff> lock_handoffs;      // runtime-internal causality
  struct LockDomain { std::uint64_t key = 0; std::string name; };
  std::unordered_map<std::uint16_t, LockDomain> lock_domains;  // by id (format 3.4)
  struct ChoreSpan { std::uint32_t core = 0; ChoreRecord record{}; };
  std::vector<ChoreSpan> chores;                // runtime chores after the lock (format 3.2)
  struct UserEvent { std::uint32_t core = 0; UserEventRecord record{}; };
  std::vector<UserEvent> user_events;
  std::unordered_map<std::uint32_t, std::string> user_event_names;
  std::vector<ConstraintRecord> constraints;
  // messages are what each message carried, by match number (format 3.7: a front-end that knows
  // its messages' envelopes writes them; empty otherwise).
  std::unordered_map<std::uint64_t, MessageRecord> messages;
  // collective_calls are what each core's collective call sent, by the unit the call ended (3.7).
  std::unordered_map<std::uint64_t, MessageRecord> collective_calls;
  struct Communicator { std::uint64_t size = 0; std::string name; };
  std::unordered_map<std::uint32_t, Communicator> communicators;  // by id (format 3.7)
  struct Member { std::uint32_t core = 0; GroupRecord record{}; };
  std::vector<Member> group_members;

  std::uint64_t bytes = 0;      // file size
  std::uint64_t chunks = 0;     // complete chunks read
  bool complete = false;        // the end chunk was there
  std::string cut;              // when not complete: "partial trace, ends at T ms: ..." (where
                                // and how the trace was cut)
  std::uint64_t latest = 0;     // the latest time any record holds (clock ticks; 0: no records)
  std::string interrupted;      // the signal that stopped the run ("SIGINT"), from the closing
                                // chunk; empty when the run was not interrupted
  EndPayload end{};             // valid when complete
  Integrity integrity;          // what the reader left out, and why

  // construct_name is the display name of a construct kind ("construct N" if undefined).
  std::string construct_name(std::uint32_t kind) const;
  // construct_role is what a construct kind does to scheduling (other if undefined).
  ConstructRole construct_role(std::uint32_t kind) const {
    return kind < construct_roles.size() ? construct_roles[kind] : ConstructRole::other;
  }
  // constructs_of lists the kinds of one role, in kind order.
  std::vector<std::uint32_t> constructs_of(ConstructRole role) const;
  // message is what the message of match number `match` carried; nullptr when the trace does not say.
  const MessageRecord* message(std::uint64_t match) const;
  // communicator_name is a communicator's name ("communicator N" if undefined).
  std::string communicator_name(std::uint32_t id) const;
  // site_name renders a call-site id as "file:line" ("?" if undefined).
  std::string site_name(std::uint32_t site) const;
  // ms_from_start is a clock reading in ms from the start of the recording (metadata
  // `start_ticks`), as `moirai stats` prints times.
  double ms_from_start(std::uint64_t ticks) const;
  // interruption says how a signal ended the run ("SIGINT at 812.345 ms: ..."); empty when none did.
  std::string interruption() const;
};

// kDefaultMaxTraceBytes is the largest trace read_trace reads unless MOIRAI_TRACE_MAX_BYTES says otherwise.
inline constexpr std::uint64_t kDefaultMaxTraceBytes = 4ull << 30;

// read_trace reads and validates a whole trace file of at most max_trace_bytes(). Throws
// TraceError for a file that is not a trace or is corrupt (wrong magic, future version, bad
// checksum, impossible ids or times, a broken invariant), too large, or more than memory holds;
// a trace cut short reads up to its last complete chunk and says so in Trace::cut, and what an
// otherwise sound trace had to leave out is in Trace::integrity.
Trace read_trace(const std::string& path);
// read_trace with a size limit of its own: a larger file, or a pipe or device that gives more
// bytes, is refused once the limit is reached.
Trace read_trace(const std::string& path, std::uint64_t max_bytes);
// parse_trace does the same for bytes in memory (the fuzz target uses it).
Trace parse_trace(const unsigned char* data, std::size_t size);
// max_trace_bytes is the size limit read_trace applies: MOIRAI_TRACE_MAX_BYTES (bytes, or a
// number with K, M or G) or kDefaultMaxTraceBytes; throws TraceError when the variable is no size.
std::uint64_t max_trace_bytes();

}  // namespace moirai::trace

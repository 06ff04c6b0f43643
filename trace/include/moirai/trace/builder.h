// Writing a trace file from records given one by one, in the format of docs/trace-format.md:
// how tests make traces of known answer and how moirai-gen-trace makes large synthetic runs.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "moirai/core/construct_role.h"
#include "moirai/core/language_info.h"
#include "moirai/trace/format.h"

namespace moirai::trace {

// BuilderOptions is what the metadata and the construct definitions of a built trace say.
struct BuilderOptions {
  std::uint32_t cores = 1;
  double clock_hz = 1e9;  // ticks per second
  std::string clock_source = "monotonic";  // "virtual": a simulated machine's clock
  std::string command_line = "hand-built";
  // language names the trace's language (the metadata's `language`); the builder assumes none,
  // and refuses a trace that names none.
  std::string language;
  std::vector<std::string> counters;  // one delta per name follows every unit record
  // constructs are the language's construct kinds, by kind (trace::kFormat2SsrConstructs: SSR's).
  std::vector<ConstructInfo> constructs;
  // choices are the language's placement and words; none writes neither, as a trace from before
  // format 3.6 (whose version a test may then write over the header's) or a language that takes
  // the defaults (any core, the paper's words).
  std::optional<LanguageChoices> choices;
  // metadata adds "key=value" lines (a recorder's os_time, unit_record_cost_ns, ...).
  std::vector<std::pair<std::string, std::string>> metadata;
};

// TraceBuilder streams a trace to a file: each core's records go out as an events chunk once
// its buffer holds about a mebibyte, so a run of millions of units needs little memory. Records
// must be given in time order per core; a record the reader would refuse throws
// std::invalid_argument, naming the problem.
class TraceBuilder {
 public:
  // TraceBuilder creates `path` and writes the file header, the metadata and the constructs;
  // throws std::invalid_argument when `options` name no language or an impossible core count,
  // std::runtime_error when the file cannot be written.
  TraceBuilder(const std::string& path, BuilderOptions options);
  ~TraceBuilder();
  TraceBuilder(const TraceBuilder&) = delete;
  TraceBuilder& operator=(const TraceBuilder&) = delete;

  // site defines call site `id` as file:line in `function`.
  void site(std::uint32_t id, const std::string& file, std::uint32_t line, const std::string& function = "f");
  // vp defines VP `id` with its name, home core (kNoHomeCore: not pinned) and creation site.
  void vp(std::uint64_t id, const std::string& name, std::uint32_t home_core, std::uint32_t creation_site);
  // group defines group `id` of possible partners under construct `construct`.
  void group(std::uint64_t id, std::uint16_t construct, const std::string& name);
  // lock_domain defines lock domain `id` (1..65535, what lock_handoff names), the language's
  // `key` for it and its name.
  void lock_domain(std::uint16_t id, std::uint64_t key, const std::string& name);

  // communicator defines communicator `id` (what message records name) with `size` members and its name (3.7).
  void communicator(std::uint32_t id, std::uint64_t size, const std::string& name);

  // unit adds a unit record on `core` (its kind is filled in) with one delta per counter; a VP
  // not defined before gets the name "vpN", no home core and the unit's call site.
  void unit(std::uint32_t core, const UnitRecord& record, std::span<const std::uint64_t> counters = {});
  // unit adds a unit whose communication and constraint update split [end, handler_end) evenly,
  // with no lock wait, and the counter deltas `counters` (zeros when empty).
  void unit(std::uint32_t core, std::uint64_t unit, std::uint64_t vp, std::uint64_t assign, std::uint64_t begin,
            std::uint64_t end, std::uint64_t handler_end, std::uint16_t ended_by, std::uint32_t site,
            const std::vector<std::uint64_t>& counters = {});
  // os_taken says the OS took `taken` ticks from the work of `unit`, the unit just added on
  // `core`, with its involuntary switches and migrations.
  void os_taken(std::uint32_t core, std::uint64_t unit, std::uint64_t taken, std::uint32_t switches = 1,
                std::uint32_t migrations = 0);
  // declared_work says the program declared `declared` cycles of work for `unit`, the unit just
  // added on `core`.
  void declared_work(std::uint32_t core, std::uint64_t unit, std::uint64_t declared);
  // idle adds an idle span on `core`.
  void idle(std::uint32_t core, std::uint64_t begin, std::uint64_t end);
  // constraint records on `core` that unit `from`'s construct call freed unit `to`.
  void constraint(std::uint32_t core, std::uint16_t construct, std::uint64_t from, std::uint64_t to,
                  std::uint64_t time, std::uint64_t match = 0);
  // message records on `core` what the message of match number `match` (a constraint's, above 0)
  // carried: its bytes, tag and communicator, and MessageFlag bits for a receive for any source or
  // tag. One per match; the reader leaves out a second, or one whose match no constraint holds.
  void message(std::uint32_t core, std::uint64_t match, std::uint64_t bytes, std::int32_t tag, std::uint32_t comm,
               std::uint16_t flags = 0);
  // collective_call records the bytes `unit` (the unit just added on `core`) sent in the collective
  // call that ended it, on communicator `comm`.
  void collective_call(std::uint32_t core, std::uint64_t unit, std::uint64_t bytes, std::uint32_t comm);
  // group_member puts `unit` into group `group` as a source (1) or a sink (2).
  void group_member(std::uint32_t core, std::uint64_t group, std::uint16_t role, std::uint64_t unit);
  // lock_handoff records that `core` waited for the runtime lock from `waited` until `acquired`,
  // when core `from` released it.
  // `domain` is a lock domain defined with define(DefinitionType::lock_domain, ...), or 0.
  void lock_handoff(std::uint32_t core, std::uint32_t from, std::uint64_t waited, std::uint64_t acquired,
                    std::uint16_t domain = 0);
  // chore records that `core` did runtime chore `chore` from `begin` to `end` (for `cores` cores).
  void chore(std::uint32_t core, Chore chore, std::uint64_t begin, std::uint64_t end, std::uint32_t cores = 1);

  // user_event marks the begin (or end) of application phase `name` (id `name_id`) inside
  // `unit` at `time`, on `core`.
  void user_event(std::uint32_t core, std::uint32_t name_id, const std::string& name, std::uint64_t unit,
                  std::uint64_t time, bool begin);
  // finish writes what is buffered and the end chunk: the trace is complete. Called by the
  // destructor when not before (which then cannot report a failed write).
  void finish(std::uint64_t end_time = 0);

  // kNoHomeCore is the home core of a VP that is not pinned.
  static constexpr std::uint32_t kNoHomeCore = 0xFFFFFFFF;

 private:
  void define(DefinitionType type, std::uint32_t a, std::uint64_t b, std::uint64_t c, const std::string& text);
  void append(std::uint32_t core, const void* record, std::size_t size);
  void flush_core(std::uint32_t core);
  void flush_definitions();
  void chunk(ChunkType type, std::uint16_t core, const void* payload, std::size_t size);
  void write(const void* data, std::size_t size);

  std::string path_;
  BuilderOptions options_;
  std::FILE* file_ = nullptr;
  std::vector<std::vector<unsigned char>> events_;  // per core, not yet written
  std::vector<unsigned char> definitions_;          // not yet written
  std::unordered_set<std::uint64_t> vps_;           // defined VPs
  std::unordered_set<std::uint32_t> event_names_;   // defined user-event names
  std::uint64_t sequence_ = 0;
  std::uint64_t records_ = 0;
  bool finished_ = false;
};

}  // namespace moirai::trace

// The integrity counters of a trace: what the reader left out of a trace whose rest is sound.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace moirai::trace {

struct Trace;

// Integrity is what the reader left out of a trace whose rest is sound, and why: a chunk written
// twice, a unit id recorded twice, a span that overlaps the one before it on its core
// (docs/trace-format.md, "What the reader checks").
struct Integrity {
  std::uint64_t chunks_left_out = 0;  // events or definitions chunks that repeat an earlier one
  std::uint64_t units_left_out = 0;   // unit records (with their OS and declared-work records)
  std::uint64_t spans_left_out = 0;   // idle, paused, writer-wait spans and chores
  std::uint64_t messages_left_out = 0;  // message records naming no constraint's match, or one named before (3.7)
  std::vector<std::string> warnings;  // one per part left out: "at byte N (chunk S ...): ...; left out"

  // sound says that nothing was left out.
  bool sound() const noexcept { return warnings.empty(); }
  // summary says in one line what was left out, for an output's notes; empty when sound.
  std::string summary() const;
};

// IntegrityCounter names one count of Integrity: its key in the outputs' "left_out" tables and
// how a summary names one part and several, so that every output names the counts alike.
struct IntegrityCounter {
  std::uint64_t Integrity::*count;
  const char* key;
  const char* one;
  const char* many;
};

// kIntegrityCounters lists each count of Integrity once, in the order the outputs print them.
inline constexpr IntegrityCounter kIntegrityCounters[] = {
    {&Integrity::chunks_left_out, "chunks", "repeated chunk", "repeated chunks"},
    {&Integrity::units_left_out, "units", "unit", "units"},
    {&Integrity::spans_left_out, "spans", "span", "spans"},
    {&Integrity::messages_left_out, "messages", "message record", "message records"},
};

// kMaxLeftOut is how many parts the reader leaves out of a trace before refusing it as unsound.
inline constexpr std::size_t kMaxLeftOut = 100;

// trace_warnings are the lines a tool prints on stderr after reading a trace: where it was cut
// (if it was), then each part the reader left out.
std::vector<std::string> trace_warnings(const Trace& trace);

}  // namespace moirai::trace

// A trace's integrity table (like Perfetto's stats table): every count the recorder and the
// reader kept of how much of the run the trace holds, each named once with its severity, so that
// `moirai stats`, `moirai report`, the exports and the pictures' titles print the same counters
// the same way (internal to visualize).
#pragma once

#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "moirai/trace/reader.h"

namespace moirai::visualize::detail {

// IntegritySeverity says whether a counter only describes the trace (info) or, when set, means
// part of the run is missing from it (data_loss).
enum class IntegritySeverity { info, data_loss };

// IntegrityRow is one row of the table: its name (the JSON key), its value, its severity
// and what it counts.
struct IntegrityRow {
  const char* name;
  nlohmann::ordered_json value;
  IntegritySeverity severity;
  const char* description;
};

// integrity_table is every integrity counter of `trace`, in the order `moirai stats --json`
// prints them.
std::vector<IntegrityRow> integrity_table(const trace::Trace& trace);
// integrity_json is the table as one JSON object (the "integrity" of `moirai stats --json`).
nlohmann::ordered_json integrity_json(const trace::Trace& trace);
// print_integrity writes the table as `moirai stats` does: one line of counts (or where the trace
// was cut), what the reader left out and why, and how a signal ended the run.
void print_integrity(std::ostream& out, const trace::Trace& trace);

// IntegrityNote is a data loss or a limit of the data in words: ("cut", where the trace ends) for
// a trace cut short, ("integrity", what the reader left out, in one line) for one it had to leave
// parts out of; a merged trace's cores cut, clocks out of order and what lies outside its span.
using IntegrityNote = std::pair<std::string, std::string>;
// integrity_notes are the notes of `trace` (none for a complete, sound trace of one process): what
// the report puts before its figures and every export carries in its metadata.
std::vector<IntegrityNote> integrity_notes(const trace::Trace& trace);
// clock_order_text says how many messages and collectives of a merged trace were out of clock
// order across hosts before and after correction (metadata clock_violations, _left, clock_correction;
// "" for a trace of one clock).
std::string clock_order_text(const trace::Trace& trace);
// integrity_note is the text of the note called `name` ("" when the trace has none).
std::string integrity_note(const trace::Trace& trace, const std::string& name);

}  // namespace moirai::visualize::detail

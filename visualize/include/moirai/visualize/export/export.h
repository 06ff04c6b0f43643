// Exporters: a trace written for the tools people already use (docs/export.md). Each streams its
// output as it goes: memory grows with the trace read, never with the output.
#pragma once

#include <cstdint>
#include <string>

#include "moirai/trace/reader.h"
#include "moirai/visualize/output/output_file.h"

namespace moirai::visualize {

// ExportError is an output the exporter could not create or write; its message names it. Every
// output fails alike, so it is output_file.h's OutputError under the exporters' name.
using ExportError = OutputError;

// ExportCounts says what an exporter wrote, so the command and the tests can check it.
struct ExportCounts {
  std::uint64_t units = 0;        // units written
  std::uint64_t arcs = 0;         // constraints written as flows, messages or rows
  std::uint64_t cross_core = 0;   // of those, between units on different cores
  std::uint64_t unresolved = 0;   // constraints naming a unit the trace lacks, or going back in time
  std::uint64_t bytes = 0;        // size of what was written
};

// export_otf2 writes an OTF2 archive into the directory `out` (created, or an empty one replaced;
// one holding files is refused), whose anchor file is `out`/traces.otf2. Like every output, it is
// written beside `out` and put in place only once whole (output/output_file.h).
ExportCounts export_otf2(const trace::Trace& trace, const std::string& out);
// export_perfetto writes Chrome Trace Event JSON, which Perfetto and chrome://tracing open.
ExportCounts export_perfetto(const trace::Trace& trace, const std::string& out);
// export_perfetto_proto writes Perfetto's protobuf trace format, which ui.perfetto.dev and
// Perfetto's trace processor open (a fraction of the JSON's size).
ExportCounts export_perfetto_proto(const trace::Trace& trace, const std::string& out);
// export_sqlite writes an SQLite database (replacing the regular file `out` once whole), schema in docs/export.md.
ExportCounts export_sqlite(const trace::Trace& trace, const std::string& out);

}  // namespace moirai::visualize

#include "export_command.h"

#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "command.h"
#include "moirai/visualize/export/export.h"

namespace moirai::cli {

int export_command(const std::vector<std::string_view>& args) {
  Command command("export", "usage: moirai export TRACE --format otf2|perfetto|perfetto-json|sqlite -o OUT [--json]\n\n",
                  "Writes the trace for the tools people already use (docs/export.md):\n\n"
                  "  otf2       an OTF2 archive for Vampir and the Score-P tools: OUT is a new (or\n"
                  "             empty) directory, its anchor file OUT/traces.otf2. A location per\n"
                  "             core, a region per life-line segment named by construct and call\n"
                  "             site, cross-core constraints as MPI messages, counters as metrics,\n"
                  "             user events as markers.\n"
                  "  perfetto   Perfetto's protobuf trace for ui.perfetto.dev: a track per core with\n"
                  "             units and their overhead segments nested, a flow arrow per constraint,\n"
                  "             counter tracks, user events.\n"
                  "  perfetto-json  the same as Chrome Trace Event JSON (also chrome://tracing), with a\n"
                  "             track per VP besides; several times larger.\n"
                  "  sqlite     an SQLite database: cores, VPs, units with their life-line segments\n"
                  "             and counter deltas, constraints, idle spans with their cause, the\n"
                  "             report's hints, the metadata.\n\n"
                  "Times are nanoseconds since the run's first reading, converted from the trace's clock.\n"
                  "A file OUT is written beside itself and renamed into place when complete, so a failed\n"
                  "export leaves an existing OUT as it was; '-o -' writes perfetto(-json) or sqlite to standard\n"
                  "output (the summary line then goes to stderr); OTF2 is a directory and cannot.");
  std::string format;
  command.cli.add_option("-T,--format", format, "otf2, perfetto, perfetto-json or sqlite (required)")->type_name("FORMAT");
  command.output_option("where to write (required): a directory for otf2, a file ('-': standard output) for the others");
  command.json_option("print the summary line as one JSON object");
  if (!command.parse(args)) return 0;

  using Exporter = visualize::ExportCounts (*)(const trace::Trace&, const std::string&);
  Exporter exporter = nullptr;
  const char* arcs = "";
  if (format == "otf2") {
    exporter = visualize::export_otf2;
    arcs = "messages (cross-core constraints)";
  } else if (format == "perfetto" || format == "perfetto-json") {
    exporter = format == "perfetto" ? visualize::export_perfetto_proto : visualize::export_perfetto;
    arcs = "flows";
  } else if (format == "sqlite") {
    exporter = visualize::export_sqlite;
    arcs = "constraints";
  } else if (format.empty()) {
    throw BadInput("no format given (--format otf2, perfetto, perfetto-json or sqlite)");
  } else {
    throw BadInput("--format " + format + ": not one of otf2, perfetto, perfetto-json, sqlite");
  }
  if (command.output.empty()) throw BadInput("no output given (-o OUT)");
  OutputTarget target("-o", command.output, format == "otf2" ? OutputTarget::Kind::directory : OutputTarget::Kind::file,
                      {command.trace});
  const trace::Trace trace = read_trace_input(command.trace);
  visualize::ExportCounts counts;
  try {
    counts = exporter(trace, target.path());
  } catch (const visualize::ExportError& error) {
    // The output was checked before the trace was read: what fails now is a write (exit 1).
    throw std::runtime_error(target.explain(error.what()));
  }
  target.commit();
  std::string line = format + ", " + std::to_string(counts.units) + " units, " + std::to_string(counts.arcs) + ' ' + arcs +
                     ", " + std::to_string(counts.cross_core) + " cross-core constraints, " + std::to_string(counts.bytes) +
                     " bytes";
  if (counts.unresolved) {
    line += " (" + std::to_string(counts.unresolved) + " constraints name a unit the trace lacks or point back in time: " +
            (format == "sqlite" ? "rows with resolved = 0)" : "left out)");
  }
  print_summary(command, target, line,
                {{"command", "export"},
                 {"trace", command.trace},
                 {"format", format},
                 {"units", counts.units},
                 {"arcs", counts.arcs},
                 {"cross_core", counts.cross_core},
                 {"unresolved", counts.unresolved},
                 {"bytes", counts.bytes}});
  return 0;
}

}  // namespace moirai::cli

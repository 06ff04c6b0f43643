// moirai: the command line front of the post-processor. Subcommands read trace files written
// by `APP --trace FILE` (`sweep` also runs the app, as child processes); they never link the runtime.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iostream>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "moirai/trace/reader.h"
#include "moirai/visualize/core_set.h"
#include "moirai/visualize/critical_path.h"
#include "moirai/visualize/export.h"
#include "moirai/visualize/report.h"
#include "moirai/visualize/run_summary.h"
#include "moirai/visualize/scg.h"
#include "moirai/visualize/ucc.h"
#include "sweep_command.h"

namespace {

constexpr const char* kUsage = "usage: moirai <command> [options]\n";

constexpr const char* kHelp =
    "moirai: read the traces Moirai's runtime records (APP --trace FILE) and say where the\n"
    "time went.\n\n"
    "commands:\n"
    "  stats TRACE [--json]   cores, VPs, units, constraints by kind, per-core time by\n"
    "                         life-line segment, counters, recording cost and integrity\n"
    "  scg TRACE -o FILE      the Scheduling Consequence Graph as SVG (or PNG, DOT)\n"
    "  ucc TRACE -o FILE      the Unit & Constraint Collection: the parallelism the program\n"
    "                         allows, as SVG (or PNG, DOT)\n"
    "  report TRACE [--json]  what caused the lost time: idle by cause, overhead, hints\n"
    "  sweep --param NAME=V1,V2,... -- COMMAND ARGS...\n"
    "                         run COMMAND once per value of {NAME}, record each run and\n"
    "                         compare them: table, CSV, plot, same-scale SCGs, best value\n"
    "  export TRACE --format otf2|perfetto|perfetto-json|sqlite -o OUT\n"
    "                         the trace for Vampir (OTF2), Perfetto (protobuf or JSON) or SQL\n\n"
    "'moirai COMMAND --help' describes a command. Exit status: 0 done, 2 bad input (flags or a\n"
    "missing, empty or corrupt trace).\n";

constexpr const char* kStatsHelp =
    "usage: moirai stats TRACE [--json]\n\n"
    "Summarises a trace: cores, VPs, units, constraints by kind, per-core time split into work,\n"
    "state-update communication (with runtime-lock wait), constraint update, decision to animate\n"
    "and idle; the counters recorded and those the machine lacked; the recorder's own cost; and\n"
    "integrity (chunks, bytes, records, events dropped, where a cut trace ends).\n\n"
    "  --json   print the same numbers as one JSON object\n";

int bad_input(const std::string& message, const char* usage) {
  std::cerr << "moirai: error: " << message << '\n' << usage;
  return 2;
}

// TracePrinter prints one trace's analysis as text or JSON.
using TracePrinter = std::function<void(std::ostream&, const std::string& path, const moirai::trace::Trace&, bool json)>;

// trace_command is `moirai NAME TRACE [--json]`: the shape `stats` and `report` share; a command
// may take one more flag, `flag`, which sets `*flag_set`.
int trace_command(const std::string& name, const std::vector<std::string_view>& args, const char* help,
                  const TracePrinter& print, std::string_view flag = {}, bool* flag_set = nullptr) {
  const std::string usage = "usage: moirai " + name + " TRACE [--json]" + (flag.empty() ? "" : " [" + std::string(flag) + "]") + "\n";
  std::string path;
  bool json = false;
  for (std::string_view arg : args) {
    if (arg == "--help" || arg == "-h") {
      std::cout << help;
      return 0;
    }
    if (arg == "--json") {
      json = true;
    } else if (!flag.empty() && arg == flag) {
      *flag_set = true;
    } else if (arg.starts_with("-")) {
      return bad_input(name + ": unknown option '" + std::string(arg) + "'", usage.c_str());
    } else if (!path.empty()) {
      return bad_input(name + ": one trace at a time ('" + path + "' and '" + std::string(arg) + "')", usage.c_str());
    } else {
      path = arg;
    }
  }
  if (path.empty()) return bad_input(name + ": no trace file given", usage.c_str());
  try {
    const moirai::trace::Trace trace = moirai::trace::read_trace(path);
    print(std::cout, path, trace, json);
    if (!trace.complete) std::cerr << "moirai: warning: " << path << ": " << trace.cut << '\n';
    return 0;
  } catch (const moirai::trace::TraceError& error) {
    std::cerr << "moirai: error: " << path << ": " << error.what() << '\n';
    return 2;
  }
}

void print_stats(std::ostream& out, const std::string& path, const moirai::trace::Trace& trace, bool json) {
  const moirai::visualize::RunSummary summary = moirai::visualize::summarize(trace);
  if (json) {
    moirai::visualize::print_summary_json(out, path, trace, summary);
  } else {
    moirai::visualize::print_summary(out, path, trace, summary);
  }
}

void print_report(std::ostream& out, const std::string&, const moirai::trace::Trace& trace, bool json) {
  const moirai::visualize::Report report = moirai::visualize::build_report(trace);
  if (json) {
    moirai::visualize::print_report_json(out, trace, report);
  } else {
    moirai::visualize::print_report(out, trace, report);
  }
}

void print_critical_path(std::ostream& out, const std::string&, const moirai::trace::Trace& trace, bool json) {
  const moirai::visualize::CriticalPathListing listing = moirai::visualize::list_critical_path(trace);
  if (json) {
    moirai::visualize::print_critical_path_json(out, listing);
  } else {
    moirai::visualize::print_critical_path(out, listing);
  }
}

constexpr const char* kReportHelp =
    "usage: moirai report TRACE [--json] [--critical-path]\n\n"
    "Says where the run lost time and why: the makespan; work, overhead and idle per core; the\n"
    "overhead against the work and a verdict on the unit size (too small / fine / too big); a\n"
    "histogram of unit sizes; the critical path of the program's dependencies (its work against\n"
    "the makespan, the constructs on it) and the parallelism (total work / critical-path work);\n"
    "the idle time charged to the constraint whose satisfaction ended\n"
    "each idle period (construct and call site), or to 'nothing left to run'; and hints for the\n"
    "patterns of the paper's section 3.4 (unused cores, creator starvation, an idle tail, unit\n"
    "size, runtime-lock contention), each with its cores, times and call site.\n\n"
    "  --json            print the same numbers as one JSON object\n"
    "  --critical-path   list the critical path instead, unit by unit in order: unit, VP, core,\n"
    "                    work, the arc it was reached by, the construct and call site that began\n"
    "                    and ended it (their work adds up to the report's critical-path work)\n";

constexpr const char* kScgUsage =
    "usage: moirai scg TRACE -o FILE [-T svg|png|dot] [--scale CYCLES_PER_POINT | --same-scale-as OTHER]\n"
    "                  [--from TIME] [--to TIME] [--cores SET] [--arcs LIST] [--same-core-arcs]\n"
    "                  [--overhead total|detail] [--miss-range MIN,MAX] [--critical-path]\n";

constexpr const char* kScgHelp =
    "\nDraws the Scheduling Consequence Graph (paper section 3.3.2): one column per core, time\n"
    "going down, one block per unit (grey: runtime overhead, below it the work), and a line from\n"
    "the point where a unit's construct freed another unit to the start of that unit, coloured\n"
    "by construct as the trace's language says (SSR: create red, send_of_type_to green,\n"
    "singleton orange, send_from_to blue, send_of_type purple). The work region is coloured blue (few) to red (many cache misses per\n"
    "instruction) when the trace recorded a miss counter, and neutral otherwise. Hover a block\n"
    "for its VP, the call sites that began and ended it, its cycles and counters.\n\n"
    "  -o FILE              output file (required)\n"
    "  -T FORMAT            svg, png or dot; default: from -o's extension (.dot, .gv, .png), else svg\n"
    "  --scale N            clock ticks per point (1/72 inch); default: fit about 1600 points\n"
    "  --same-scale-as F    draw at the scale trace F gets by default, so the two graphs compare\n"
    "                       directly (converted through both clocks' rates)\n"
    "  --from T, --to T     zoom to a window of the run; T counts from the run's start, in clock\n"
    "                       ticks, or with a unit: 12ms, 3.5us, 2s, 800ns\n"
    "  --cores SET          columns to draw: numbers and ranges, e.g. 0-5,9 (default all)\n"
    "  --arcs LIST          arc kinds to draw: constructs of the trace, lock-handoff (runtime-lock\n"
    "                       causality) and core-succession (hardware order on a core); default:\n"
    "                       the constructs that create, send, grant or end an exclusive section,\n"
    "                       or carry a dependence or a wait (SSR: create_vp, send_from_to,\n"
    "                       send_of_type_to, send_of_type, singleton, singleton-end). A '-' in a\n"
    "                       name stands for a space.\n"
    "  --same-core-arcs     also draw constraint arcs between units on one core\n"
    "  --overhead MODE      total (default): one grey region; detail: assigner + switch,\n"
    "                       communication, lock wait, constraint update / create, each its colour,\n"
    "                       each where it happened in the unit's life-line (in time order)\n"
    "  --miss-range MIN,MAX misses per instruction drawn as pure blue and pure red (default: the\n"
    "                       lowest and highest of the drawn units)\n"
    "  --critical-path      draw the critical path (the heaviest chain of program dependencies by\n"
    "                       work) over the graph: its blocks get a black rim, bold dashed lines join\n"
    "                       them in order; `moirai report --critical-path` lists the same units\n";

// parse_time reads a --from/--to value: clock ticks, or a number with s, ms, us or ns.
std::optional<std::uint64_t> parse_time(const std::string& text, double clock_hz) {
  char* end = nullptr;
  const double number = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || !(number >= 0) || !std::isfinite(number)) return std::nullopt;
  const std::string suffix = end;
  double seconds_per = 0;
  if (suffix.empty()) return static_cast<std::uint64_t>(number);
  if (suffix == "s") seconds_per = 1;
  else if (suffix == "ms") seconds_per = 1e-3;
  else if (suffix == "us") seconds_per = 1e-6;
  else if (suffix == "ns") seconds_per = 1e-9;
  else return std::nullopt;
  return static_cast<std::uint64_t>(number * seconds_per * clock_hz);
}

std::vector<std::string> split_list(std::string_view text) {
  std::vector<std::string> parts;
  std::string part;
  for (char c : text) {
    if (c == ',') {
      parts.push_back(part);
      part.clear();
    } else {
      part += c;
    }
  }
  parts.push_back(part);
  return parts;
}

// drawing is the end `scg` and `ucc` share: check that a trace and an output were given, take
// the format from the output's extension when -T did not give it, read the trace, and draw it; bad input exits 2, a drawing Graphviz could not write exits 1.
template <class Draw>
int drawing(const std::string& name, const std::string& path, const std::string& output, std::string& format,
            const char* usage, Draw draw) {
  const auto bad = [&](const std::string& message) { return bad_input(name + ": " + message, usage); };
  if (path.empty()) return bad("no trace file given");
  if (output.empty()) return bad("no output file given (-o FILE)");
  if (format.empty()) {
    // Without -T the file's extension says: `-o x.dot` is DOT that Graphviz's tools read.
    const std::string_view file = output;
    format = file.ends_with(".dot") || file.ends_with(".gv") ? "dot" : file.ends_with(".png") ? "png" : "svg";
  }
  try {
    moirai::trace::Trace trace = moirai::trace::read_trace(path);
    if (!trace.complete) std::cerr << "moirai: warning: " << path << ": " << trace.cut << '\n';
    draw(trace);
    return 0;
  } catch (const moirai::trace::TraceError& error) {
    std::cerr << "moirai: error: " << path << ": " << error.what() << '\n';
    return 2;
  } catch (const std::invalid_argument& error) {
    return bad(error.what());
  } catch (const std::runtime_error& error) {
    std::cerr << "moirai: error: " << name << ": " << error.what() << '\n';
    return 1;
  }
}

// trace_argument takes an argument that is no option the command knows: the trace's path, or
// the error to report (an unknown option, a second trace).
std::string trace_argument(std::string_view arg, std::string& path) {
  if (arg.starts_with("-")) return "unknown option '" + std::string(arg) + "'";
  if (!path.empty()) return "one trace at a time ('" + path + "' and '" + std::string(arg) + "')";
  path = arg;
  return {};
}

// output_option handles the -o and -T options `scg` and `ucc` share; it returns false when
// `arg` is neither, and sets `error` when the option is malformed.
bool output_option(const std::vector<std::string_view>& args, std::size_t& i, std::string& output,
                   std::string& format, std::string& error) {
  const std::string_view arg = args[i];
  if (arg != "-o" && arg != "-T") return false;
  if (i + 1 >= args.size()) {
    error = arg == "-o" ? "-o needs a file" : "-T needs a format";
    return true;
  }
  (arg == "-o" ? output : format) = args[++i];
  if (arg == "-T" && format != "svg" && format != "png" && format != "dot") {
    error = "-T " + format + ": not one of svg, png, dot";
  }
  return true;
}

int scg(const std::vector<std::string_view>& args) {
  std::string path, output, format, same_scale_as, from_text, to_text;
  moirai::visualize::ScgOptions options;
  const auto bad = [](const std::string& message) { return bad_input("scg: " + message, kScgUsage); };
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string_view arg = args[i];
    const auto value = [&](std::string& into) {
      if (i + 1 >= args.size()) return false;
      into = args[++i];
      return true;
    };
    std::string text;
    if (arg == "--help" || arg == "-h") {
      std::cout << kScgUsage << kScgHelp;
      return 0;
    } else if (output_option(args, i, output, format, text)) {
      if (!text.empty()) return bad(text);
    } else if (arg == "--scale") {
      if (!value(text)) return bad("--scale needs a number");
      char* end = nullptr;
      options.cycles_per_point = std::strtod(text.c_str(), &end);
      if (end == text.c_str() || *end != '\0' || !(options.cycles_per_point > 0)) {
        return bad("--scale " + text + ": must be a number above 0");
      }
    } else if (arg == "--cores") {
      if (!value(text)) return bad("--cores needs a set, e.g. 0-5,9");
      try {
        options.cores = moirai::visualize::parse_core_set(text);
      } catch (const std::invalid_argument& error) {
        return bad(std::string("--cores ") + error.what());
      }
    } else if (arg == "--critical-path") {
      options.critical_path = true;
    } else if (arg == "--arcs") {
      if (!value(text)) return bad("--arcs needs a list");
      for (std::string kind : split_list(text)) {
        std::replace(kind.begin(), kind.end(), '-', ' ');
        if (kind.empty()) return bad("--arcs " + text + ": an empty kind");
        options.arc_kinds.insert(kind);
      }
    } else if (arg == "--same-core-arcs") {
      options.same_core_arcs = true;
    } else if (arg == "--same-scale-as") {
      if (!value(same_scale_as)) return bad("--same-scale-as needs a trace file");
    } else if (arg == "--from") {
      if (!value(from_text)) return bad("--from needs a time");
    } else if (arg == "--to") {
      if (!value(to_text)) return bad("--to needs a time");
    } else if (arg == "--overhead") {
      if (!value(text)) return bad("--overhead needs total or detail");
      if (text != "total" && text != "detail") return bad("--overhead " + text + ": not one of total, detail");
      options.overhead_detail = text == "detail";
    } else if (arg == "--miss-range") {
      if (!value(text)) return bad("--miss-range needs MIN,MAX");
      const std::vector<std::string> bounds = split_list(text);
      char* end_min = nullptr;
      char* end_max = nullptr;
      const double min = bounds.size() == 2 ? std::strtod(bounds[0].c_str(), &end_min) : 0;
      const double max = bounds.size() == 2 ? std::strtod(bounds[1].c_str(), &end_max) : 0;
      if (bounds.size() != 2 || end_min == bounds[0].c_str() || *end_min != '\0' || end_max == bounds[1].c_str() ||
          *end_max != '\0' || !(min >= 0) || !(max > min)) {
        return bad("--miss-range " + text + ": must be MIN,MAX with 0 <= MIN < MAX");
      }
      options.miss_min = min;
      options.miss_max = max;
    } else if (arg.starts_with("-")) {
      return bad("unknown option '" + std::string(arg) + "'");
    } else if (!path.empty()) {
      return bad("one trace at a time");
    } else {
      path = arg;
    }
  }
  if (!same_scale_as.empty() && options.cycles_per_point > 0) return bad("--scale and --same-scale-as exclude each other");
  return drawing("scg", path, output, format, kScgUsage, [&](moirai::trace::Trace& trace) {
    if (!same_scale_as.empty()) {
      try {
        const moirai::trace::Trace other = moirai::trace::read_trace(same_scale_as);
        // The other graph's ticks per point, as seconds per point, in this trace's ticks.
        options.cycles_per_point = moirai::visualize::fit_cycles_per_point(other) / other.clock_hz * trace.clock_hz;
      } catch (const moirai::trace::TraceError& error) {
        throw std::invalid_argument("--same-scale-as " + same_scale_as + ": " + error.what());
      }
    }
    for (auto [flag, text, into] : {std::tuple{"--from", &from_text, &options.from}, std::tuple{"--to", &to_text, &options.to}}) {
      if (text->empty()) continue;
      *into = parse_time(*text, trace.clock_hz);
      if (!*into) throw std::invalid_argument(std::string(flag) + " " + *text + ": not a time (clock ticks, or a number with s, ms, us or ns)");
    }
    moirai::visualize::ScgLayout layout = moirai::visualize::layout_scg(trace, options);
    const std::string drawn = moirai::visualize::plural_text(layout.blocks.size(), "block") + " on " +
                              moirai::visualize::format_core_set(layout.cores) + ", " +
                              moirai::visualize::plural_text(layout.arcs.size(), "arc") +
                              (trace.units.empty() ? " (the trace has no units: an empty graph)" : "");
    const auto graph = moirai::visualize::scg_graph(layout, trace);
    // The graph holds copies of all it draws: the trace and the layout go before Graphviz lays it
    // out, which is when memory peaks.
    layout = {};
    trace = {};
    graph->render(format, output);
    std::cout << output << ": " << drawn << '\n';
  });
}

constexpr const char* kUccUsage = "usage: moirai ucc TRACE -o FILE [--weighted] [-T svg|png|dot]\n";

constexpr const char* kUccHelp =
    "\nDraws the Unit & Constraint Collection (paper sections 3.3.1 and 5.4.1): the constraints the\n"
    "program placed on its units, without the runtime's and the hardware's choices. Units go from\n"
    "top to bottom by their depth in the program's dependencies (a unit sits just below the\n"
    "deepest unit constraining it); simple constraints are lines coloured by construct, a VP's\n"
    "consecutive units are joined by a dashed line, and each complex constraint (a typed-send\n"
    "group, a singleton) is a diamond with lines in from the units whose calls affect it and out\n"
    "to the units it constrains, placed between the two so that every line points down. The\n"
    "critical path has a red rim; the legend gives the parallelism (total work / critical-path\n"
    "work). A row shows 48 units, the rest of it merged.\n\n"
    "  -o FILE       output file (required)\n"
    "  -T FORMAT     svg, png or dot; default: from -o's extension (.dot, .gv, .png), else svg\n"
    "  --weighted    boxes as tall as the unit's instructions (its cycles of work when the trace\n"
    "                has no instruction counter; the legend says which), placed by the weight\n"
    "                of the heaviest chain above them\n";

int ucc(const std::vector<std::string_view>& args) {
  std::string path, output, format;
  moirai::visualize::UccOptions options;
  const auto bad = [](const std::string& message) { return bad_input("ucc: " + message, kUccUsage); };
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string_view arg = args[i];
    std::string error;
    if (arg == "--help" || arg == "-h") {
      std::cout << kUccUsage << kUccHelp;
      return 0;
    } else if (output_option(args, i, output, format, error)) {
      if (!error.empty()) return bad(error);
    } else if (arg == "--weighted") {
      options.weighted = true;
    } else if (const std::string problem = trace_argument(arg, path); !problem.empty()) {
      return bad(problem);
    }
  }
  return drawing("ucc", path, output, format, kUccUsage, [&](const moirai::trace::Trace& trace) {
    const moirai::visualize::UccLayout layout = moirai::visualize::layout_ucc(trace, options);
    moirai::visualize::render_ucc(layout, format, output);
    using moirai::visualize::plural_text;
    std::cout << output << ": " << plural_text(trace.units.size(), "unit") << ", " << plural_text(layout.nodes.size(), "node")
              << ", " << plural_text(layout.arcs.size(), "arc") << ", parallelism " << layout.parallelism
              << (trace.units.empty() ? " (the trace has no units: an empty graph)" : "")
              << (layout.merged_units ? " (" + plural_text(layout.merged_units, "unit") + " merged into row nodes)" : "")
              << (layout.omitted_units ? " (" + plural_text(layout.omitted_units, "unit") + " too deep to draw)" : "")
              << '\n';
  });
}

constexpr const char* kExportUsage = "usage: moirai export TRACE --format otf2|perfetto|perfetto-json|sqlite -o OUT\n";

constexpr const char* kExportHelp =
    "\nWrites the trace for the tools people already use (docs/export.md):\n\n"
    "  --format otf2       an OTF2 archive for Vampir and the Score-P tools: OUT is a new (or\n"
    "                      empty) directory, its anchor file OUT/traces.otf2. A location per\n"
    "                      core, a region per life-line segment named by construct and call\n"
    "                      site, cross-core constraints as MPI messages, counters as metrics,\n"
    "                      user events as markers.\n"
    "  --format perfetto   Perfetto's protobuf trace for ui.perfetto.dev: a track per core with\n"
    "                      units and their overhead segments nested, a flow arrow per constraint,\n"
    "                      counter tracks, user events.\n"
    "  --format perfetto-json  the same as Chrome Trace Event JSON (also chrome://tracing), with a\n"
    "                      track per VP besides; several times larger.\n"
    "  --format sqlite     an SQLite database (OUT is replaced): cores, VPs, units with their\n"
    "                      life-line segments and counter deltas, constraints, idle spans with\n"
    "                      their cause, the report's hints, the metadata.\n"
    "  -o OUT              where to write (required)\n\n"
    "Times are nanoseconds since the run's first reading, converted from the trace's clock.\n"
    "Exit status: 0 done; 2 bad input (flags, a missing or corrupt trace, an OUT that cannot be\n"
    "written).\n";

int export_command(const std::vector<std::string_view>& args) {
  std::string path, output, format;
  const auto bad = [](const std::string& message) { return bad_input("export: " + message, kExportUsage); };
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string_view arg = args[i];
    if (arg == "--help" || arg == "-h") {
      std::cout << kExportUsage << kExportHelp;
      return 0;
    } else if (arg == "--format" || arg == "-o") {
      if (i + 1 >= args.size()) return bad(arg == "-o" ? "-o needs a file" : "--format needs otf2, perfetto or sqlite");
      (arg == "-o" ? output : format) = args[++i];
    } else if (const std::string problem = trace_argument(arg, path); !problem.empty()) {
      return bad(problem);
    }
  }
  using Exporter = moirai::visualize::ExportCounts (*)(const moirai::trace::Trace&, const std::string&);
  Exporter exporter = nullptr;
  const char* arcs = "";
  if (format == "otf2") {
    exporter = moirai::visualize::export_otf2;
    arcs = "messages (cross-core constraints)";
  } else if (format == "perfetto" || format == "perfetto-json") {
    exporter = format == "perfetto" ? moirai::visualize::export_perfetto_proto : moirai::visualize::export_perfetto;
    arcs = "flows";
  } else if (format == "sqlite") {
    exporter = moirai::visualize::export_sqlite;
    arcs = "constraints";
  } else if (format.empty()) {
    return bad("no format given (--format otf2, perfetto or sqlite)");
  } else {
    return bad("--format " + format + ": not one of otf2, perfetto, perfetto-json, sqlite");
  }
  if (path.empty()) return bad("no trace file given");
  if (output.empty()) return bad("no output given (-o OUT)");
  try {
    const moirai::trace::Trace trace = moirai::trace::read_trace(path);
    if (!trace.complete) std::cerr << "moirai: warning: " << path << ": " << trace.cut << '\n';
    const moirai::visualize::ExportCounts counts = exporter(trace, output);
    std::cout << output << ": " << format << ", " << counts.units << " units, " << counts.arcs << ' ' << arcs << ", "
              << counts.cross_core << " cross-core constraints, " << counts.bytes << " bytes";
    if (counts.unresolved) {
      std::cout << " (" << counts.unresolved << " constraints name a unit the trace lacks or point back in time: "
                << (format == "sqlite" ? "rows with resolved = 0)" : "left out)");
    }
    std::cout << '\n';
    return 0;
  } catch (const moirai::trace::TraceError& error) {
    std::cerr << "moirai: error: " << path << ": " << error.what() << '\n';
    return 2;
  } catch (const moirai::visualize::ExportError& error) {
    return bad(error.what());
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string_view> args(argv + 1, argv + argc);
  if (args.empty()) return bad_input("no command given (try 'moirai --help')", kUsage);
  const std::string_view command = args.front();
  args.erase(args.begin());
  if (command == "--help" || command == "-h" || command == "help") {
    std::cout << kHelp;
    return 0;
  }
  if (command == "stats") return trace_command("stats", args, kStatsHelp, print_stats);
  if (command == "report") {
    bool critical = false;
    return trace_command(
        "report", args, kReportHelp,
        [&](std::ostream& out, const std::string& path, const moirai::trace::Trace& trace, bool json) {
          (critical ? print_critical_path : print_report)(out, path, trace, json);
        },
        "--critical-path", &critical);
  }
  if (command == "scg") return scg(args);
  if (command == "ucc") return ucc(args);
  if (command == "sweep") return moirai::sweep::sweep_command(args);
  if (command == "export") return export_command(args);
  return bad_input("unknown command '" + std::string(command) + "' (try 'moirai --help')", kUsage);
}

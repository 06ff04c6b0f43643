// moirai: the command line front of the post-processor. Subcommands read trace files written
// by `APP --trace FILE` (`sweep` also runs the app, as child processes); they never link the runtime.
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "moirai/trace/reader.h"
#include "moirai/visualize/report.h"
#include "moirai/visualize/run_summary.h"
#include "moirai/visualize/scg.h"
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
    "  report TRACE [--json]  what caused the lost time: idle by cause, overhead, hints\n"
    "  sweep --param NAME=V1,V2,... -- COMMAND ARGS...\n"
    "                         run COMMAND once per value of {NAME}, record each run and\n"
    "                         compare them: table, CSV, plot, same-scale SCGs, best value\n\n"
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
using TracePrinter = void (*)(std::ostream&, const std::string& path, const moirai::trace::Trace&, bool json);

// trace_command is `moirai NAME TRACE [--json]`: the shape `stats` and `report` share.
int trace_command(const std::string& name, const std::vector<std::string_view>& args, const char* help,
                  TracePrinter print) {
  const std::string usage = "usage: moirai " + name + " TRACE [--json]\n";
  std::string path;
  bool json = false;
  for (std::string_view arg : args) {
    if (arg == "--help" || arg == "-h") {
      std::cout << help;
      return 0;
    }
    if (arg == "--json") {
      json = true;
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

constexpr const char* kReportHelp =
    "usage: moirai report TRACE [--json]\n\n"
    "Says where the run lost time and why: the makespan; work, overhead and idle per core; the\n"
    "overhead against the work and a verdict on the unit size (too small / fine / too big); a\n"
    "histogram of unit sizes; the idle time charged to the constraint whose satisfaction ended\n"
    "each idle period (construct and call site), or to 'nothing left to run'; and hints for the\n"
    "patterns of the paper's section 3.4 (unused cores, creator starvation, an idle tail, unit\n"
    "size, runtime-lock contention), each with its cores, times and call site.\n\n"
    "  --json   print the same numbers as one JSON object\n";

constexpr const char* kScgUsage =
    "usage: moirai scg TRACE -o FILE [-T svg|png|dot] [--scale CYCLES_PER_POINT] [--cores LIST]\n"
    "                  [--arcs LIST] [--same-core-arcs]\n";

constexpr const char* kScgHelp =
    "\nDraws the Scheduling Consequence Graph (paper section 3.3.2): one column per core, time\n"
    "going down, one block per unit (grey: runtime overhead, blue: work), and a line from the\n"
    "unit whose construct freed another unit to it, coloured by construct (create red,\n"
    "send_of_type_to green, singleton orange, send_from_to blue, send_of_type purple). Hover a\n"
    "block for its VP, call sites and cycles.\n\n"
    "  -o FILE              output file (required)\n"
    "  -T FORMAT            svg (default), png or dot\n"
    "  --scale N            clock ticks per point (1/72 inch); default: fit about 1600 points\n"
    "  --cores LIST         columns to draw, e.g. 0,2,3 (default all)\n"
    "  --arcs LIST          constructs whose arcs to draw (default: create_vp, send_from_to,\n"
    "                       send_of_type_to, send_of_type, singleton, singleton end)\n"
    "  --same-core-arcs     also draw arcs between units on one core\n";

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

int scg(const std::vector<std::string_view>& args) {
  std::string path, output, format = "svg";
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
    } else if (arg == "-o") {
      if (!value(output)) return bad("-o needs a file");
    } else if (arg == "-T") {
      if (!value(format)) return bad("-T needs a format");
      if (format != "svg" && format != "png" && format != "dot") return bad("-T " + format + ": not one of svg, png, dot");
    } else if (arg == "--scale") {
      if (!value(text)) return bad("--scale needs a number");
      char* end = nullptr;
      options.cycles_per_point = std::strtod(text.c_str(), &end);
      if (end == text.c_str() || *end != '\0' || !(options.cycles_per_point > 0)) {
        return bad("--scale " + text + ": must be a number above 0");
      }
    } else if (arg == "--cores") {
      if (!value(text)) return bad("--cores needs a list");
      for (const std::string& core : split_list(text)) {
        char* end = nullptr;
        const unsigned long number = std::strtoul(core.c_str(), &end, 10);
        if (core.empty() || *end != '\0') return bad("--cores " + text + ": '" + core + "' is not a core number");
        options.cores.push_back(static_cast<std::uint32_t>(number));
      }
    } else if (arg == "--arcs") {
      if (!value(text)) return bad("--arcs needs a list");
      for (const std::string& kind : split_list(text)) options.arc_kinds.insert(kind);
    } else if (arg == "--same-core-arcs") {
      options.same_core_arcs = true;
    } else if (arg.starts_with("-")) {
      return bad("unknown option '" + std::string(arg) + "'");
    } else if (!path.empty()) {
      return bad("one trace at a time");
    } else {
      path = arg;
    }
  }
  if (path.empty()) return bad("no trace file given");
  if (output.empty()) return bad("no output file given (-o FILE)");
  try {
    const moirai::trace::Trace trace = moirai::trace::read_trace(path);
    if (!trace.complete) std::cerr << "moirai: warning: " << path << ": " << trace.cut << '\n';
    const moirai::visualize::ScgLayout layout = moirai::visualize::layout_scg(trace, options);
    moirai::visualize::render_scg(layout, trace, format, output);
    std::cout << output << ": " << layout.blocks.size() << " blocks on " << layout.cores.size()
              << " cores, " << layout.arcs.size() << " arcs"
              << (trace.units.empty() ? " (the trace has no units: an empty graph)" : "") << '\n';
    return 0;
  } catch (const moirai::trace::TraceError& error) {
    std::cerr << "moirai: error: " << path << ": " << error.what() << '\n';
    return 2;
  } catch (const std::invalid_argument& error) {
    return bad(error.what());
  } catch (const std::runtime_error& error) {
    std::cerr << "moirai: error: scg: " << error.what() << '\n';
    return 1;
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
  if (command == "report") return trace_command("report", args, kReportHelp, print_report);
  if (command == "scg") return scg(args);
  if (command == "sweep") return moirai::sweep::sweep_command(args);
  return bad_input("unknown command '" + std::string(command) + "' (try 'moirai --help')", kUsage);
}

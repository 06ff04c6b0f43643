// moirai: the command line front of the post-processor. Subcommands read trace files written
// by `APP --trace FILE`; they never run or link the runtime.
#include <cstring>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "moirai/trace/reader.h"
#include "moirai/visualize/run_summary.h"

namespace {

constexpr const char* kUsage = "usage: moirai <command> [options]\n";

constexpr const char* kHelp =
    "moirai: read the traces Moirai's runtime records (APP --trace FILE) and say where the\n"
    "time went.\n\n"
    "commands:\n"
    "  stats TRACE [--json]   cores, VPs, units, constraints by kind, per-core time by\n"
    "                         life-line segment, counters, recording cost and integrity\n\n"
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

int stats(const std::vector<std::string_view>& args) {
  std::string path;
  bool json = false;
  for (std::string_view arg : args) {
    if (arg == "--help" || arg == "-h") {
      std::cout << kStatsHelp;
      return 0;
    }
    if (arg == "--json") {
      json = true;
    } else if (arg.starts_with("-")) {
      return bad_input("stats: unknown option '" + std::string(arg) + "'", "usage: moirai stats TRACE [--json]\n");
    } else if (!path.empty()) {
      return bad_input("stats: one trace at a time ('" + path + "' and '" + std::string(arg) + "')",
                       "usage: moirai stats TRACE [--json]\n");
    } else {
      path = arg;
    }
  }
  if (path.empty()) return bad_input("stats: no trace file given", "usage: moirai stats TRACE [--json]\n");
  try {
    const moirai::trace::Trace trace = moirai::trace::read_trace(path);
    const moirai::visualize::RunSummary summary = moirai::visualize::summarize(trace);
    if (json) {
      moirai::visualize::print_summary_json(std::cout, path, trace, summary);
    } else {
      moirai::visualize::print_summary(std::cout, path, trace, summary);
    }
    if (!trace.complete) std::cerr << "moirai: warning: " << path << ": " << trace.cut << '\n';
    return 0;
  } catch (const moirai::trace::TraceError& error) {
    std::cerr << "moirai: error: " << path << ": " << error.what() << '\n';
    return 2;
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
  if (command == "stats") return stats(args);
  return bad_input("unknown command '" + std::string(command) + "' (try 'moirai --help')", kUsage);
}

// moirai: the command line front of the post-processor. Subcommands read trace files written
// by `APP --trace FILE` (`sweep` also runs the app, as child processes; `record` runs an OpenMP
// program with the OpenMP tool loaded). Only `replay` runs the runtime: a trace's units on its
// simulated machine, through replay/; the views never link it.
// This file only dispatches: each subcommand is a file of its own (NAME_command.cpp, sweep's in
// tools/sweep/), its command line a CLI11 app (command.h), what it prints going through
// OutputTarget.
#include <functional>
#include <iostream>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "export_command.h"
#include "mpi_merge_command.h"
#include "output_target.h"
#include "record_command.h"
#include "replay_command.h"
#include "report_command.h"
#include "scg_command.h"
#include "stats_command.h"
#include "sweep_command.h"
#include "trace_input.h"
#include "ucc_command.h"

namespace {

using moirai::tools::UnreadableTrace;

constexpr const char* kUsage = "usage: moirai <command> [options]\n";

constexpr const char* kHelp =
    "moirai: read the traces Moirai's runtime records (APP --trace FILE) and say where the\n"
    "time went.\n\n"
    "commands:\n"
    "  stats TRACE [--json]   cores, VPs, units, constraints by kind, per-core time by\n"
    "                         life-line segment, counters, recording cost and integrity\n"
    "  scg TRACE -o FILE      the Scheduling Consequence Graph as SVG (or PNG, PDF, DOT)\n"
    "  ucc TRACE -o FILE      the Unit & Constraint Collection: the parallelism the program\n"
    "                         allows, as SVG (or PNG, PDF, DOT)\n"
    "  report TRACE [--json]  what caused the lost time: idle by cause, overhead, hints\n"
    "  sweep --param NAME=V1,V2,... -- COMMAND ARGS...\n"
    "                         run COMMAND once per value of {NAME}, record each run and\n"
    "                         compare them: table, CSV, plot, same-scale SCGs, best value\n"
    "  export TRACE --format otf2|perfetto|perfetto-json|sqlite -o OUT\n"
    "                         the trace for Vampir (OTF2), Perfetto (protobuf or JSON) or SQL\n"
    "  record [-o FILE] [--counters LIST] -- PROGRAM ARGS...\n"
    "                         run an OpenMP program (clang -fopenmp, LLVM's libomp) with\n"
    "                         Moirai's OpenMP tool loaded and keep its trace\n"
    "  mpi-merge DIR -o TRACE [--eager-limit BYTES]\n"
    "                         merge the rank logs an MPI job wrote into one trace\n"
    "  replay TRACE --machine sim:N [--trace OUT]\n"
    "                         the what-if: the recorded units and constraints run again on\n"
    "                         a simulated machine, recorded as an ordinary trace\n\n"
    "Options every command shares: -o/--output FILE ('-': standard output, where the output is\n"
    "one file), -T/--format FORMAT, --json (the summary as one JSON object), -h/--help.\n"
    "'moirai COMMAND --help' describes a command; 'moirai --version' prints the version.\n"
    "Exit status: 0 done, 1 a write or the run failed (a full disk, out of memory), 2 bad input\n"
    "(flags or their values, a missing, empty or corrupt trace, an output that names an input).\n";

// bad_input says `message` and `usage` on stderr: exit 2.
int bad_input(const std::string& message, std::string_view usage) {
  std::cout.flush();
  std::cerr << "moirai: error: " << message << '\n' << usage;
  return 2;
}

// run_command runs one subcommand and maps its failures to exit codes: bad input 2, a write
// that failed 1.
int run_command(std::string_view name, std::string_view usage, const std::function<int()>& body) {
  const std::string prefix = std::string(name) + ": ";
  try {
    const int code = body();
    moirai::cli::check_stdout();
    return code;
  } catch (const std::invalid_argument& error) {
    return bad_input(prefix + error.what(), usage);
  } catch (const UnreadableTrace& error) {
    std::cerr << "moirai: error: " << error.what() << '\n';
    return 2;
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::runtime_error& error) {
    std::cerr << "moirai: error: " << prefix << error.what() << '\n';
    return 1;
  }
}

}  // namespace

int main(int argc, char** argv) {
  try {
    std::vector<std::string_view> args(argv + 1, argv + argc);
    if (args.empty()) return bad_input("no command given (try 'moirai --help')", kUsage);
    const std::string_view command = args.front();
    args.erase(args.begin());
    using Subcommand = int (*)(const std::vector<std::string_view>&);
    Subcommand chosen = nullptr;
    static const std::vector<std::pair<std::string_view, Subcommand>> kCommands = {{"stats", moirai::cli::stats_command},   {"report", moirai::cli::report_command},
        {"scg", moirai::cli::scg_command},       {"ucc", moirai::cli::ucc_command},
        {"export", moirai::cli::export_command}, {"sweep", moirai::sweep::sweep_command},
        {"record", moirai::cli::record_command}, {"replay", moirai::cli::replay_command},
        {"mpi-merge", moirai::cli::mpi_merge_command}};
    for (const auto& [name, run] : kCommands) {
      if (name == command) chosen = run;
    }
    if (command == "--help" || command == "-h" || command == "help") {
      std::cout << kHelp;
    } else if (command == "--version") {
      std::cout << "moirai " << MOIRAI_VERSION_TEXT << '\n';
    } else if (chosen == nullptr) {
      return bad_input("unknown command '" + std::string(command) + "' (try 'moirai --help')", kUsage);
    } else {
      const std::string usage = "usage: moirai " + std::string(command) + " ... ('moirai " + std::string(command) + " --help' says more)\n";
      return run_command(command, usage, [&] { return chosen(args); });
    }
    moirai::cli::check_stdout();
    return 0;
  } catch (const std::bad_alloc& error) {
    std::cerr << "moirai: error: out of memory: " << error.what() << '\n';
    return 1;
  } catch (const std::exception& error) {
    std::cerr << "moirai: error: " << error.what() << '\n';
    return 1;
  }
}

// Command: a `moirai` subcommand's command line (a CLI11 app with the trace it reads and the
// options every command shares), and what the subcommands share around it: the trace read with
// its checks, the text written to `-o`, the summary line.
#pragma once

#include <functional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "moirai/trace/reader.h"
#include "output_target.h"

namespace moirai::cli {

// BadInput is input the command refuses: exit 2 with the message and the command's usage.
class BadInput : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Command is one subcommand's command line: its CLI11 app, the trace it reads and the options
// every command shares.
struct Command {
  std::string name;
  std::string usage;
  CLI::App cli;
  std::string trace;
  std::string output;
  bool json = false;

  // Command sets up `moirai NAME`: `usage_text` and `prose` head its --help, `footer` (and the
  // exit statuses) end it; the TRACE argument is declared.
  Command(std::string command, std::string usage_text, const std::string& prose, const std::string& footer = {});
  // output_option declares -o/--output with `help`.
  CLI::Option* output_option(const std::string& help);
  // json_option declares --json with `help`.
  void json_option(const std::string& help);
  // parse reads the arguments; returns false when --help was asked (and printed). Throws
  // BadInput for an unknown option, a second trace, no trace or an option given an empty value.
  bool parse(const std::vector<std::string_view>& args);
};

// read_trace_input is the trace a command reads; a cut trace, and what the reader left out, is
// said on stderr. Throws tools::UnreadableTrace (bad input), or tools::TraceDoesNotFit (a failed
// run, exit 1) for a trace that does not fit in memory.
trace::Trace read_trace_input(const std::string& path);

// print_text writes what `print` prints to the output `-o` names (standard output by default).
void print_text(const Command& command, const std::function<void(std::ostream&)>& print);

// print_summary prints a command's summary on stdout (stderr when the output went there):
// `fields` as JSON with --json, else "OUTPUT: `line`".
void print_summary(const Command& command, const OutputTarget& target, const std::string& line, nlohmann::json fields);

}  // namespace moirai::cli

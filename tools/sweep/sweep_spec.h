// What a sweep runs: one parameter, its values, and the command with `{NAME}` placeholders.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace moirai::sweep {

// UsageError is bad sweep input (a flag, the parameter, the command): exit 2 with its message.
class UsageError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// SweepSpec is the parsed `moirai sweep` command line.
struct SweepSpec {
  std::string name;                  // the parameter, written {name} in the command
  std::vector<std::string> values;   // in the order given, each once
  unsigned repeat = 1;               // runs per value; the median makespan is kept
  std::string out_dir;               // traces, logs, SCGs, sweep.csv, sweep.svg
  double cycles_per_point = 0;       // the SCGs' common scale; 0 = fit the longest run
  double timeout_s = 0;              // per run; 0 = no limit
  std::vector<std::string> command;  // program and arguments, placeholders unreplaced
  bool json = false;                 // --json: the results as one JSON object on stdout
  bool help = false;                 // --help was asked: nothing else is checked
};

// parse_sweep_spec reads the arguments after `moirai sweep`; throws UsageError naming the
// flag or argument at fault.
SweepSpec parse_sweep_spec(const std::vector<std::string_view>& args);

// run_command is the command of one run: every {name} replaced by `value`, and the trace
// path put in place of {trace}, or appended as `--trace PATH` when there is no {trace}.
std::vector<std::string> run_command(const SweepSpec& spec, const std::string& value, const std::string& trace_path);

// run_stem is the file name stem of one run, "NAME-VALUE" (with "-rK" for repeat K of several),
// with characters unsafe in a file name replaced by '_'.
std::string run_stem(const SweepSpec& spec, const std::string& value, unsigned repeat);

// kSweepUsage is the one-line usage; kSweepHelp the full description printed by --help.
extern const char* const kSweepUsage;
extern const char* const kSweepHelp;

}  // namespace moirai::sweep

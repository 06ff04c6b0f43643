#include "sweep_spec.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <iterator>
#include <set>

#include <CLI/CLI.hpp>

#include "moirai/trace/number_text.h"

namespace moirai::sweep {

const char* const kSweepUsage =
    "usage: moirai sweep --param NAME=V1,V2,... [--repeat K] [--out DIR] [--scale N] [--timeout S] [--json]\n"
    "                    -- COMMAND ARGS...\n";

const char* const kSweepHelp =
    "\nRuns COMMAND once per value of one parameter, records each run and compares them: the\n"
    "work-unit size tuning of the paper's section 3.4. Every '{NAME}' in COMMAND and its\n"
    "arguments becomes the value; each run records a trace: '{trace}' becomes its path, or,\n"
    "without '{trace}', '--trace PATH' is appended (every Moirai app takes it). Commands run\n"
    "directly (no shell); quote a shell pipeline as -- sh -c '...'.\n\n"
    "  --param NAME=V1,V2,...  the parameter and its values, in the order to plot them\n"
    "  --repeat K              run each value K times and keep the run with the median\n"
    "                          makespan (the lower median for even K); default 1\n"
    "  --out DIR               output directory, created if missing; default sweep-NAME\n"
    "  --scale N               clock ticks per point for every SCG; default: the longest run\n"
    "                          fits about 1600 points, so all SCGs share one scale\n"
    "  --timeout S             kill a run after S seconds and count it as failed; default none\n"
    "                          (at most 1e7)\n"
    "  --json                  print the table, the best value and the files as one JSON object\n"
    "                          instead of text: parameter, command, repeat,\n"
    "                          values (each with its runs), best, scale, csv, plot\n\n"
    "In DIR: NAME-VALUE.mtrace (the trace), NAME-VALUE.log (the run's stderr), NAME-VALUE.out\n"
    "(its stdout), NAME-VALUE-scg.svg (its SCG; with --repeat, -rK before the suffix names\n"
    "repeat K and the SCG is drawn for the median run), sweep.csv and sweep.svg (makespan and\n"
    "overhead share against the parameter). stdout gets the table: value, makespan, work /\n"
    "overhead / idle as % of makespan x cores, units, mean unit size (work per unit) and the\n"
    "report's top hint; then the best value: the smallest makespan, the first value given\n"
    "among equal ones. A progress bar is drawn on stderr when it is a terminal, else one line\n"
    "per run.\n\n"
    "A run fails when it exits non-zero or by a signal, times out, or leaves no trace or one\n"
    "that is unreadable, cut short or holds no units; its exit status and the last lines of its\n"
    "stderr are printed and the sweep goes on. A value with several repeats keeps the median of\n"
    "its runs that succeeded, and fails only if all did.\n\n"
    "Exit status: 0 when at least one value succeeded, 1 when every run failed, 2 bad input\n"
    "(no or malformed --param, a command without '{NAME}', nothing after '--', --repeat 0,\n"
    "an unknown flag).\n\n"
    "examples:\n"
    "  moirai sweep --param pieces=4,8,16,32 --repeat 3 -- \\\n"
    "      build/release/apps/matmul/matmul --size 384 --pieces {pieces}\n"
    "  moirai sweep --param pieces=40,80,160,320 -- \\\n"
    "      build/release/apps/matmul/matmul --machine sim:40 --pieces {pieces}\n";

namespace {

bool is_name(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

void replace_all(std::string& text, const std::string& what, const std::string& with) {
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + with.size())) {
    text.replace(at, what.size(), with);
  }
}

double positive_number(const std::string& flag, const std::string& text, double most) {
  char* end = nullptr;
  errno = 0;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || errno != 0 || !(value > 0) || !std::isfinite(value)) {
    throw UsageError(flag + " " + text + ": must be a number above 0");
  }
  if (value > most) {
    throw UsageError(flag + " " + text + ": must be at most " + trace::number_text(most, "%g"));
  }
  return value;
}

// set_param reads --param NAME=V1,V2,... into the spec.
void set_param(SweepSpec& spec, const std::string& text) {
  const std::size_t eq = text.find('=');
  if (eq == std::string::npos) throw UsageError("--param " + text + ": expected NAME=V1,V2,... (no '=')");
  spec.name = text.substr(0, eq);
  if (!is_name(spec.name)) {
    throw UsageError("--param " + text + ": the name '" + spec.name + "' must be letters, digits, '_' or '-'");
  }
  if (spec.name == "trace") throw UsageError("--param " + text + ": 'trace' is reserved for {trace}, the trace path");
  const std::string list = text.substr(eq + 1);
  if (list.empty()) throw UsageError("--param " + text + ": no values after '='");
  std::set<std::string> seen;
  std::size_t start = 0;
  for (std::size_t k = 1; start <= list.size(); ++k) {
    const std::size_t comma = std::min(list.find(',', start), list.size());
    const std::string v = list.substr(start, comma - start);
    if (v.empty()) throw UsageError("--param " + text + ": value " + std::to_string(k) + " is empty");
    if (!seen.insert(v).second) throw UsageError("--param " + text + ": value '" + v + "' is given twice");
    spec.values.push_back(v);
    start = comma + 1;
  }
}

}  // namespace

SweepSpec parse_sweep_spec(const std::vector<std::string_view>& args) {
  SweepSpec spec;
  // The command after '--' is the program's, never parsed here.
  const auto separator = std::find(args.begin(), args.end(), "--");
  for (auto it = args.begin(); it != separator; ++it) {
    if (*it == "--help" || *it == "-h") {
      spec.help = true;
      return spec;
    }
  }
  CLI::App cli("moirai sweep");
  cli.allow_extras();
  cli.set_help_flag();
  // Each value flag takes 0 or 1 value, so a flag given without one reaches the check below; a
  // string (not a vector) takes one value, so a stray word after it is left over, not taken.
  std::string param, repeat, out, scale, timeout;
  const std::vector<std::pair<const char*, std::string*>> valued = {
      {"--param", &param}, {"--repeat", &repeat}, {"--out", &out}, {"--scale", &scale}, {"--timeout", &timeout}};
  for (const auto& [flag, into] : valued) {
    cli.add_option(flag, *into)->expected(0, 1)->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  }
  cli.add_flag("--json", spec.json);
  std::vector<std::string> reversed(std::make_reverse_iterator(separator), args.rend());
  try {
    cli.parse(reversed);
  } catch (const CLI::ParseError& error) {
    throw UsageError(error.what());
  }
  if (!cli.remaining().empty()) {
    const std::string extra = cli.remaining().front();
    if (extra.starts_with("-")) throw UsageError("unknown option '" + extra + "'");
    throw UsageError("unexpected '" + extra + "' before '--' (the command to run goes after '--')");
  }
  std::vector<std::string> given;  // the value flags given, in order of the table above
  for (const auto& [flag, into] : valued) {
    if (cli.get_option(flag)->count() == 0) continue;
    const bool given_empty = std::find(args.begin(), separator, std::string(flag) + "=") != separator;
    if (into->empty() && !given_empty) throw UsageError(std::string(flag) + " needs a value");
    given.push_back(flag);
  }
  const auto was_given = [&](const char* flag) { return std::find(given.begin(), given.end(), flag) != given.end(); };
  if (cli.get_option("--param")->count() > 1) throw UsageError("--param given twice: a sweep varies one parameter");
  if (was_given("--param")) set_param(spec, param);
  if (was_given("--repeat")) {
    const std::string& text = repeat;
    char* end = nullptr;
    errno = 0;
    const long long k = std::strtoll(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || errno != 0 || k < 1 || k > 1000) {
      throw UsageError("--repeat " + text + ": must be a whole number from 1 to 1000");
    }
    spec.repeat = static_cast<unsigned>(k);
  }
  if (was_given("--out")) {
    spec.out_dir = out;
    if (spec.out_dir.empty()) throw UsageError("--out needs a directory");
  }
  if (was_given("--scale")) spec.cycles_per_point = positive_number("--scale", scale, 1e15);
  if (was_given("--timeout")) spec.timeout_s = positive_number("--timeout", timeout, 1e7);
  if (!was_given("--param")) throw UsageError("no --param NAME=V1,V2,... given");
  if (separator == args.end()) throw UsageError("no '--' followed by the command to run");
  spec.command.assign(separator + 1, args.end());
  if (spec.command.empty()) throw UsageError("no command after '--'");
  const std::string placeholder = "{" + spec.name + "}";
  bool placed = false, has_trace_slot = false, has_trace_flag = false;
  for (const std::string& word : spec.command) {
    placed = placed || word.find(placeholder) != std::string::npos;
    has_trace_slot = has_trace_slot || word.find("{trace}") != std::string::npos;
    has_trace_flag = has_trace_flag || word == "--trace";
  }
  if (!placed) {
    throw UsageError("the command has no " + placeholder + " placeholder: every run would be the same (e.g. --pieces " +
                     placeholder + ")");
  }
  if (has_trace_flag && !has_trace_slot) {
    throw UsageError("the command passes --trace itself: write '--trace {trace}' so each run gets its own trace");
  }
  if (spec.out_dir.empty()) spec.out_dir = "sweep-" + spec.name;
  return spec;
}

std::vector<std::string> run_command(const SweepSpec& spec, const std::string& value, const std::string& trace_path) {
  std::vector<std::string> command = spec.command;
  bool has_trace_slot = false;
  for (std::string& word : command) {
    has_trace_slot = has_trace_slot || word.find("{trace}") != std::string::npos;
    replace_all(word, "{" + spec.name + "}", value);
    replace_all(word, "{trace}", trace_path);
  }
  if (!has_trace_slot) {
    command.push_back("--trace");
    command.push_back(trace_path);
  }
  return command;
}

std::string run_stem(const SweepSpec& spec, const std::string& value, unsigned repeat) {
  std::string stem = spec.name + "-" + value;
  for (char& c : stem) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                    c == '-' || c == '.' || c == '+';
    if (!ok) c = '_';
  }
  if (spec.repeat > 1) stem += "-r" + std::to_string(repeat);
  return stem;
}

}  // namespace moirai::sweep

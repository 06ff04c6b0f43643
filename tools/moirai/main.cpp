// moirai: the command line front of the post-processor. Subcommands read trace files written
// by `APP --trace FILE` (`sweep` also runs the app, as child processes; `record` runs an OpenMP
// program with the OpenMP tool loaded). Only `replay` runs the runtime: a trace's units on its
// simulated machine, through replay/; the views never link it.
// Each subcommand's command line is a CLI11 app; what it prints goes through OutputTarget.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iomanip>
#include <iostream>
#include <memory>
#include <new>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "moirai/instrument/trace_recorder.h"
#include "moirai/proto_runtime/errors.h"
#include "moirai/replay/loss_check.h"
#include "moirai/replay/replay.h"
#include "moirai/trace/number_text.h"
#include "moirai/trace/reader.h"
#include "moirai/visualize/views/core_set.h"
#include "moirai/visualize/analyses/critical_path.h"
#include "moirai/visualize/export/export.h"
#include "moirai/visualize/analyses/report.h"
#include "moirai/visualize/analyses/run_summary.h"
#include "moirai/visualize/views/scg.h"
#include "moirai/visualize/views/ucc.h"
#include "output_target.h"
#include "record_command.h"
#include "sweep_command.h"
#include "trace_input.h"

namespace {

using moirai::cli::OutputTarget;
using json = nlohmann::json;
using moirai::trace::fixed;
using moirai::trace::number_text;

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
    "  replay TRACE --machine sim:N [--trace OUT]\n"
    "                         the what-if: the recorded units and constraints run again on\n"
    "                         a simulated machine, recorded as an ordinary trace\n\n"
    "Options every command shares: -o/--output FILE ('-': standard output, where the output is\n"
    "one file), -T/--format FORMAT, --json (the summary as one JSON object), -h/--help.\n"
    "'moirai COMMAND --help' describes a command; 'moirai --version' prints the version.\n"
    "Exit status: 0 done, 1 a write or the run failed (a full disk, out of memory), 2 bad input\n"
    "(flags or their values, a missing, empty or corrupt trace, an output that names an input).\n";

constexpr const char* kExitStatus =
    "Exit status: 0 done; 1 the output could not be written (a full disk, a closed pipe) or\n"
    "memory ran out; 2 bad input (flags or their values, a missing, empty or corrupt trace, an\n"
    "output that names the input or lies in a missing directory).";

// BadInput is input the command refuses: exit 2 with the message and the command's usage.
class BadInput : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// UnreadableTrace is a trace that cannot be read: exit 2 with its path and the reader's message.
using moirai::tools::UnreadableTrace;

// HelpFormatter prints CLI11's option table under the command's own usage lines and prose.
class HelpFormatter : public CLI::Formatter {
 public:
  explicit HelpFormatter(std::string usage) : usage_(std::move(usage)) {}
  std::string make_help(const CLI::App* app, std::string, CLI::AppFormatMode mode) const override {
    std::string groups = make_groups(app, mode);
    groups.erase(0, groups.find_first_not_of('\n'));  // its leading blank lines vary with the positionals
    return usage_ + app->get_description() + "\n\n" + groups + "\n" + make_footer(app);
  }

 private:
  std::string usage_;
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

  Command(std::string command, std::string usage_text, const std::string& prose, const std::string& footer = {})
      : name(std::move(command)), usage(std::move(usage_text)), cli(prose, "moirai " + name) {
    cli.allow_extras();  // reported in this tool's words by parse
    cli.set_help_flag("-h,--help", "print this help and exit");
    cli.formatter(std::make_shared<HelpFormatter>(usage));
    cli.get_formatter()->column_width(24);
    cli.footer(footer.empty() ? std::string(kExitStatus) : footer + "\n\n" + kExitStatus);
    cli.add_option("TRACE", trace, "the trace file (APP --trace FILE)");
  }
  CLI::Option* output_option(const std::string& help) { return cli.add_option("-o,--output", output, help)->type_name("FILE"); }
  void json_option(const std::string& help) { cli.add_flag("--json", json, help); }

  // parse reads the arguments; returns false when --help was asked (and printed).
  bool parse(const std::vector<std::string_view>& args) {
    std::vector<std::string> reversed(args.rbegin(), args.rend());
    try {
      cli.parse(reversed);
    } catch (const CLI::CallForHelp&) {
      std::cout << cli.help();
      return false;
    } catch (const CLI::ParseError& error) {
      throw BadInput(error.what());
    }
    if (!cli.remaining().empty()) {
      const std::string extra = cli.remaining().front();
      if (extra.starts_with("-") && extra != "-") throw BadInput("unknown option '" + extra + "'");
      throw BadInput("one trace at a time ('" + trace + "' and '" + extra + "')");
    }
    if (trace.empty()) throw BadInput("no trace file given");
    // An option given an empty value (--cores '') would read as one not given, and
    // the command would quietly do its default: the value is refused instead.
    for (const CLI::Option* option : cli.get_options()) {
      if (!option->nonpositional() || option->get_items_expected_max() == 0 || option->count() == 0) continue;
      const std::vector<std::string>& given = option->results();
      if (std::any_of(given.begin(), given.end(), [](const std::string& value) { return value.empty(); })) {
        throw BadInput(option->get_name() + ": an empty " + option->get_type_name() +
                       " (leave the option out for its default)");
      }
    }
    return true;
  }
};

// read is the trace a command reads; a cut trace, and what the reader left out, is said on stderr.
// (A trace that does not fit in memory is a failed run, exit 1: TraceDoesNotFit is a runtime_error.)
moirai::trace::Trace read(const std::string& path) { return moirai::tools::read_checked_trace(path, "moirai", std::cerr); }

// summary_stream is where a command's one-line summary goes: stdout, unless the output itself
// went there.
std::ostream& summary_stream(const OutputTarget& target) { return target.to_stdout() ? std::cerr : std::cout; }

// print_text writes what `print` prints to the output `-o` names (standard output by default).
void print_text(const Command& command, const std::function<void(std::ostream&)>& print) {
  OutputTarget target("-o", command.output.empty() ? "-" : command.output, OutputTarget::Kind::file, {command.trace});
  if (target.to_stdout()) {
    print(std::cout);
    moirai::cli::check_stdout();
    return;
  }
  {
    std::ofstream out(target.path(), std::ios::binary | std::ios::trunc);
    print(out);
    out.close();
    if (!out) throw std::runtime_error("cannot write " + target.shown());
  }
  target.commit();
}

int stats(const std::vector<std::string_view>& args) {
  Command command("stats", "usage: moirai stats TRACE [--json] [-o FILE]\n\n",
                  "Summarises a trace: cores, VPs, units, constraints by kind, per-core time split into work,\n"
                  "state-update communication (with runtime-lock wait), constraint update, decision to animate\n"
                  "and idle; the counters recorded and those the machine lacked; the recorder's own cost; and\n"
                  "integrity (chunks, bytes, records, events dropped, where a cut trace ends).");
  command.json_option("print the same numbers as one JSON object");
  command.output_option("write to FILE instead of standard output ('-')");
  if (!command.parse(args)) return 0;
  const moirai::trace::Trace trace = read(command.trace);
  const moirai::visualize::RunSummary summary = moirai::visualize::summarize(trace);
  print_text(command, [&](std::ostream& out) {
    if (command.json) {
      moirai::visualize::print_summary_json(out, command.trace, trace, summary);
    } else {
      moirai::visualize::print_summary(out, command.trace, trace, summary);
    }
  });
  return 0;
}

// check_losses_by_replay holds each hint's claimed loss to the gain replay measures without its
// cause (replay/loss_check.h).
std::vector<moirai::replay::LossCheck> check_losses_by_replay(const moirai::trace::Trace& trace, const moirai::visualize::Report& report,
                                                              const std::string& model_path) {
  moirai::proto::CostModel costs = moirai::proto::CostModel::default_model();
  try {
    if (!model_path.empty()) costs = moirai::proto::CostModel::load(model_path);
  } catch (const moirai::proto::ConfigError& error) {
    throw BadInput(error.what());
  }
  std::vector<moirai::replay::ClaimedLoss> claims;
  for (const moirai::visualize::Hint& hint : report.hints) claims.push_back({hint.rule, hint.site, hint.units, hint.construct, hint.lost});
  try {
    return moirai::replay::check_losses(trace, claims, costs);
  } catch (const moirai::replay::ReplayError& error) {
    throw UnreadableTrace(std::string("cannot replay: ") + error.what());
  }
}

// print_loss_checks prints each hint's claimed loss beside its replayed gain.
void print_loss_checks(std::ostream& out, const moirai::trace::Trace& trace, const moirai::visualize::Report& report,
                       const std::vector<moirai::replay::LossCheck>& checks, bool as_json) {
  if (as_json) {
    json rows = json::array();
    for (std::size_t i = 0; i < checks.size(); ++i) {
      const moirai::replay::LossCheck& c = checks[i];
      json row{{"rule", report.hints[i].rule}, {"site", report.hints[i].site}, {"claimed_ms", c.claimed_ms}};
      if (c.cause.cause != moirai::replay::Cause::none) {
        row["remove_cause"] = moirai::replay::cause_text(c.cause);
        row["gained_ms"] = c.gained_ms;
        row["agree"] = c.agrees();
      }
      rows.push_back(row);
    }
    out << json{{"cores", trace.core_count}, {"agreement", moirai::replay::kLossAgreement}, {"checks", rows}}.dump() << '\n';
    return;
  }
  out << "losses checked by replay: the run replayed on sim:" << trace.core_count
      << " as recorded, and again with each hint's cause taken away (docs/replay.md); core time in ms,\n"
      << "agreeing where the claimed loss and the replayed gain lie within " << moirai::replay::kLossAgreement * 100 << " % of each other\n";
  if (checks.empty()) out << "  no hints to check\n";
  std::ostringstream line;
  line << std::fixed << std::setprecision(3);
  for (std::size_t i = 0; i < checks.size(); ++i) {
    const moirai::replay::LossCheck& c = checks[i];
    line.str("");
    line << "  [" << report.hints[i].rule << "] claims " << c.claimed_ms;
    if (c.cause.cause == moirai::replay::Cause::none) {
      line << "; no what-if for this rule yet";
    } else {
      const double gained = std::abs(c.gained_ms) < 5e-4 ? 0.0 : c.gained_ms;  // no "-0.000"
      line << "; --remove-cause " << moirai::replay::cause_text(c.cause) << " gains " << gained << ": "
           << (c.agrees() ? "agree" : "disagree");
    }
    out << line.str() << '\n';
  }
}

int report(const std::vector<std::string_view>& args) {
  Command command("report", "usage: moirai report TRACE [--json] [--critical-path | --check-losses [--cost-model MODEL]] [-o FILE]\n\n",
                  "Says where the run lost time and why: the makespan; work, overhead and idle per core; the\n"
                  "overhead against the work and a verdict on the unit size (too small / fine / too big); a\n"
                  "histogram of unit sizes; the critical path of the program's dependencies (its work against\n"
                  "the makespan, the constructs on it) and the parallelism (total work / critical-path work);\n"
                  "the idle time charged to the constraint whose satisfaction ended\n"
                  "each idle period (construct and call site), or to 'nothing left to run'; and hints for the\n"
                  "patterns of the paper's section 3.4 (unused cores, creator starvation, an idle tail, unit\n"
                  "size, runtime-lock contention), each with its cores, times and call site.");
  bool critical = false, check_losses = false;
  std::string model_path;
  command.json_option("print the same numbers as one JSON object");
  command.cli.add_flag("--check-losses", check_losses,
                       "check each hint's claimed loss by replay (docs/replay.md): the run replayed on a simulated "
                       "machine of its cores as recorded, and again with the hint's cause taken away "
                       "(moirai replay --remove-cause); prints the claimed loss beside the replayed gain");
  command.cli.add_option("--cost-model", model_path, "with --check-losses: the runtime's costs for the replays")
      ->type_name("MODEL");
  command.cli.add_flag("--critical-path", critical,
                       "list the critical path instead, unit by unit in order: unit, VP, core, work, the arc it was "
                       "reached by, the construct and call site that began and ended it (their work adds up to the "
                       "report's critical-path work)");
  command.output_option("write to FILE instead of standard output ('-')");
  if (!command.parse(args)) return 0;
  if (!model_path.empty() && !check_losses) throw BadInput("--cost-model is for --check-losses");
  if (critical && check_losses) throw BadInput("--critical-path and --check-losses: one at a time");
  const moirai::trace::Trace trace = read(command.trace);
  if (critical) {
    const moirai::visualize::CriticalPathListing listing = moirai::visualize::list_critical_path(trace);
    print_text(command, [&](std::ostream& out) {
      if (command.json) {
        moirai::visualize::print_critical_path_json(out, listing);
      } else {
        moirai::visualize::print_critical_path(out, listing);
      }
    });
    return 0;
  }
  const moirai::visualize::Report built = moirai::visualize::build_report(trace);
  if (check_losses) {
    const std::vector<moirai::replay::LossCheck> checks = check_losses_by_replay(trace, built, model_path);
    print_text(command, [&](std::ostream& out) { print_loss_checks(out, trace, built, checks, command.json); });
    return 0;
  }
  print_text(command, [&](std::ostream& out) {
    if (command.json) {
      moirai::visualize::print_report_json(out, trace, built);
    } else {
      moirai::visualize::print_report(out, trace, built);
    }
  });
  return 0;
}

// Limits on the numbers a view's flags take: beyond them a conversion to ticks would overflow.
constexpr double kMaxTicks = 1.8e19;  // below 2^64
constexpr double kMaxScale = 1e15;    // clock ticks per point

// positive_finite reads all of `text` as a finite number above 0 and at most `most`.
double positive_finite(const std::string& flag, const std::string& text, double most) {
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || !std::isfinite(value) || !(value > 0) || value > most) {
    throw BadInput(flag + " " + text + ": must be a number above 0 and at most " + number_text(most, "%g"));
  }
  return value;
}

// parse_time reads a --from/--to value: clock ticks, or a number with s, ms, us or ns; refused
// when negative, not finite or beyond what 64-bit ticks hold.
std::uint64_t parse_time(const std::string& flag, const std::string& text, double clock_hz) {
  const std::string not_a_time = flag + " " + text + ": not a time (clock ticks, or a number with s, ms, us or ns)";
  char* end = nullptr;
  const double number = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || !std::isfinite(number)) throw BadInput(not_a_time);
  if (!(number >= 0)) throw BadInput(flag + " " + text + ": a time counts from the run's start and is not negative");
  const std::string suffix = end;
  double seconds_per = 0;
  if (suffix.empty()) seconds_per = 1 / clock_hz;
  else if (suffix == "s") seconds_per = 1;
  else if (suffix == "ms") seconds_per = 1e-3;
  else if (suffix == "us") seconds_per = 1e-6;
  else if (suffix == "ns") seconds_per = 1e-9;
  else throw BadInput(not_a_time);
  const double ticks = number * seconds_per * clock_hz;
  if (!(ticks < kMaxTicks)) {
    throw BadInput(flag + " " + text + ": beyond any run (" + number_text(number * seconds_per, "%g") +
                   " s is more clock ticks than a trace holds)");
  }
  return static_cast<std::uint64_t>(ticks);
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

// kDrawingFormats are the formats scg and ucc render through Graphviz, by file extension.
const std::vector<std::pair<std::string, std::string>> kDrawingFormats = {
    {".svg", "svg"}, {".png", "png"}, {".pdf", "pdf"}, {".dot", "dot"}, {".gv", "dot"}};

// drawing_format is the format to render: -T's, else the output's extension; an unknown one is
// refused naming the formats.
std::string drawing_format(const std::string& given, const std::string& output) {
  const std::string known = "svg, png, pdf, dot";
  if (!given.empty()) {
    for (const auto& [extension, format] : kDrawingFormats) {
      if (given == format) return given;
    }
    throw BadInput("-T " + given + ": not one of " + known);
  }
  if (output == "-") return "svg";
  const std::string extension = std::filesystem::path(output).extension().string();
  for (const auto& [known_extension, format] : kDrawingFormats) {
    if (extension == known_extension) return format;
  }
  throw BadInput("-o " + output + ": " + (extension.empty() ? "no extension" : "'" + extension + "' is no format") +
                 " to draw in; name the file .svg, .png, .pdf or .dot (or give -T " + known + ")");
}

// Drawing is what scg and ucc share: the output, its format, and the exit codes.
struct Drawing : Command {
  std::string format;
  Drawing(std::string command, std::string usage_text, const std::string& prose)
      : Command(std::move(command), std::move(usage_text), prose) {
    output_option("output file (required; '-': SVG on standard output)");
    cli.add_option("-T,--format", format, "svg, png, pdf or dot; default: from -o's extension (.svg, .png, .pdf, "
                                           ".dot or .gv; another is refused)")
        ->type_name("FORMAT");
    json_option("print the summary line as one JSON object");
  }
  // prepare checks the output (against `inputs` first, whatever its name) before the trace is
  // read, and chooses the format.
  std::unique_ptr<OutputTarget> prepare(const std::vector<std::string>& inputs) {
    if (output.empty()) throw BadInput("no output file given (-o FILE)");
    auto target = std::make_unique<OutputTarget>("-o", output, OutputTarget::Kind::file, inputs);
    format = drawing_format(format, output);
    return target;
  }
};

// print_summary prints a command's summary: `fields` as JSON with --json, else `line`.
void print_summary(const Command& command, const OutputTarget& target, const std::string& line, json fields) {
  std::ostream& out = summary_stream(target);
  if (command.json) {
    fields["output"] = target.to_stdout() ? "-" : command.output;
    out << fields.dump() << '\n';
  } else {
    out << target.shown() << ": " << line << '\n';
  }
}

int scg(const std::vector<std::string_view>& args) {
  Drawing command("scg",
                  "usage: moirai scg TRACE -o FILE [-T svg|png|pdf|dot] [--scale CYCLES_PER_POINT | --same-scale-as OTHER]\n"
                  "                  [--from TIME] [--to TIME] [--cores SET] [--arcs LIST] [--same-core-arcs]\n"
                  "                  [--overhead total|detail] [--miss-range MIN,MAX] [--critical-path] [--json]\n\n",
                  "Draws the Scheduling Consequence Graph (paper section 3.3.2): one column per core, time\n"
                  "going down, one block per unit (grey: runtime overhead, below it the work), and a line from\n"
                  "the point where a unit's construct freed another unit to the start of that unit, coloured\n"
                  "by construct as the trace's language says (SSR: create red, send_of_type_to green,\n"
                  "singleton orange, send_from_to blue, send_of_type purple). The work region is coloured blue (few) to red (many cache misses per\n"
                  "instruction) when the trace recorded a miss counter, and neutral otherwise. Hover a block\n"
                  "for its VP, the call sites that began and ended it, its cycles and counters.");
  std::string scale_text, same_scale_as, from_text, to_text, cores_text, arcs_text, overhead = "total", miss_text;
  moirai::visualize::ScgOptions options;
  CLI::App& cli = command.cli;
  cli.add_option("--scale", scale_text, "clock ticks per point (1/72 inch); default: fit about 1600 points")
      ->type_name("N");
  cli.add_option("--same-scale-as", same_scale_as,
                 "draw at the scale trace F gets by default, so the two graphs compare directly (converted "
                 "through both clocks' rates)")
      ->type_name("F");
  cli.add_option("--from", from_text,
                 "zoom to a window of the run from T; T counts from the run's start, in clock ticks, or with a "
                 "unit: 12ms, 3.5us, 2s, 800ns (a --from past the run's end is refused)")
      ->type_name("T");
  cli.add_option("--to", to_text, "zoom to a window of the run up to T (as --from)")->type_name("T");
  cli.add_option("--cores", cores_text, "columns to draw: numbers and ranges, e.g. 0-5,9 (default all)")->type_name("SET");
  cli.add_option("--arcs", arcs_text,
                 "arc kinds to draw: constructs of the trace, lock-handoff (runtime-lock causality) and "
                 "core-succession (hardware order on a core); default: the constructs that create, send, grant "
                 "or end an exclusive section, or carry a dependence or a wait (SSR: create_vp, send_from_to, "
                 "send_of_type_to, send_of_type, singleton, singleton-end). A '-' in a name stands for a space.")
      ->type_name("LIST");
  cli.add_flag("--same-core-arcs", options.same_core_arcs, "also draw constraint arcs between units on one core");
  cli.add_option("--overhead", overhead,
                 "total (default): one grey region; detail: assigner + switch, communication, lock wait, "
                 "constraint update / create, each its colour, each where it happened in the unit's life-line "
                 "(in time order)")
      ->type_name("MODE");
  cli.add_option("--miss-range", miss_text,
                 "misses per instruction drawn as pure blue and pure red (default: the lowest and highest of "
                 "the drawn units)")
      ->type_name("MIN,MAX");
  cli.add_flag("--critical-path", options.critical_path,
               "draw the critical path (the heaviest chain of program dependencies by work) over the graph: its "
               "blocks get a black rim, bold dashed lines join them in order; `moirai report --critical-path` "
               "lists the same units");
  if (!command.parse(args)) return 0;

  if (!scale_text.empty()) options.cycles_per_point = positive_finite("--scale", scale_text, kMaxScale);
  if (!cores_text.empty()) {
    try {
      options.cores = moirai::visualize::parse_core_set(cores_text);
    } catch (const std::invalid_argument& error) {
      throw BadInput(std::string("--cores ") + error.what());
    }
  }
  if (!arcs_text.empty()) {
    for (std::string kind : split_list(arcs_text)) {
      std::replace(kind.begin(), kind.end(), '-', ' ');
      if (kind.empty()) throw BadInput("--arcs " + arcs_text + ": an empty kind");
      options.arc_kinds.insert(kind);
    }
  }
  if (overhead != "total" && overhead != "detail") throw BadInput("--overhead " + overhead + ": not one of total, detail");
  options.overhead_detail = overhead == "detail";
  if (!miss_text.empty()) {
    const std::vector<std::string> bounds = split_list(miss_text);
    char* end_min = nullptr;
    char* end_max = nullptr;
    const double min = bounds.size() == 2 ? std::strtod(bounds[0].c_str(), &end_min) : 0;
    const double max = bounds.size() == 2 ? std::strtod(bounds[1].c_str(), &end_max) : 0;
    if (bounds.size() != 2 || end_min == bounds[0].c_str() || *end_min != '\0' || end_max == bounds[1].c_str() ||
        *end_max != '\0' || !(min >= 0) || !(max > min) || !std::isfinite(max)) {
      throw BadInput("--miss-range " + miss_text + ": must be MIN,MAX with 0 <= MIN < MAX, both finite");
    }
    options.miss_min = min;
    options.miss_max = max;
  }
  if (!same_scale_as.empty() && options.cycles_per_point > 0) throw BadInput("--scale and --same-scale-as exclude each other");
  std::vector<std::string> inputs = {command.trace};
  if (!same_scale_as.empty()) inputs.push_back(same_scale_as);
  const std::unique_ptr<OutputTarget> output = command.prepare(inputs);
  OutputTarget& target = *output;

  moirai::trace::Trace trace = read(command.trace);
  if (!same_scale_as.empty()) {
    try {
      const moirai::trace::Trace other = moirai::trace::read_trace(same_scale_as);
      // The other graph's ticks per point, as seconds per point, in this trace's ticks.
      options.cycles_per_point = moirai::visualize::fit_cycles_per_point(other) / other.clock_hz * trace.clock_hz;
    } catch (const moirai::trace::TraceError& error) {
      throw BadInput("--same-scale-as " + same_scale_as + ": " + error.what());
    }
  }
  for (auto [flag, text, into] : {std::tuple{"--from", &from_text, &options.from}, std::tuple{"--to", &to_text, &options.to}}) {
    if (!text->empty()) *into = parse_time(flag, *text, trace.clock_hz);
  }
  moirai::visualize::ScgLayout layout = moirai::visualize::layout_scg(trace, options);
  const std::string drawn = moirai::visualize::plural_text(layout.blocks.size(), "block") + " on " +
                            moirai::visualize::format_core_set(layout.cores) + ", " +
                            moirai::visualize::plural_text(layout.arcs.size(), "arc") +
                            (trace.units.empty() ? " (the trace has no units: an empty graph)" : "");
  json fields = {{"command", "scg"},
                 {"trace", command.trace},
                 {"format", command.format},
                 {"blocks", layout.blocks.size()},
                 {"cores", layout.cores},
                 {"arcs", layout.arcs.size()},
                 {"units", trace.units.size()}};
  const auto graph = moirai::visualize::scg_graph(layout, trace);
  // The graph holds copies of all it draws: the trace and the layout go before Graphviz lays it
  // out, which is when memory peaks.
  layout = {};
  trace = {};
  try {
    graph->render(command.format, target.path());
  } catch (const std::runtime_error& error) {
    throw std::runtime_error(target.explain(error.what()));
  }
  target.commit();
  print_summary(command, target, drawn, fields);
  return 0;
}

// number_text is a number as a stream prints it by default ("2.5", "12"): printf's "%g".
std::string number_text(double value) { return number_text(value, "%g"); }

int ucc(const std::vector<std::string_view>& args) {
  Drawing command("ucc", "usage: moirai ucc TRACE -o FILE [--weighted] [-T svg|png|pdf|dot] [--json]\n\n",
                  "Draws the Unit & Constraint Collection (paper sections 3.3.1 and 5.4.1): the constraints the\n"
                  "program placed on its units, without the runtime's and the hardware's choices. Units go from\n"
                  "top to bottom by their depth in the program's dependencies (a unit sits just below the\n"
                  "deepest unit constraining it); simple constraints are lines coloured by construct, a VP's\n"
                  "consecutive units are joined by a dashed line, and each complex constraint (a typed-send\n"
                  "group, a singleton) is a diamond with lines in from the units whose calls affect it and out\n"
                  "to the units it constrains, placed between the two so that every line points down. The\n"
                  "critical path has a red rim; the legend gives the parallelism (total work / critical-path\n"
                  "work). A row shows 48 units, the rest of it merged.");
  moirai::visualize::UccOptions options;
  command.cli.add_flag("--weighted", options.weighted,
                       "boxes as tall as the unit's instructions (its cycles of work when the trace has no "
                       "instruction counter; the legend says which), placed by the weight of the heaviest chain "
                       "above them");
  if (!command.parse(args)) return 0;
  const std::unique_ptr<OutputTarget> output = command.prepare({command.trace});
  OutputTarget& target = *output;
  const moirai::trace::Trace trace = read(command.trace);
  const moirai::visualize::UccLayout layout = moirai::visualize::layout_ucc(trace, options);
  try {
    moirai::visualize::render_ucc(layout, command.format, target.path());
  } catch (const std::runtime_error& error) {
    throw std::runtime_error(target.explain(error.what()));
  }
  target.commit();
  using moirai::visualize::plural_text;
  const std::string line =
      plural_text(trace.units.size(), "unit") + ", " + plural_text(layout.nodes.size(), "node") + ", " +
      plural_text(layout.arcs.size(), "arc") + ", parallelism " + number_text(layout.parallelism) +
      (trace.units.empty() ? " (the trace has no units: an empty graph)" : "") +
      (layout.merged_units ? " (" + plural_text(layout.merged_units, "unit") + " merged into row nodes)" : "") +
      (layout.omitted_units ? " (" + plural_text(layout.omitted_units, "unit") + " too deep to draw)" : "");
  json fields = {{"command", "ucc"},
                 {"trace", command.trace},
                 {"format", command.format},
                 {"units", trace.units.size()},
                 {"nodes", layout.nodes.size()},
                 {"arcs", layout.arcs.size()},
                 {"merged_units", layout.merged_units},
                 {"omitted_units", layout.omitted_units}};
  // No NaN in JSON: an empty trace's parallelism is left out.
  if (std::isfinite(layout.parallelism)) fields["parallelism"] = layout.parallelism;
  print_summary(command, target, line, fields);
  return 0;
}

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
    throw BadInput("no format given (--format otf2, perfetto, perfetto-json or sqlite)");
  } else {
    throw BadInput("--format " + format + ": not one of otf2, perfetto, perfetto-json, sqlite");
  }
  if (command.output.empty()) throw BadInput("no output given (-o OUT)");
  OutputTarget target("-o", command.output, format == "otf2" ? OutputTarget::Kind::directory : OutputTarget::Kind::file,
                      {command.trace});
  const moirai::trace::Trace trace = read(command.trace);
  moirai::visualize::ExportCounts counts;
  try {
    counts = exporter(trace, target.path());
  } catch (const moirai::visualize::ExportError& error) {
    throw BadInput(target.explain(error.what()));
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

int replay(const std::vector<std::string_view>& args) {
  Command command("replay", "usage: moirai replay TRACE --machine sim:N [--cost-model MODEL] [--placement P] [--remove-cause CAUSE] [--trace OUT]\n\n",
                  "Runs a recorded run again on a simulated machine (docs/replay.md): each VP's units in the\n"
                  "recorded order, each with its recorded work, a unit starting when its VP's previous unit was\n"
                  "handled, every constraint the recording shows on it satisfied (the units that freed it have\n"
                  "ended) and a core free. The runtime's own steps cost what the cost model says; a construct's\n"
                  "handler the model does not name costs what the recording measured. A unit's recorded work is\n"
                  "taken back to what it would cost alone (the model's stretch lines and the cores that worked\n"
                  "beside it), then slowed by the cores working beside it on the target. Rendezvous and typed\n"
                  "messages keep the partners the recording paired, though another machine could have paired\n"
                  "them otherwise. Works on a trace of any language: SSR, VSs, OpenMP, a language of your own.\n"
                  "The replayed run is an ordinary trace (--trace OUT) that every view and 'moirai report' read.");
  std::string machine_text, model_path, placement_text = "language", pinning_text = "auto", out;
  double work_scale = 1.0;
  command.cli.add_option("--machine", machine_text, "the simulated machine: sim:N or sim:SxC (required)")->type_name("SPEC");
  command.cli.add_option("--cost-model", model_path,
                         "the runtime's costs on the target (a moirai-calibrate file; default: the compiled-in model)")
      ->type_name("MODEL");
  command.cli.add_option("--placement", placement_text,
                         "where an unpinned unit runs: language (the default: last-core for SSR, any-core for the "
                         "others), recorded (the core it ran on), last-core (the core its VP last ran on), any-core "
                         "(one queue every core takes from)")
      ->type_name("P");
  command.cli.add_option("--pinning", pinning_text,
                         "what becomes of a VP the recording pinned: auto (the default: keep on as many cores as "
                         "recorded, else spread), keep (its core, modulo the target's), spread (the VPs one call site "
                         "created dealt round-robin over the target's cores), free (the placement decides)")
      ->type_name("P");
  command.cli.add_option("--work-scale", work_scale, "the target's work against the recorded machine's (default 1)")
      ->type_name("F");
  std::string cause_text;
  command.cli.add_option("--remove-cause", cause_text,
                         "replay the run with a cause of lost time taken away: lock-contention (the runtime lock never "
                         "makes a core wait), unit-size (the runtime's own steps cost nothing), waking-cores (waking a "
                         "core costs nothing), work-at:FILE:LINE (the units ending at that call site do no work), "
                         "work-of:UNIT[,UNIT...] (those units do no work), split:UNIT[,UNIT...] (those units' work "
                         "shared out over the cores), share:UNIT[,UNIT...] (as split, the rest done by the tasks they "
                         "created), balance:FILE:LINE or balance:UNIT (the units ending there, or "
                         "where that unit ended, made a wave that fills their cores), exclusive-first (an exclusive "
                         "section's body runs before the other VPs ready on its core), unchain:CONSTRUCT (the "
                         "constraints that construct recorded free nothing) or placement "
                         "(no VP pinned, one ready queue every free core takes from)")
      ->type_name("CAUSE");
  command.cli.add_option("-o,--trace", out, "record the replayed run into OUT ('-': standard output)")->type_name("OUT");
  command.json_option("print the summary as one JSON object");
  if (!command.parse(args)) return 0;
  if (machine_text.empty()) throw BadInput("no machine given (--machine sim:N)");
  moirai::replay::ReplayOptions options;
  try {
    options.machine = moirai::proto::SimTopology::parse(machine_text);
    if (!model_path.empty()) options.costs = moirai::proto::CostModel::load(model_path);
  } catch (const moirai::proto::ConfigError& error) {
    throw BadInput(error.what());
  }
  options.placement = moirai::replay::parse_placement(placement_text);
  options.pinning = moirai::replay::parse_pinning(pinning_text);
  if (!cause_text.empty()) options.removed = moirai::replay::parse_cause(cause_text);
  if (!(work_scale > 0) || !std::isfinite(work_scale) || work_scale > 1e6) {
    throw BadInput("--work-scale " + number_text(work_scale) + ": not a number above 0 and at most 1e6");
  }
  options.work_scale = work_scale;
  std::optional<OutputTarget> target;
  std::vector<std::string> inputs{command.trace};
  if (!model_path.empty()) inputs.push_back(model_path);
  if (!out.empty()) target.emplace("--trace", out, OutputTarget::Kind::file, inputs);
  const moirai::trace::Trace recorded = read(command.trace);

  std::unique_ptr<moirai::instrument::TraceRecorder> recorder;
  if (target) {
    moirai::instrument::RecorderOptions recording;
    recording.path = target->path();
    recording.os_time = false;
    recording.command_line = "moirai replay " + command.trace + " --machine " + machine_text +
                             (model_path.empty() ? "" : " --cost-model " + model_path) + " --placement " + placement_text +
                             " --pinning " + pinning_text + (cause_text.empty() ? "" : " --remove-cause " + cause_text);
    recording.metadata = {{"replay_of", command.trace},
                          {"replay_placement", placement_text},
                          {"replay_pinning", pinning_text},
                          {"replay_cost_model", model_path.empty() ? "compiled-in" : model_path},
                          {"replay_work_scale", number_text(work_scale)},
                          {"replay_removed_cause", cause_text.empty() ? "none" : cause_text}};
    try {
      recorder = std::make_unique<moirai::instrument::TraceRecorder>(std::move(recording));
    } catch (const std::runtime_error& error) {
      throw std::runtime_error(target->explain(error.what()));
    }
    options.observer = recorder.get();
  }
  moirai::replay::ReplayResult result;
  try {
    result = moirai::replay::replay(recorded, options);
  } catch (const moirai::replay::ReplayError& error) {
    throw UnreadableTrace(command.trace + ": cannot replay: " + error.what());
  }
  if (recorder) {
    const moirai::instrument::RecorderStats stats = recorder->finish();
    if (!stats.stopped.empty()) throw std::runtime_error(target->explain("the replayed run's trace: " + stats.stopped));
    target->commit();
  }
  const auto meta = [&](const char* key, const char* otherwise) {
    const auto found = recorded.metadata.find(key);
    return found != recorded.metadata.end() ? found->second : std::string(otherwise);
  };
  const double change = result.recorded_seconds > 0 ? (result.makespan_seconds / result.recorded_seconds - 1) * 100 : 0;
  std::ostream& summary = target && target->to_stdout() ? std::cerr : std::cout;
  if (command.json) {
    json notes = json::array();
    for (const std::string& note : result.notes) notes.push_back(note);
    summary << json{{"command", "replay"},
                    {"trace", command.trace},
                    {"language", meta("language", "?")},
                    {"recorded_machine", meta("machine", "?")},
                    {"recorded_cores", recorded.core_count},
                    {"recorded_makespan_s", result.recorded_seconds},
                    {"machine", options.machine.text()},
                    {"placement", moirai::replay::placement_name(result.placement)},
                    {"pinning", moirai::replay::pinning_name(result.pinning)},
                    {"removed_cause", moirai::replay::cause_text(options.removed)},
                    {"units", result.units},
                    {"makespan_s", result.makespan_seconds},
                    {"change_pct", change},
                    {"output", out},
                    {"notes", notes}}
                   .dump()
            << '\n';
  } else {
    const std::string machine = meta("machine", "");
    const std::string cores = std::to_string(recorded.core_count);
    summary << command.trace << " (" << meta("language", "?") << ", "
            << (machine.starts_with("sim") ? machine : cores + (machine == "real" ? " real cores" : " cores")) << ", "
            << fixed(result.recorded_seconds * 1e3, 3) << " ms) replayed on " << options.machine.text()
            << ", placement " << moirai::replay::placement_name(result.placement) << ", pinning "
            << moirai::replay::pinning_name(result.pinning)
            << (cause_text.empty() ? "" : ", without " + moirai::replay::cause_text(options.removed)) << ": " << result.units << " units, makespan "
            << fixed(result.makespan_seconds * 1e3, 3) << " ms (" << (change >= 0 ? "+" : "") << fixed(change, 1)
            << " %)\n";
    for (const std::string& note : result.notes) summary << "note: " << note << '\n';
    if (target) summary << "trace: " << target->shown() << '\n';
  }
  return 0;
}

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
    const std::function<int(const std::vector<std::string_view>&)>* chosen = nullptr;
    static const std::vector<std::pair<std::string_view, std::function<int(const std::vector<std::string_view>&)>>>
        kCommands = {{"stats", stats},   {"report", report}, {"scg", scg},
                     {"ucc", ucc},       {"export", export_command},
                     {"sweep", [](const std::vector<std::string_view>& rest) { return moirai::sweep::sweep_command(rest); }},
                     {"record", moirai::cli::record_command},
                     {"replay", replay}};
    for (const auto& [name, run] : kCommands) {
      if (name == command) chosen = &run;
    }
    if (command == "--help" || command == "-h" || command == "help") {
      std::cout << kHelp;
    } else if (command == "--version") {
      std::cout << "moirai " << MOIRAI_VERSION_TEXT << '\n';
    } else if (chosen == nullptr) {
      return bad_input("unknown command '" + std::string(command) + "' (try 'moirai --help')", kUsage);
    } else {
      const std::string usage = "usage: moirai " + std::string(command) + " ... ('moirai " + std::string(command) + " --help' says more)\n";
      return run_command(command, usage, [&] { return (*chosen)(args); });
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

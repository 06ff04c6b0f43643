#include "scg_command.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <tuple>

#include <nlohmann/json.hpp>

#include "drawing.h"
#include "moirai/visualize/views/core_set.h"
#include "moirai/visualize/views/scg.h"
#include "trace_input.h"

namespace moirai::cli {

namespace {

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
    char limit[32];
    std::snprintf(limit, sizeof limit, "%g", most);
    throw BadInput(flag + " " + text + ": must be a number above 0 and at most " + limit);
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
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%g", number * seconds_per);
    throw BadInput(flag + " " + text + ": beyond any run (" + seconds + " s is more clock ticks than a trace holds)");
  }
  return static_cast<std::uint64_t>(ticks);
}

// split_list splits `text` at commas ("a,,b": "a", "", "b").
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

// ScgFlags is `moirai scg`'s command line as given, checked once it is parsed.
struct ScgFlags {
  std::string scale, same_scale_as, from, to, cores, arcs, overhead = "total", miss_range;
};

constexpr const char* kScgUsage =
    "usage: moirai scg TRACE -o FILE [-T svg|png|pdf|dot] [--scale CYCLES_PER_POINT | --same-scale-as OTHER]\n"
    "                  [--from TIME] [--to TIME] [--cores SET] [--arcs LIST] [--same-core-arcs]\n"
    "                  [--overhead total|detail] [--miss-range MIN,MAX] [--critical-path] [--json]\n\n";

constexpr const char* kScgProse =
    "Draws the Scheduling Consequence Graph (paper section 3.3.2): one column per core, time\n"
    "going down, one block per unit (grey: runtime overhead, below it the work), and a line from\n"
    "the point where a unit's construct freed another unit to the start of that unit, coloured\n"
    "by construct as the trace's language says (SSR: create red, send_of_type_to green,\n"
    "singleton orange, send_from_to blue, send_of_type purple). The work region is coloured blue (few) to red (many cache misses per\n"
    "instruction) when the trace recorded a miss counter, and neutral otherwise. Hover a block\n"
    "for its VP, the call sites that began and ended it, its cycles and counters.";

// add_scg_flags declares scg's own options: the text ones into `flags`, the switches into `options`.
void add_scg_flags(CLI::App& cli, ScgFlags& flags, visualize::ScgOptions& options) {
  cli.add_option("--scale", flags.scale, "clock ticks per point (1/72 inch); default: fit about 1600 points")
      ->type_name("N");
  cli.add_option("--same-scale-as", flags.same_scale_as,
                 "draw at the scale trace F gets by default, so the two graphs compare directly (converted "
                 "through both clocks' rates)")
      ->type_name("F");
  cli.add_option("--from", flags.from,
                 "zoom to a window of the run from T; T counts from the run's start, in clock ticks, or with a "
                 "unit: 12ms, 3.5us, 2s, 800ns (a --from past the run's end is refused)")
      ->type_name("T");
  cli.add_option("--to", flags.to, "zoom to a window of the run up to T (as --from)")->type_name("T");
  cli.add_option("--cores", flags.cores, "columns to draw: numbers and ranges, e.g. 0-5,9 (default all)")->type_name("SET");
  cli.add_option("--arcs", flags.arcs,
                 "arc kinds to draw: constructs of the trace, lock-handoff (runtime-lock causality) and "
                 "core-succession (hardware order on a core); default: the constructs that create, send, grant "
                 "or end an exclusive section, or carry a dependence or a wait (SSR: create_vp, send_from_to, "
                 "send_of_type_to, send_of_type, singleton, singleton-end). A '-' in a name stands for a space.")
      ->type_name("LIST");
  cli.add_flag("--same-core-arcs", options.same_core_arcs, "also draw constraint arcs between units on one core");
  cli.add_option("--overhead", flags.overhead,
                 "total (default): one grey region; detail: assigner + switch, communication, lock wait, "
                 "constraint update / create, each its colour, each where it happened in the unit's life-line "
                 "(in time order)")
      ->type_name("MODE");
  cli.add_option("--miss-range", flags.miss_range,
                 "misses per instruction drawn as pure blue and pure red (default: the lowest and highest of "
                 "the drawn units)")
      ->type_name("MIN,MAX");
  cli.add_flag("--critical-path", options.critical_path,
               "draw the critical path (the heaviest chain of program dependencies by work) over the graph: its "
               "blocks get a black rim, bold dashed lines join them in order; `moirai report --critical-path` "
               "lists the same units");
}

// parse_miss_range reads --miss-range MIN,MAX into `options`.
void parse_miss_range(const std::string& text, visualize::ScgOptions& options) {
  const std::vector<std::string> bounds = split_list(text);
  char* end_min = nullptr;
  char* end_max = nullptr;
  const double min = bounds.size() == 2 ? std::strtod(bounds[0].c_str(), &end_min) : 0;
  const double max = bounds.size() == 2 ? std::strtod(bounds[1].c_str(), &end_max) : 0;
  if (bounds.size() != 2 || end_min == bounds[0].c_str() || *end_min != '\0' || end_max == bounds[1].c_str() ||
      *end_max != '\0' || !(min >= 0) || !(max > min) || !std::isfinite(max)) {
    throw BadInput("--miss-range " + text + ": must be MIN,MAX with 0 <= MIN < MAX, both finite");
  }
  options.miss_min = min;
  options.miss_max = max;
}

// apply_scg_flags checks the flags that need no trace and sets them in `options`.
void apply_scg_flags(const ScgFlags& flags, visualize::ScgOptions& options) {
  if (!flags.scale.empty()) options.cycles_per_point = positive_finite("--scale", flags.scale, kMaxScale);
  if (!flags.cores.empty()) {
    try {
      options.cores = visualize::parse_core_set(flags.cores);
    } catch (const std::invalid_argument& error) {
      throw BadInput(std::string("--cores ") + error.what());
    }
  }
  if (!flags.arcs.empty()) {
    for (std::string kind : split_list(flags.arcs)) {
      std::replace(kind.begin(), kind.end(), '-', ' ');
      if (kind.empty()) throw BadInput("--arcs " + flags.arcs + ": an empty kind");
      options.arc_kinds.insert(kind);
    }
  }
  if (flags.overhead != "total" && flags.overhead != "detail") {
    throw BadInput("--overhead " + flags.overhead + ": not one of total, detail");
  }
  options.overhead_detail = flags.overhead == "detail";
  if (!flags.miss_range.empty()) parse_miss_range(flags.miss_range, options);
  if (!flags.same_scale_as.empty() && options.cycles_per_point > 0) {
    throw BadInput("--scale and --same-scale-as exclude each other");
  }
}

// apply_trace_flags sets what needs the trace read: the scale of --same-scale-as's trace (read
// with the same checks, its warnings said), and the --from/--to window in the trace's ticks.
void apply_trace_flags(const ScgFlags& flags, const trace::Trace& trace, visualize::ScgOptions& options) {
  if (!flags.same_scale_as.empty()) {
    trace::Trace other;
    try {
      other = tools::read_checked_trace(flags.same_scale_as, "moirai", std::cerr);
    } catch (const tools::UnreadableTrace& error) {
      throw BadInput(std::string("--same-scale-as ") + error.what());
    }
    // The other graph's ticks per point, as seconds per point, in this trace's ticks.
    options.cycles_per_point = visualize::fit_cycles_per_point(other) / other.clock_hz * trace.clock_hz;
  }
  for (auto [flag, text, into] : {std::tuple{"--from", &flags.from, &options.from}, std::tuple{"--to", &flags.to, &options.to}}) {
    if (!text->empty()) *into = parse_time(flag, *text, trace.clock_hz);
  }
}

}  // namespace

int scg_command(const std::vector<std::string_view>& args) {
  Drawing command("scg", kScgUsage, kScgProse);
  ScgFlags flags;
  visualize::ScgOptions options;
  add_scg_flags(command.cli, flags, options);
  if (!command.parse(args)) return 0;
  apply_scg_flags(flags, options);
  std::vector<std::string> inputs = {command.trace};
  if (!flags.same_scale_as.empty()) inputs.push_back(flags.same_scale_as);
  const std::unique_ptr<OutputTarget> output = command.prepare(inputs);
  OutputTarget& target = *output;

  trace::Trace trace = read_trace_input(command.trace);
  apply_trace_flags(flags, trace, options);
  visualize::ScgLayout layout = visualize::layout_scg(trace, options);
  const std::string drawn = visualize::plural_text(layout.blocks.size(), "block") + " on " +
                            visualize::format_core_set(layout.cores) + ", " +
                            visualize::plural_text(layout.arcs.size(), "arc") +
                            (trace.units.empty() ? " (the trace has no units: an empty graph)" : "");
  nlohmann::json fields = {{"command", "scg"},
                           {"trace", command.trace},
                           {"format", command.format},
                           {"blocks", layout.blocks.size()},
                           {"cores", layout.cores},
                           {"arcs", layout.arcs.size()},
                           {"units", trace.units.size()}};
  const auto graph = visualize::scg_graph(layout, trace);
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

}  // namespace moirai::cli

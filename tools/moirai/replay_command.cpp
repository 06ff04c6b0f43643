#include "replay_command.h"

#include <cmath>
#include <iomanip>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "command.h"
#include "moirai/instrument/trace_recorder.h"
#include "moirai/proto_runtime/errors.h"
#include "moirai/replay/replay.h"
#include "moirai/trace/number_text.h"
#include "trace_input.h"

namespace moirai::cli {

namespace {

using json = nlohmann::json;

constexpr const char* kReplayUsage =
    "usage: moirai replay TRACE --machine sim:N [--cost-model MODEL] [--placement P] [--remove-cause CAUSE] [--trace OUT]\n\n";

constexpr const char* kReplayProse =
    "Runs a recorded run again on a simulated machine (docs/replay.md): each VP's units in the\n"
    "recorded order, each with its recorded work, a unit starting when its VP's previous unit was\n"
    "handled, every constraint the recording shows on it satisfied (the units that freed it have\n"
    "ended) and a core free. The runtime's own steps cost what the cost model says; a construct's\n"
    "handler the model does not name costs what the recording measured. A unit's recorded work is\n"
    "taken back to what it would cost alone (the model's stretch lines and the cores that worked\n"
    "beside it), then slowed by the cores working beside it on the target. Rendezvous and typed\n"
    "messages keep the partners the recording paired, though another machine could have paired\n"
    "them otherwise. Works on a trace of any language: SSR, VSs, OpenMP, a language of your own.\n"
    "The replayed run is an ordinary trace (--trace OUT) that every view and 'moirai report' read.";

// ReplayFlags is `moirai replay`'s command line as given.
struct ReplayFlags {
  std::string machine, model_path, placement = "language", pinning = "auto", cause, out;
  double work_scale = 1.0;
};

// add_replay_flags declares replay's own options into `flags`.
void add_replay_flags(CLI::App& cli, ReplayFlags& flags) {
  cli.add_option("--machine", flags.machine, "the simulated machine: sim:N or sim:SxC (required)")->type_name("SPEC");
  cli.add_option("--cost-model", flags.model_path,
                 "the runtime's costs on the target (a moirai-calibrate file; default: the compiled-in model)")
      ->type_name("MODEL");
  cli.add_option("--placement", flags.placement,
                 "where an unpinned unit runs: language (the default: the placement the trace's language "
                 "gives, e.g. SSR's last-core, VSs's and OpenMP's any-core), recorded (the core it ran on), last-core (the core its VP last ran on), any-core "
                 "(one queue every core takes from)")
      ->type_name("P");
  cli.add_option("--pinning", flags.pinning,
                 "what becomes of a VP the recording pinned: auto (the default: keep on as many cores as "
                 "recorded, else spread), keep (its core, modulo the target's), spread (the VPs one call site "
                 "created dealt round-robin over the target's cores), free (the placement decides)")
      ->type_name("P");
  cli.add_option("--work-scale", flags.work_scale, "the target's work against the recorded machine's (default 1)")
      ->type_name("F");
  cli.add_option("--remove-cause", flags.cause,
                 "replay the run with a cause of lost time taken away: lock-contention (the runtime lock never "
                 "makes a core wait), unit-size (the runtime's own steps cost nothing), waking-cores (waking a "
                 "core costs nothing), work-at:FILE:LINE (the units ending at that call site do no work), "
                 "work-of:UNIT[,UNIT...] (those units do no work), split:UNIT[,UNIT...] (those units' work "
                 "shared out over the cores), share:UNIT[,UNIT...] (as split, the rest done by the tasks they "
                 "created), balance:FILE:LINE or balance:UNIT (the units ending there, or "
                 "where that unit ended, made a wave that fills their cores), exclusive-first (an exclusive "
                 "section's body runs before the other VPs ready on its core), unchain:CONSTRUCT (the "
                 "constraints that construct recorded free nothing), placement "
                 "(no VP pinned, one ready queue every free core takes from) or even:UNIT[,UNIT...] (each "
                 "unit's work evened out with that of the units that waited for it)")
      ->type_name("CAUSE");
  cli.add_option("-o,--trace", flags.out, "record the replayed run into OUT ('-': standard output)")->type_name("OUT");
}

// replay_options checks the flags and turns them into the replay's options (no observer yet).
replay::ReplayOptions replay_options(const ReplayFlags& flags) {
  if (flags.machine.empty()) throw BadInput("no machine given (--machine sim:N)");
  replay::ReplayOptions options;
  try {
    options.machine = proto::SimTopology::parse(flags.machine);
    if (!flags.model_path.empty()) options.costs = proto::CostModel::load(flags.model_path);
  } catch (const proto::ConfigError& error) {
    throw BadInput(error.what());
  }
  options.placement = replay::parse_placement(flags.placement);
  options.pinning = replay::parse_pinning(flags.pinning);
  if (!flags.cause.empty()) options.removed = replay::parse_cause(flags.cause);
  if (!(flags.work_scale > 0) || !std::isfinite(flags.work_scale) || flags.work_scale > 1e6) {
    throw BadInput("--work-scale " + trace::number_text(flags.work_scale, "%g") + ": not a number above 0 and at most 1e6");
  }
  options.work_scale = flags.work_scale;
  return options;
}

// start_recording opens the recorder of the replayed run into `target`, the command line and
// the replay's settings in its metadata.
std::unique_ptr<instrument::TraceRecorder> start_recording(const std::string& trace_path, const ReplayFlags& flags,
                                                           const OutputTarget& target) {
  instrument::RecorderOptions recording;
  recording.path = target.path();
  recording.os_time = false;
  recording.command_line = "moirai replay " + trace_path + " --machine " + flags.machine +
                           (flags.model_path.empty() ? "" : " --cost-model " + flags.model_path) + " --placement " +
                           flags.placement + " --pinning " + flags.pinning +
                           (flags.cause.empty() ? "" : " --remove-cause " + flags.cause);
  recording.metadata = {{"replay_of", trace_path},
                        {"replay_placement", flags.placement},
                        {"replay_pinning", flags.pinning},
                        {"replay_cost_model", flags.model_path.empty() ? "compiled-in" : flags.model_path},
                        {"replay_work_scale", trace::number_text(flags.work_scale, "%g")},
                        {"replay_removed_cause", flags.cause.empty() ? "none" : flags.cause}};
  try {
    return std::make_unique<instrument::TraceRecorder>(std::move(recording));
  } catch (const std::runtime_error& error) {
    throw std::runtime_error(target.explain(error.what()));
  }
}

// ReplaySummary is what the summary line says of a replay.
struct ReplaySummary {
  const Command& command;
  const ReplayFlags& flags;
  const trace::Trace& recorded;
  const replay::ReplayOptions& options;
  const replay::ReplayResult& result;
  const OutputTarget* target;  // null without --trace

  // meta is the recorded trace's metadata `key`, else `otherwise`.
  std::string meta(const char* key, const char* otherwise) const {
    const auto found = recorded.metadata.find(key);
    return found != recorded.metadata.end() ? found->second : std::string(otherwise);
  }
  // change_pct is the replayed makespan against the recorded one, in %.
  double change_pct() const {
    return result.recorded_seconds > 0 ? (result.makespan_seconds / result.recorded_seconds - 1) * 100 : 0;
  }
};

void print_replay_json(std::ostream& out, const ReplaySummary& s) {
  json notes = json::array();
  for (const std::string& note : s.result.notes) notes.push_back(note);
  out << json{{"command", "replay"},
              {"trace", s.command.trace},
              {"language", s.meta("language", "?")},
              {"recorded_machine", s.meta("machine", "?")},
              {"recorded_cores", s.recorded.core_count},
              {"recorded_makespan_s", s.result.recorded_seconds},
              {"machine", s.options.machine.text()},
              {"placement", replay::placement_name(s.result.placement)},
              {"pinning", replay::pinning_name(s.result.pinning)},
              {"removed_cause", replay::cause_text(s.options.removed)},
              {"units", s.result.units},
              {"makespan_s", s.result.makespan_seconds},
              {"change_pct", s.change_pct()},
              {"output", s.flags.out},
              {"notes", notes}}
             .dump()
      << '\n';
}

void print_replay_text(std::ostream& out, const ReplaySummary& s) {
  using trace::fixed;
  const std::string machine = s.meta("machine", "");
  const std::string cores = std::to_string(s.recorded.core_count);
  const double change = s.change_pct();
  out << s.command.trace << " (" << s.meta("language", "?") << ", "
      << (machine.starts_with("sim") ? machine : cores + (machine == "real" ? " real cores" : " cores")) << ", "
      << fixed(s.result.recorded_seconds * 1e3, 3) << " ms) replayed on " << s.options.machine.text() << ", placement "
      << replay::placement_name(s.result.placement) << ", pinning " << replay::pinning_name(s.result.pinning)
      << (s.flags.cause.empty() ? "" : ", without " + replay::cause_text(s.options.removed)) << ": " << s.result.units
      << " units, makespan " << fixed(s.result.makespan_seconds * 1e3, 3) << " ms (" << (change >= 0 ? "+" : "")
      << fixed(change, 1) << " %)\n";
  for (const std::string& note : s.result.notes) out << "note: " << note << '\n';
  if (s.target) out << "trace: " << s.target->shown() << '\n';
}

}  // namespace

int replay_command(const std::vector<std::string_view>& args) {
  Command command("replay", kReplayUsage, kReplayProse);
  ReplayFlags flags;
  add_replay_flags(command.cli, flags);
  command.json_option("print the summary as one JSON object");
  if (!command.parse(args)) return 0;
  replay::ReplayOptions options = replay_options(flags);
  std::optional<OutputTarget> target;
  std::vector<std::string> inputs{command.trace};
  if (!flags.model_path.empty()) inputs.push_back(flags.model_path);
  if (!flags.out.empty()) target.emplace("--trace", flags.out, OutputTarget::Kind::file, inputs);
  const trace::Trace recorded = read_trace_input(command.trace);

  std::unique_ptr<instrument::TraceRecorder> recorder;
  if (target) {
    recorder = start_recording(command.trace, flags, *target);
    options.observer = recorder.get();
  }
  replay::ReplayResult result;
  try {
    result = replay::replay(recorded, options);
  } catch (const replay::ReplayError& error) {
    throw tools::UnreadableTrace(command.trace + ": cannot replay: " + error.what());
  }
  if (recorder) {
    const instrument::RecorderStats stats = recorder->finish();
    if (!stats.stopped.empty()) throw std::runtime_error(target->explain("the replayed run's trace: " + stats.stopped));
    target->commit();
  }
  const ReplaySummary summary{command, flags, recorded, options, result, target ? &*target : nullptr};
  std::ostream& out = target && target->to_stdout() ? std::cerr : std::cout;
  if (command.json) {
    print_replay_json(out, summary);
  } else {
    print_replay_text(out, summary);
  }
  return 0;
}

}  // namespace moirai::cli

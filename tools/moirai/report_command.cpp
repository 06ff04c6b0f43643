#include "report_command.h"

#include <cmath>
#include <iomanip>
#include <ostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "command.h"
#include "moirai/proto_runtime/cost_model.h"
#include "moirai/proto_runtime/errors.h"
#include "moirai/replay/loss_check.h"
#include "moirai/replay/replay.h"
#include "moirai/visualize/analyses/critical_path.h"
#include "moirai/visualize/analyses/report.h"
#include "trace_input.h"

namespace moirai::cli {

namespace {

using json = nlohmann::json;
using tools::UnreadableTrace;

// check_losses_by_replay holds each hint's claimed loss to the gain replay measures without its
// cause (replay/loss_check.h).
std::vector<replay::LossCheck> check_losses_by_replay(const trace::Trace& trace, const visualize::Report& report,
                                                      const std::string& model_path) {
  proto::CostModel costs = proto::CostModel::default_model();
  try {
    if (!model_path.empty()) costs = proto::CostModel::load(model_path);
  } catch (const proto::ConfigError& error) {
    throw BadInput(error.what());
  }
  std::vector<replay::ClaimedLoss> claims;
  for (const visualize::Hint& hint : report.hints) claims.push_back({hint.rule, hint.site, hint.units, hint.construct, hint.lost});
  try {
    return replay::check_losses(trace, claims, costs);
  } catch (const replay::ReplayError& error) {
    throw UnreadableTrace(std::string("cannot replay: ") + error.what());
  }
}

// print_loss_checks prints each hint's claimed loss beside its replayed gain.
void print_loss_checks(std::ostream& out, const trace::Trace& trace, const visualize::Report& report,
                       const std::vector<replay::LossCheck>& checks, bool as_json) {
  if (as_json) {
    json rows = json::array();
    for (std::size_t i = 0; i < checks.size(); ++i) {
      const replay::LossCheck& c = checks[i];
      json row{{"rule", report.hints[i].rule}, {"site", report.hints[i].site}, {"claimed_ms", c.claimed_ms}};
      if (c.cause.cause != replay::Cause::none) {
        row["remove_cause"] = replay::cause_text(c.cause);
        row["gained_ms"] = c.gained_ms;
        row["agree"] = c.agrees();
      }
      rows.push_back(row);
    }
    out << json{{"cores", trace.core_count}, {"agreement", replay::kLossAgreement}, {"checks", rows}}.dump() << '\n';
    return;
  }
  out << "losses checked by replay: the run replayed on sim:" << trace.core_count
      << " as recorded, and again with each hint's cause taken away (docs/replay.md); core time in ms,\n"
      << "agreeing where the claimed loss and the replayed gain lie within " << replay::kLossAgreement * 100 << " % of each other\n";
  if (checks.empty()) out << "  no hints to check\n";
  std::ostringstream line;
  line << std::fixed << std::setprecision(3);
  for (std::size_t i = 0; i < checks.size(); ++i) {
    const replay::LossCheck& c = checks[i];
    line.str("");
    line << "  [" << report.hints[i].rule << "] claims " << c.claimed_ms;
    if (c.cause.cause == replay::Cause::none) {
      line << "; no what-if for this rule yet";
    } else {
      const double gained = std::abs(c.gained_ms) < 5e-4 ? 0.0 : c.gained_ms;  // no "-0.000"
      line << "; --remove-cause " << replay::cause_text(c.cause) << " gains " << gained << ": "
           << (c.agrees() ? "agree" : "disagree");
    }
    out << line.str() << '\n';
  }
}

}  // namespace

int report_command(const std::vector<std::string_view>& args) {
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
  const trace::Trace trace = read_trace_input(command.trace);
  if (critical) {
    const visualize::CriticalPathListing listing = visualize::list_critical_path(trace);
    print_text(command, [&](std::ostream& out) {
      if (command.json) {
        visualize::print_critical_path_json(out, listing);
      } else {
        visualize::print_critical_path(out, listing);
      }
    });
    return 0;
  }
  const visualize::Report built = visualize::build_report(trace);
  if (check_losses) {
    const std::vector<replay::LossCheck> checks = check_losses_by_replay(trace, built, model_path);
    print_text(command, [&](std::ostream& out) { print_loss_checks(out, trace, built, checks, command.json); });
    return 0;
  }
  print_text(command, [&](std::ostream& out) {
    if (command.json) {
      visualize::print_report_json(out, trace, built);
    } else {
      visualize::print_report(out, trace, built);
    }
  });
  return 0;
}

}  // namespace moirai::cli

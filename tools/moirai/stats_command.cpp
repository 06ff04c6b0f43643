#include "stats_command.h"

#include <ostream>

#include "command.h"
#include "moirai/visualize/analyses/run_summary.h"

namespace moirai::cli {

int stats_command(const std::vector<std::string_view>& args) {
  Command command("stats", "usage: moirai stats TRACE [--json] [-o FILE]\n\n",
                  "Summarises a trace: cores, VPs, units, constraints by kind, per-core time split into work,\n"
                  "state-update communication (with runtime-lock wait), constraint update, decision to animate\n"
                  "and idle; the counters recorded and those the machine lacked; the recorder's own cost; and\n"
                  "integrity (chunks, bytes, records, events dropped, where a cut trace ends).");
  command.json_option("print the same numbers as one JSON object");
  command.output_option("write to FILE instead of standard output ('-')");
  if (!command.parse(args)) return 0;
  const trace::Trace trace = read_trace_input(command.trace);
  const visualize::RunSummary summary = visualize::summarize(trace);
  print_text(command, [&](std::ostream& out) {
    if (command.json) {
      visualize::print_summary_json(out, command.trace, trace, summary);
    } else {
      visualize::print_summary(out, command.trace, trace, summary);
    }
  });
  return 0;
}

}  // namespace moirai::cli

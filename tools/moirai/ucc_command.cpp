#include "ucc_command.h"

#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "drawing.h"
#include "moirai/visualize/views/core_set.h"
#include "moirai/visualize/views/ucc.h"
#include "moirai/trace/number_text.h"

namespace moirai::cli {

int ucc_command(const std::vector<std::string_view>& args) {
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
  visualize::UccOptions options;
  command.cli.add_flag("--weighted", options.weighted,
                       "boxes as tall as the unit's instructions (its cycles of work when the trace has no "
                       "instruction counter; the legend says which), placed by the weight of the heaviest chain "
                       "above them");
  if (!command.parse(args)) return 0;
  const std::unique_ptr<OutputTarget> output = command.prepare({command.trace});
  OutputTarget& target = *output;
  const trace::Trace trace = read_trace_input(command.trace);
  const visualize::UccLayout layout = visualize::layout_ucc(trace, options);
  try {
    visualize::render_ucc(layout, command.format, target.path());
  } catch (const std::runtime_error& error) {
    throw std::runtime_error(target.explain(error.what()));
  }
  target.commit();
  using visualize::plural_text;
  const std::string line =
      plural_text(trace.units.size(), "unit") + ", " + plural_text(layout.nodes.size(), "node") + ", " +
      plural_text(layout.arcs.size(), "arc") + ", parallelism " + trace::number_text(layout.parallelism, "%g") +
      (trace.units.empty() ? " (the trace has no units: an empty graph)" : "") +
      (layout.merged_units ? " (" + plural_text(layout.merged_units, "unit") + " merged into row nodes)" : "") +
      (layout.omitted_units ? " (" + plural_text(layout.omitted_units, "unit") + " too deep to draw)" : "");
  nlohmann::json fields = {{"command", "ucc"},
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

}  // namespace moirai::cli

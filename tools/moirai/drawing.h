// Drawing: the command line `moirai scg` and `moirai ucc` share: a required output, the format
// it is drawn in (-T, else the output's extension), --json.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "command.h"
#include "output_target.h"

namespace moirai::cli {

// Drawing is a Command with -o (required), -T/--format and --json declared.
struct Drawing : Command {
  std::string format;
  // Drawing sets up `moirai NAME` as Command does, with the drawing's options.
  Drawing(std::string command, std::string usage_text, const std::string& prose);
  // prepare checks the output (against `inputs` first, whatever its name) before the trace is
  // read, and chooses the format; throws BadInput for no output, or a format Graphviz is not
  // asked for here.
  std::unique_ptr<OutputTarget> prepare(const std::vector<std::string>& inputs);
};

}  // namespace moirai::cli

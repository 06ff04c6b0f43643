// VSs's costs on a simulated machine: the runtime's calibrated steps, and VSs's handlers.
#pragma once

#include "moirai/proto_runtime/cost_model.h"

namespace moirai::vss {

// cost_model is VSs's default model on a simulated machine, and the base a cost-model file is
// read over: proto::CostModel::default_model(), whose `handler` and `communication` every VSs
// construct costs until `moirai-calibrate` measures VSs's own handlers (docs/cost-model.md).
proto::CostModel cost_model();

}  // namespace moirai::vss

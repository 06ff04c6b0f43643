// SSR's costs on a simulated machine: the runtime's calibrated steps and SSR's own handlers.
#pragma once

#include "moirai/proto_runtime/cost_model.h"

namespace moirai::ssr {

// cost_model is proto::CostModel::default_model() with the cost of each SSR construct's request
// handler, by display name, as `moirai-calibrate` measured them (docs/cost-model.md); the
// default of an SSR run on a simulated machine, and the base a cost-model file is read over.
proto::CostModel cost_model();

}  // namespace moirai::ssr

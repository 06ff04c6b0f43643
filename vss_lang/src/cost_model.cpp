#include "moirai/vss/cost_model.h"

namespace moirai::vss {

proto::CostModel cost_model() {
  // No VSs construct has a line of its own yet: the calibration runs (bench/fit_default_model.sh)
  // are SSR programs, so a VSs handler costs the runtime's typical one.
  return proto::CostModel::default_model();
}

}  // namespace moirai::vss

#include "moirai/ssr/cost_model.h"

namespace moirai::ssr {

proto::CostModel cost_model() {
  // Medians of 20000 uses of each construct by `moirai-calibrate` on the 2-core development VM
  // (AMD EPYC, 2596 MHz TSC), in nanoseconds: ticks of the default 1 GHz virtual clock.
  proto::CostModel model = proto::CostModel::default_model();
  model.handlers = {{"create_vp", 42},          {"end_vp", 12},          {"receive_from_to", 12},
                    {"receive_of_type", 15},    {"receive_of_type_to", 15}, {"send_from_to", 15},
                    {"send_of_type", 12},       {"send_of_type_to", 12}, {"singleton", 19},
                    {"singleton end", 12}};
  return model;
}

}  // namespace moirai::ssr

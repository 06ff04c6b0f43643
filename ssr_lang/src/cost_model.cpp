#include "moirai/ssr/cost_model.h"

namespace moirai::ssr {

proto::CostModel cost_model() {
  // Fitted with the runtime's own steps (proto::CostModel::default_model) from real runs on the
  // 2-core development VM, in nanoseconds: ticks of the default 1 GHz virtual clock. A
  // create_vp maps its VP's stack afresh in a short run; a send or receive that ends a long unit
  // also reads the OS's accounts of it (the recording's OS time) before it asks for the lock.
  proto::CostModel model = proto::CostModel::default_model();
  model.handlers = {{"create_vp", 12022},        {"end_vp", 1169},          {"receive_from_to", 555},
                    {"receive_of_type", 66},       {"receive_of_type_to", 1182}, {"send_from_to", 1895},
                    {"send_of_type", 139},         {"send_of_type_to", 2207},  {"singleton", 201},
                    {"singleton end", 42}};
  model.communications = {{"create_vp", 1327},       {"end_vp", 1240},          {"receive_from_to", 11452},
                          {"receive_of_type", 45},     {"receive_of_type_to", 1719}, {"send_from_to", 10523},
                          {"send_of_type", 64},        {"send_of_type_to", 5467},  {"singleton", 43},
                          {"singleton end", 41}};
  return model;
}

}  // namespace moirai::ssr

#include "moirai/ssr/cost_model.h"

namespace moirai::ssr {

proto::CostModel cost_model() {
  // Fitted with the runtime's own steps (proto::CostModel::default_model) from real runs on the
  // 2-core development VM, in nanoseconds: ticks of the default 1 GHz virtual clock. A
  // create_vp mostly reuses an ended VP's hull and stack (a fresh stack is mapped only past the
  // most VPs alive at once); a send or receive that ends a long unit also reads the OS's accounts
  // of it (the recording's OS time) before it asks for the lock.
  proto::CostModel model = proto::CostModel::default_model();
  model.handlers = {{"create_vp", 2706},         {"end_vp", 630},           {"receive_from_to", 800},
                    {"receive_of_type", 27},       {"receive_of_type_to", 791}, {"send_from_to", 1727},
                    {"send_of_type", 71},          {"send_of_type_to", 1620},  {"singleton", 82},
                    {"singleton end", 19}};
  model.communications = {{"create_vp", 972},        {"end_vp", 913},           {"receive_from_to", 11117},
                          {"receive_of_type", 53},     {"receive_of_type_to", 841}, {"send_from_to", 10063},
                          {"send_of_type", 49},        {"send_of_type_to", 4016},  {"singleton", 84},
                          {"singleton end", 58}};
  return model;
}

}  // namespace moirai::ssr

// The runtime's costs as `moirai-calibrate` measured them in tight loops on the development VM
// (warm caches, no contention, no stack mapping): the compiled-in model until issue 13 refitted
// it from whole real runs. The report's scenario suite and the tuning walkthrough were sized
// for these costs, which keep the runtime's overhead small beside their units' work, so their
// expectations test the report's rules rather than the machine's current costs.
#pragma once

#include "moirai/proto_runtime/cost_model.h"
#include "moirai/proto_runtime/real_machine.h"

namespace moirai::test {

inline proto::CostModel tight_loop_costs() {
  proto::CostModel model;
  model.clock_hz = 1e9;
  model.switch_ticks = 15;
  model.communication = 11;
  model.lock = 1;
  model.assigner = 8;
  model.wake = 68;
  model.wake_parked = 68;  // one wake-up cost, whether the core spun or parked
  model.idle_spin = proto::RealMachine::kIdleSpinNs;
  model.handler = 42;
  model.handlers = {{"create_vp", 42},       {"end_vp", 12},             {"receive_from_to", 12},
                    {"receive_of_type", 15}, {"receive_of_type_to", 15}, {"send_from_to", 15},
                    {"send_of_type", 12},    {"send_of_type_to", 12},    {"singleton", 19},
                    {"singleton end", 12}};
  return model;
}

}  // namespace moirai::test

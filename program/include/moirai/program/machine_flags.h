// MachineFlags: the flags every app shares to choose its machine, real cores or a simulation.
#pragma once

#include <cstddef>
#include <memory>
#include <ostream>
#include <string>

#include "moirai/program/flags.h"
#include "moirai/proto_runtime/machine.h"

namespace moirai::program {

// MachineFlags declares --cores, --machine, --sim-work, --sim-factor and --cost-model on an
// app's Flags, checks them while parsing (bad input is a FlagError: exit 2) and builds the
// machine they choose.
class MachineFlags {
 public:
  // MachineFlags adds the flags to `flags`; after parsing, `cores` holds the chosen machine's
  // core count. `declares_work` says whether the app charges its units' work (ctx.charge_work):
  // then --sim-work defaults to declared, else to measured.
  MachineFlags(Flags& flags, std::size_t& cores, bool declares_work = false);
  ~MachineFlags();
  MachineFlags(const MachineFlags&) = delete;
  MachineFlags& operator=(const MachineFlags&) = delete;

  // simulated is true when --machine chose a simulated machine.
  bool simulated() const noexcept;
  // machine builds the chosen machine on first use and returns it; throws proto::ConfigError
  // when real cores cannot be had.
  proto::Machine& machine();
  // report prints, for a simulated machine, the run's virtual time and units on `out`.
  void report(std::ostream& out) const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace moirai::program

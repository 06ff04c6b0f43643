// The simulated machine: N virtual cores in virtual time, driven on one host thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "moirai/proto_runtime/cost_model.h"
#include "moirai/proto_runtime/machine.h"

namespace moirai::proto {

// SimTopology is the virtual machine's shape: `sockets` groups of `cores_per_socket` cores.
struct SimTopology {
  std::size_t sockets = 1;
  std::size_t cores_per_socket = 1;

  // cores is the number of virtual cores.
  std::size_t cores() const noexcept { return sockets * cores_per_socket; }
  // text spells the topology as `sim:N` (one socket) or `sim:SxC`.
  std::string text() const;
  // parse reads `sim:N` or `sim:SxC` (N, S, C at least 1, at most kMaxSimCores cores in all);
  // throws ConfigError naming the spec and what is wrong.
  static SimTopology parse(std::string_view spec);
};

// kMaxSimCores is the largest simulated machine (the trace format numbers cores in 16 bits).
inline constexpr std::size_t kMaxSimCores = 4096;

// SimWork says where a unit's virtual duration comes from.
enum class SimWork {
  measured,  // its host time (TSC) times SimConfig::factor
  declared,  // the ticks the application charged to it (Machine::charge_work), 0 if none
};

// SimConfig is one simulated machine.
struct SimConfig {
  SimTopology topology;
  SimWork work = SimWork::declared;
  double factor = 1.0;                              // scales measured host time
  CostModel costs = CostModel::default_model();     // the runtime's own steps
  // language_costs: a construct `costs` gives no line of its own costs what the running
  // language's default model says (LanguageTable::costs), not the generic handler cost.
  bool language_costs = false;
  // lock_excludes: the runtime lock makes a core that asks while another holds it wait. Off, no
  // core ever waits for it (a what-if: a runtime without the one lock); each hold still costs.
  bool lock_excludes = true;
};

// SimMachine is a discrete-event simulation: each virtual core has a clock, and the core with
// the earliest time (ties: the lowest id) takes the next step, so a run is deterministic when
// work is declared. Units run for real, one after another on the calling thread; the runtime
// lock is a resource in virtual time whose waits are reported as on real cores. Its wrapper
// observer (observe) advances the clocks at the runtime's clock points, which every build keeps
// (MOIRAI_RECORDING=OFF too), and hands a recorder, when there is one, the virtual clock.
class SimMachine final : public Machine {
 public:
  // SimMachine builds the machine; throws ConfigError for a bad core count, factor or clock.
  explicit SimMachine(SimConfig config);
  ~SimMachine() override;

  std::size_t core_count() const override;
  void drive(CoreScheduler& scheduler) override;
  void notify_work(CoreId core) override;
  std::string describe_core(CoreId core) const override;
  bool returns_after_each_unit() const override { return true; }
  RuntimeObserver* observe(RuntimeObserver* observer) override;
  void charge_work(CoreId core, std::uint64_t ticks) noexcept override;
  void use_language_costs(const CostModel& costs) override;
  void use_lock_domains(std::function<std::string(LockDomain)> name) override;

  // config is what the machine simulates.
  const SimConfig& config() const noexcept;
  // makespan is the latest virtual time any core reached, in ticks from the start.
  std::uint64_t makespan() const noexcept;
  // units is how many units the machine animated.
  std::uint64_t units() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace moirai::proto

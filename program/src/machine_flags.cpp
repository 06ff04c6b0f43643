#include "moirai/program/machine_flags.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <optional>
#include <tuple>

#include "moirai/proto_runtime/errors.h"
#include "moirai/proto_runtime/real_machine.h"
#include "moirai/proto_runtime/sim_machine.h"

namespace moirai::program {

struct MachineFlags::State {
  std::size_t* cores = nullptr;
  std::size_t cores_given = 0;  // 0: --cores not given
  std::string spec = "real";
  std::string work;
  std::string factor_text;
  std::string cost_model;
  std::optional<proto::SimConfig> sim;  // set by the checks when --machine is sim:...
  std::unique_ptr<proto::Machine> machine;
  proto::SimMachine* sim_machine = nullptr;
};

namespace {

// A factor outside this range turns a unit's microseconds into nothing or into ages: a typo, and
// virtual times that overflow 64-bit ticks.
constexpr double kMinFactor = 1e-6;
constexpr double kMaxFactor = 1e6;

double parse_factor(const std::string& text) {
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size() || !std::isfinite(value) ||
      value <= 0) {
    throw FlagError("--sim-factor: '" + text + "' is not a positive number");
  }
  if (value < kMinFactor || value > kMaxFactor) {
    throw FlagError("--sim-factor: '" + text + "' is out of range (must be 1e-06 to 1e+06)");
  }
  return value;
}

}  // namespace

MachineFlags::MachineFlags(Flags& flags, std::size_t& cores, bool declares_work)
    : state_(std::make_unique<State>()) {
  State& s = *state_;
  s.cores = &cores;
  // The range is wide on purpose: asking for more cores than exist deserves its own message.
  constexpr std::size_t kMaxCores = 4096;
  const std::size_t real = proto::RealMachine::available_cores();
  const std::string default_work = declares_work ? "declared" : "measured";
  s.work = default_work;
  s.factor_text = "1";
  flags.integer("cores", s.cores_given, 1, kMaxCores, "real cores to run on (with --machine sim:N: N, or leave it out)",
                "all (" + std::to_string(real) + ")");
  flags.text("machine", s.spec, "MACHINE",
             "real (this machine's cores) or a simulated machine sim:N or sim:SxC (S sockets of "
             "C cores), N up to " + std::to_string(proto::kMaxSimCores));
  flags.text("sim-work", s.work, "WORD",
             "with sim: a unit's virtual duration is its measured host time (measured) or the "
             "work the app declares with charge_work (declared)");
  flags.text("sim-factor", s.factor_text, "X",
             "with sim and measured work: multiply host time by X (1e-06 to 1e+06)");
  flags.text("cost-model", s.cost_model, "FILE",
             "with sim: runtime costs from this file (docs/cost-model.md) instead of the "
             "calibrated defaults");
  flags.check([&s, real, default_work] {
    const bool sim = s.spec != "real";
    if (!sim) {
      for (const auto& [flag, value, unset] :
           {std::tuple{"--sim-work", &s.work, default_work}, std::tuple{"--sim-factor", &s.factor_text, std::string("1")},
            std::tuple{"--cost-model", &s.cost_model, std::string()}}) {
        if (*value != unset) {
          throw FlagError(std::string(flag) + " " + *value +
                          ": only has an effect with --machine sim:N");
        }
      }
      if (s.cores_given > real) {
        throw FlagError("--cores " + std::to_string(s.cores_given) + ": this machine has only " +
                        std::to_string(real) + (real == 1 ? " core" : " cores"));
      }
      *s.cores = s.cores_given != 0 ? s.cores_given : real;
      return;
    }
    // The program's language prices its own constructs (LanguageTable::costs) where a
    // --cost-model file names none.
    proto::SimConfig config;
    config.language_costs = true;
    try {
      config.topology = proto::SimTopology::parse(s.spec);
    } catch (const proto::ConfigError& error) {
      throw FlagError(std::string("--machine: ") + error.what() + " (or 'real')");
    }
    // --cores may repeat the simulated machine's size (scripts that run one command on real
    // and simulated cores give both), not contradict it.
    if (s.cores_given != 0 && s.cores_given != config.topology.cores()) {
      throw FlagError("--cores " + std::to_string(s.cores_given) + ": the simulated machine " +
                      s.spec + " has " + std::to_string(config.topology.cores()) +
                      " cores; leave --cores out or give --cores " + std::to_string(config.topology.cores()));
    }
    if (s.work == "declared") {
      config.work = proto::SimWork::declared;
    } else if (s.work == "measured") {
      config.work = proto::SimWork::measured;
    } else {
      throw FlagError("--sim-work: '" + s.work + "' is not one of measured, declared");
    }
    config.factor = parse_factor(s.factor_text);
    if (!s.cost_model.empty()) {
      try {
        config.costs = proto::CostModel::load(s.cost_model);
      } catch (const proto::ConfigError& error) {
        throw FlagError(std::string("--cost-model: ") + error.what());
      }
    }
    *s.cores = config.topology.cores();
    s.sim = std::move(config);
  });
}

MachineFlags::~MachineFlags() = default;

bool MachineFlags::simulated() const noexcept { return state_->sim.has_value(); }

proto::Machine& MachineFlags::machine() {
  State& s = *state_;
  if (!s.machine) {
    if (s.sim) {
      auto sim = std::make_unique<proto::SimMachine>(*s.sim);
      s.sim_machine = sim.get();
      s.machine = std::move(sim);
    } else {
      s.machine = std::make_unique<proto::RealMachine>(*s.cores);
    }
  }
  return *s.machine;
}

void MachineFlags::report(std::ostream& out) const {
  const proto::SimMachine* sim = state_->sim_machine;
  if (sim == nullptr) return;
  const double hz = sim->config().costs.clock_hz;
  char line[160];
  std::snprintf(line, sizeof line, "virtual time: %.6f s (%llu ticks at %.3g Hz) on %s, %s work\n",
                static_cast<double>(sim->makespan()) / hz,
                static_cast<unsigned long long>(sim->makespan()), hz,
                sim->config().topology.text().c_str(),
                sim->config().work == proto::SimWork::declared ? "declared" : "measured");
  out << line;
}

}  // namespace moirai::program

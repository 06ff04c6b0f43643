// The cost model: what the runtime's own steps cost on a simulated machine, in virtual ticks.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace moirai::proto {

// WorkModel says how declared work (charge_work) becomes virtual time; `moirai-calibrate --fit`
// fits it from real runs. A unit that declared d cycles on core k lasts d x rate x speed_k ticks
// alone, where the cores' speeds spread by `core_spread`, and longer while other cores are busy:
// its work advances at 1 / (1 + stretch_machine x (other busy cores) + stretch_socket x (other
// busy cores of its socket)).
struct WorkModel {
  double rate = 1.0;                                      // ticks per declared cycle
  std::map<std::string, double, std::less<>> site_rates;  // by the unit's ending site "file:line"
  double stretch_machine = 0;  // per other busy core anywhere
  double stretch_socket = 0;   // per other busy core in the same socket
  double core_spread = 0;      // coefficient of variation of the cores' speeds (0: all alike)

  // rate_at is the rate of declared work of a unit ending at `site` ("file:line").
  double rate_at(std::string_view site) const;
  // stretches says whether busy cores slow each other's work down.
  bool stretches() const noexcept { return stretch_machine > 0 || stretch_socket > 0; }
};

// CostModel holds the virtual cost of each runtime step (docs/cost-model.md). The defaults were
// calibrated on the real runtime by `moirai-calibrate` (see default_model).
struct CostModel {
  double clock_hz = 1e9;               // ticks per virtual second
  std::uint64_t switch_ticks = 0;      // decision made -> the unit starts (switch into the VP)
  std::uint64_t communication = 0;     // unit ended -> the core asks for the runtime lock
  // ... after a unit ended by the construct so named, where it differs (a long unit's end also
  // reads the OS's accounts; a send may copy its message)
  std::map<std::string, std::uint64_t, std::less<>> communications;
  std::uint64_t lock = 0;              // taking and releasing a free runtime lock
  std::uint64_t lock_handoff = 0;      // ... more when another core held it last (its lines move)
  std::uint64_t lock_contended = 0;    // ... more again for a core that waited for it: the holder
                                       // has just written the lines this core's hold reads
  std::uint64_t assigner = 0;          // one call of the language's assigner
  // An idle core spins `idle_spin` ticks, then parks: work made ready for it while it spins
  // costs `wake` until it looks, once it is parked `wake_parked` (the kernel wakes it).
  std::uint64_t wake = 0;
  std::uint64_t wake_parked = 0;
  std::uint64_t idle_spin = 0;
  std::uint64_t handler = 0;           // a request handler of any construct not named below
  std::map<std::string, std::uint64_t, std::less<>> handlers;  // per construct display name

  WorkModel work;  // how declared work becomes virtual time

  // OpenMpTasks is LLVM's libomp's work per empty task on the calibrated machine, in ticks:
  // creating one, and running it to its completion, each without and with a depend clause.
  struct OpenMpTasks {
    std::uint64_t create = 0, create_dep = 0, end = 0, end_dep = 0;
  };
  // omp holds the `omp.*` lines (all four or none), which moirai-calibrate measures with
  // moirai-omp-task-cost. The simulated machine does not use them: `moirai record --cost-model`
  // hands them to the OpenMP tool, which books them in OpenMP traces as estimated runtime work.
  std::optional<OpenMpTasks> omp;

  // handler_cost is what the handler of the construct named `construct` costs.
  std::uint64_t handler_cost(std::string_view construct) const;
  // communication_cost is the communication after a unit that the construct `construct` ended.
  std::uint64_t communication_cost(std::string_view construct) const;
  // wake_cost is what waking a core that has been idle for `idle` ticks costs.
  std::uint64_t wake_cost(std::uint64_t idle) const noexcept { return idle < idle_spin ? wake : wake_parked; }
  // text writes the model in the file format parse reads.
  std::string text() const;
  // parse reads a model from `text`; `origin` names it in errors. Keys not given keep their
  // value in `base`. Throws ConfigError naming the origin, the line and what is wrong.
  static CostModel parse(std::string_view text, const std::string& origin, const CostModel& base = default_model());
  // load reads the model file at `path` over `base` (ConfigError when it is unreadable or
  // malformed).
  static CostModel load(const std::string& path, const CostModel& base = default_model());
  // default_model is the compiled-in model of the runtime's own steps, calibrated on the
  // development machine; per-construct handler costs come from the language.
  static CostModel default_model();
};

}  // namespace moirai::proto

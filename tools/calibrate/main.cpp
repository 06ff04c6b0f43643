// moirai-calibrate: measures what the runtime's own steps cost on this machine's real cores and
// writes them as a cost model (docs/cost-model.md) for the simulated machine.
//
// It runs small SSR programs that exercise every construct with units that do no work of their
// own, watches them with an observer that reads the host clock at each instrumentation point,
// and takes the median of each step: a handler per construct, the assigner, the empty unit
// (switch into the VP and back), the way from a unit's end to its handler (communication, with
// the free lock), and, on two cores, the wake-up of an idle core by another core's handler. It
// also runs moirai-omp-task-cost, when it was built, for LLVM's libomp's work per task (the
// `omp.*` lines, which `moirai record --cost-model` books in OpenMP traces).
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "fit_command.h"
#include "moirai/program/app_main.h"
#include "moirai/program/flags.h"
#include "moirai/instrument/clock.h"
#include "moirai/proto_runtime/cost_model.h"
#include "moirai/proto_runtime/errors.h"
#include "moirai/proto_runtime/real_machine.h"
#include "moirai/ssr/ssr.h"
#include "task_cost_probe.h"

namespace {

using namespace moirai;
using instrument::Clock;

// Samples collects host-clock durations of each runtime step, per core without locks (each
// core writes only its own slot); the wake-up needs the last handler exit of any core.
class Samples final : public RuntimeObserver {
 public:
  void run_start(const LanguageInfo& language, std::size_t cores) override {
    names_.clear();
    for (const ConstructInfo& construct : language.constructs) names_.push_back(construct.name);
    const std::vector<std::string>& names = names_;
    cores_.assign(cores, Core{});
    for (Core& core : cores_) core.handlers.resize(names.size());
  }
  void unit_begin(CoreId core, VpId, UnitId) override { cores_[core].unit_begin = Clock::now(); }
  void unit_end(CoreId core, VpId, UnitId, ConstructKind, const CallSite&) override {
    Core& c = cores_[core];
    c.unit_end = Clock::now();
    c.units.push_back(c.unit_end - c.unit_begin);
  }
  void handler_enter(CoreId core, ConstructKind, UnitId) override {
    Core& c = cores_[core];
    c.handler_enter = Clock::now();
    if (!c.waited) c.communication.push_back(c.handler_enter - c.unit_end);
    c.waited = false;
  }
  void handler_exit(CoreId core, ConstructKind kind, UnitId) override {
    Core& c = cores_[core];
    const std::uint64_t now = Clock::now();
    c.handlers[kind].push_back(now - c.handler_enter);
    last_handler_exit_.store(now, std::memory_order_relaxed);
    last_handler_core_.store(core, std::memory_order_relaxed);
  }
  void assigner_enter(CoreId core) override { cores_[core].assigner_enter = Clock::now(); }
  void assigner_exit(CoreId core, UnitId) override {
    Core& c = cores_[core];
    c.assigner.push_back(Clock::now() - c.assigner_enter);
  }
  void lock_wait_begin(CoreId core) override { cores_[core].waited = true; }
  void idle_end(CoreId core) override {
    const std::uint64_t now = Clock::now();
    const std::uint64_t freed = last_handler_exit_.load(std::memory_order_relaxed);
    if (last_handler_core_.load(std::memory_order_relaxed) != core && freed != 0 && now > freed) {
      cores_[core].wake.push_back(now - freed);
    }
  }

  // collect merges every core's samples of one step.
  template <class Pick>
  std::vector<std::uint64_t> collect(Pick pick) const {
    std::vector<std::uint64_t> all;
    for (const Core& core : cores_) {
      const std::vector<std::uint64_t>& some = pick(core);
      all.insert(all.end(), some.begin(), some.end());
    }
    return all;
  }
  std::vector<std::uint64_t> handler(ConstructKind kind) const {
    return collect([kind](const Core& c) -> const std::vector<std::uint64_t>& { return c.handlers[kind]; });
  }
  const std::vector<std::string>& names() const { return names_; }

  struct Core {
    std::uint64_t unit_begin = 0, unit_end = 0, handler_enter = 0, assigner_enter = 0;
    bool waited = false;
    std::vector<std::uint64_t> units, communication, assigner, wake;
    std::vector<std::vector<std::uint64_t>> handlers;
  };

 private:
  std::vector<std::string> names_;
  std::vector<Core> cores_;
  std::atomic<std::uint64_t> last_handler_exit_{0};
  std::atomic<CoreId> last_handler_core_{kAnyCore};
};

inline const ssr::MessageType<int> kTyped{"calibrate typed"};
inline const ssr::MessageType<int> kGlobal{"calibrate global"};

// every_construct uses each SSR construct `rounds` times with empty units.
void every_construct(ssr::Context& ctx, int rounds) {
  const ssr::VpRef self = ctx.self();
  const ssr::VpRef echo = ctx.create_vp(
      [self, rounds](ssr::Context& me) {
        for (int i = 0; i < rounds; ++i) me.send_from_to(self, me.receive_from_to<int>(self));
        for (int i = 0; i < rounds; ++i) me.send_of_type_to(kTyped, self, i);
        for (int i = 0; i < rounds; ++i) me.send_of_type(kGlobal, i);
      },
      {.name = "echo", .core = ctx.core()});
  for (int i = 0; i < rounds; ++i) {
    ctx.send_from_to(echo, i);
    (void)ctx.receive_from_to<int>(echo);
  }
  for (int i = 0; i < rounds; ++i) (void)ctx.receive_of_type_to(kTyped);
  for (int i = 0; i < rounds; ++i) (void)ctx.receive_of_type(kGlobal);
  for (int i = 0; i < rounds; ++i) {
    ssr::Singleton once{"calibrate once"};
    ctx.singleton(once, [] {});
  }
  for (int i = 0; i < rounds; ++i) ctx.create_vp([](ssr::Context&) {}, {.name = "empty", .core = ctx.core()});
}

// cross_core bounces a message between cores 0 and 1, so each side idles until the other's
// handler frees it: the wake-up latency.
void cross_core(ssr::Context& ctx, int rounds) {
  const ssr::VpRef self = ctx.self();
  const ssr::VpRef far = ctx.create_vp(
      [self, rounds](ssr::Context& me) {
        for (int i = 0; i < rounds; ++i) me.send_from_to(self, me.receive_from_to<int>(self));
      },
      {.name = "far", .core = 1});
  for (int i = 0; i < rounds; ++i) {
    ctx.send_from_to(far, i);
    (void)ctx.receive_from_to<int>(far);
  }
}

double median_ns(std::vector<std::uint64_t> samples) {
  if (samples.empty()) return 0;
  std::nth_element(samples.begin(), samples.begin() + static_cast<std::ptrdiff_t>(samples.size() / 2), samples.end());
  return static_cast<double>(samples[samples.size() / 2]) * 1e9 / Clock::info().hz;
}

std::uint64_t ticks(double ns) { return static_cast<std::uint64_t>(ns + 0.5); }

// lock_ns is the cost of taking and releasing a free test-and-test-and-set lock, the kind the
// runtime uses, measured directly because the runtime's own never waits on one core.
double lock_ns() {
  static std::atomic<bool> held{false};  // static: the compiler must not see through it
  constexpr int kPairs = 1'000'000;
  const std::uint64_t begin = Clock::now();
  for (int i = 0; i < kPairs; ++i) {
    while (held.load(std::memory_order_relaxed) || held.exchange(true, std::memory_order_acquire)) {
    }
    held.store(false, std::memory_order_release);
  }
  return static_cast<double>(Clock::now() - begin) * 1e9 / Clock::info().hz / kPairs;
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::string_view(argv[i]) == "--fit") return calibrate::fit_main(argc, argv);
  }
  std::int64_t rounds = 20000;
  std::string output;
  program::Flags flags("moirai-calibrate",
                       "Measures the runtime's own costs on this machine's real cores (handlers, "
                       "assigner,\nswitch, communication, lock, wake-up) and writes them as a cost "
                       "model for --cost-model\n(docs/cost-model.md). Times are medians, in ns: "
                       "ticks of a 1 GHz virtual clock. With\nmoirai-omp-task-cost built, also LLVM's "
                       "libomp's work per task (omp.* lines, for\nmoirai record --cost-model).\n"
                       "With --fit TRACE..., fits a machine model from "
                       "traces of real runs instead (--fit --help).");
  flags.integer("rounds", rounds, 100, 10'000'000, "uses of each construct");
  flags.text("output", output, "FILE", "write the model here (default: standard output)");
  flags.parse_or_exit(argc, argv);

  return program::run_app(flags.app(), [&] {
    const int n = static_cast<int>(rounds);
    Samples one;
    {
      proto::RealMachine machine(1);
      ssr::RunOptions options;
      options.observer = &one;
      ssr::run(machine, [n](ssr::Context& ctx) { every_construct(ctx, n); }, options);
    }
    Samples two;
    const bool have_two = proto::RealMachine::available_cores() >= 2;
    if (have_two) {
      proto::RealMachine machine(2);
      ssr::RunOptions options;
      options.observer = &two;
      options.seed_core = 0;
      ssr::run(machine, [n](ssr::Context& ctx) { cross_core(ctx, n); }, options);
    }

    // What tight loops cannot show (a parked core's wake-up, the lock's hand-off between cores,
    // how long an idle core spins) keeps the compiled-in value.
    proto::CostModel model = proto::CostModel::default_model();
    model.clock_hz = 1e9;
    const double lock = lock_ns();
    const double communication = median_ns(one.collect([](const Samples::Core& c) -> const auto& { return c.communication; }));
    model.lock = ticks(lock);
    model.communication = ticks(std::max(0.0, communication - lock));
    model.assigner = ticks(median_ns(one.collect([](const Samples::Core& c) -> const auto& { return c.assigner; })));
    model.switch_ticks = ticks(median_ns(one.collect([](const Samples::Core& c) -> const auto& { return c.units; })));
    model.wake = have_two ? ticks(median_ns(two.collect([](const Samples::Core& c) -> const auto& { return c.wake; })))
                          : proto::CostModel::default_model().wake;
    std::uint64_t most = 0;
    std::map<std::string, std::uint64_t> handlers;
    for (ConstructKind kind = 0; kind < one.names().size(); ++kind) {
      const std::vector<std::uint64_t> samples = one.handler(kind);
      if (samples.empty()) continue;
      const std::uint64_t cost = ticks(median_ns(samples));
      handlers[one.names()[kind]] = cost;
      most = std::max(most, cost);
    }
    model.handler = most;  // a construct never seen here: assume the dearest
    for (const auto& [name, cost] : handlers) model.handlers[name] = cost;

    std::cerr << "moirai-calibrate: host clock " << Clock::info().source << " at "
              << Clock::info().hz / 1e6 << " MHz, " << rounds << " rounds per construct"
              << (have_two ? "" : " (1 core only: wake is the default)") << '\n';
    // libomp's work per task: the probe's medians, in ns (the model's ticks at 1 GHz).
    try {
      const tools::ProbedTaskCost probed = tools::probe_task_cost();
      model.omp = proto::CostModel::OpenMpTasks{ticks(probed.cost.create), ticks(probed.cost.create_dep),
                                                ticks(probed.cost.end), ticks(probed.cost.end_dep)};
      std::cerr << "moirai-calibrate: libomp's work per task " << probed.how << '\n';
    } catch (const std::runtime_error& error) {
      std::cerr << "moirai-calibrate: no omp.* lines: " << error.what() << '\n';
    }
    calibrate::write_model(model.text(), output);
    return 0;
  });
}

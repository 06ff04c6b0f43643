#include "moirai/proto_runtime/real_machine.h"

#include <hwloc.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "moirai/proto_runtime/errors.h"
#include "moirai/proto_runtime/spin_lock.h"

namespace moirai::proto {

namespace {

constexpr auto kIdleSpin = std::chrono::nanoseconds(RealMachine::kIdleSpinNs);

// Parking is one core's wake-up word: notify_work bumps `epoch`; a core that found no work
// sleeps on it (a futex through std::atomic::wait) only after announcing so in `sleeping`.
struct alignas(64) Parking {
  std::atomic<std::uint32_t> epoch{0};
  std::atomic<bool> sleeping{false};
};

// Topology owns hwloc's view of the machine.
struct Topology {
  hwloc_topology_t handle = nullptr;
  Topology() {
    if (hwloc_topology_init(&handle) != 0 || hwloc_topology_load(handle) != 0) {
      throw ConfigError(std::string("hwloc could not load the machine topology: ") +
                        std::strerror(errno));
    }
  }
  ~Topology() { hwloc_topology_destroy(handle); }
  Topology(const Topology&) = delete;
  Topology& operator=(const Topology&) = delete;

  // pus lists the processing units one per physical core first, then the second hardware
  // thread of each core, and so on, so N cores land on N physical cores when they exist.
  std::vector<hwloc_obj_t> pus() const {
    const int count = hwloc_get_nbobjs_by_type(handle, HWLOC_OBJ_PU);
    std::vector<std::pair<std::pair<unsigned, unsigned>, hwloc_obj_t>> ranked;
    for (int i = 0; i < count; ++i) {
      hwloc_obj_t pu = hwloc_get_obj_by_type(handle, HWLOC_OBJ_PU, static_cast<unsigned>(i));
      hwloc_obj_t core = hwloc_get_ancestor_obj_by_type(handle, HWLOC_OBJ_CORE, pu);
      const unsigned sibling = core != nullptr ? pu->sibling_rank : 0;
      const unsigned core_index = core != nullptr ? core->logical_index : pu->logical_index;
      ranked.push_back({{sibling, core_index}, pu});
    }
    std::stable_sort(ranked.begin(), ranked.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<hwloc_obj_t> ordered;
    for (const auto& entry : ranked) ordered.push_back(entry.second);
    return ordered;
  }
};

}  // namespace

struct RealMachine::Impl {
  Topology topology;
  std::vector<hwloc_obj_t> pus;  // pus[k] animates core k
  std::unique_ptr<Parking[]> parking;
  std::size_t cores = 0;

  void core_loop(CoreScheduler& scheduler, CoreId core);
  void pin(CoreId core);
};

RealMachine::RealMachine(std::size_t cores) : impl_(std::make_unique<Impl>()) {
  std::vector<hwloc_obj_t> pus = impl_->topology.pus();
  if (pus.empty()) throw ConfigError("hwloc found no processing units on this machine");
  if (cores > pus.size()) {
    throw ConfigError("asked for " + std::to_string(cores) + " cores, but this machine has " +
                      std::to_string(pus.size()) + " processing units (hwloc)");
  }
  impl_->cores = cores == 0 ? pus.size() : cores;
  pus.resize(impl_->cores);
  impl_->pus = std::move(pus);
  impl_->parking = std::make_unique<Parking[]>(impl_->cores);
}

RealMachine::~RealMachine() = default;

std::size_t RealMachine::core_count() const { return impl_->cores; }

std::size_t RealMachine::available_cores() {
  Topology topology;
  return topology.pus().size();
}

unsigned RealMachine::pu_os_index(CoreId core) const { return impl_->pus.at(core)->os_index; }

std::string RealMachine::describe_core(CoreId core) const {
  return "core " + std::to_string(core) + " (PU P#" + std::to_string(pu_os_index(core)) + ")";
}

bool RealMachine::parked(CoreId core) const noexcept {
  return impl_->parking[core].sleeping.load(std::memory_order_acquire);
}

void RealMachine::notify_work(CoreId core) {
  auto poke = [](Parking& parking) {
    parking.epoch.fetch_add(1, std::memory_order_seq_cst);
    if (parking.sleeping.load(std::memory_order_seq_cst)) parking.epoch.notify_one();
  };
  if (core == kAnyCore) {
    for (std::size_t k = 0; k < impl_->cores; ++k) poke(impl_->parking[k]);
  } else {
    poke(impl_->parking[core]);
  }
}

void RealMachine::notify_handed(CoreId core) {
  Parking& parking = impl_->parking[core];
  // The VP was handed before this fence. A core that announces its sleep after the fence sees
  // it in its last look (core_loop); one that announced it before is seen here and woken.
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (parking.sleeping.load(std::memory_order_seq_cst)) {
    parking.epoch.fetch_add(1, std::memory_order_seq_cst);
    parking.epoch.notify_one();
  }
}

void RealMachine::Impl::pin(CoreId core) {
  if (hwloc_set_cpubind(topology.handle, pus[core]->cpuset, HWLOC_CPUBIND_THREAD) != 0) {
    // Not fatal (a container may forbid binding), but the user must know the run is unpinned.
    std::fprintf(stderr, "moirai: warning: could not pin core %u to PU P#%u: %s\n", core,
                 pus[core]->os_index, std::strerror(errno));
  }
}

void RealMachine::Impl::core_loop(CoreScheduler& scheduler, CoreId core) {
  pin(core);
  Parking& word = parking[core];
  for (;;) {
    const std::uint32_t seen = word.epoch.load(std::memory_order_acquire);
    const CoreScheduler::Step step = scheduler.step(core);
    if (step == CoreScheduler::Step::finished) return;
    if (step == CoreScheduler::Step::animated) continue;
    // Idle: spin on the wake-up word and on the runtime's hand-over a little, then sleep on
    // the word.
    const auto spin_until = std::chrono::steady_clock::now() + kIdleSpin;
    bool woken = false;
    while (!woken) {
      for (int i = 0; i < 64 && !woken; ++i) {
        cpu_relax();
        woken = word.epoch.load(std::memory_order_relaxed) != seen || scheduler.handed_work(core);
      }
      if (std::chrono::steady_clock::now() >= spin_until) break;
    }
    if (woken) continue;
    word.sleeping.store(true, std::memory_order_seq_cst);
    std::atomic_thread_fence(std::memory_order_seq_cst);  // pairs with notify_handed's
    if (word.epoch.load(std::memory_order_seq_cst) == seen && !scheduler.handed_work(core)) {
      word.epoch.wait(seen, std::memory_order_seq_cst);
    }
    word.sleeping.store(false, std::memory_order_relaxed);
  }
}

void RealMachine::drive(CoreScheduler& scheduler) {
  // Every core's thread starts before any core steps: a run missing a core (the system refused
  // its thread: no memory for its stack) would wait for it forever, so then none steps, the ones
  // started are joined, and the run fails before it began.
  std::atomic<int> gate{0};  // 0 wait, 1 go, 2 give up
  std::vector<std::thread> threads;
  threads.reserve(impl_->cores);
  std::exception_ptr refused;
  for (std::size_t k = 0; k < impl_->cores && !refused; ++k) {
    try {
      threads.emplace_back([this, &scheduler, &gate, k] {
        gate.wait(0, std::memory_order_acquire);
        if (gate.load(std::memory_order_acquire) == 1) impl_->core_loop(scheduler, static_cast<CoreId>(k));
      });
    } catch (const std::system_error& error) {
      refused = std::make_exception_ptr(std::runtime_error("cannot start the thread of core " + std::to_string(k) +
                                                           ": " + error.what() + " (out of memory, or of threads)"));
    } catch (...) {
      refused = std::current_exception();
    }
  }
  gate.store(refused ? 2 : 1, std::memory_order_release);
  gate.notify_all();
  for (std::thread& thread : threads) thread.join();
  if (refused) std::rethrow_exception(refused);
}

}  // namespace moirai::proto

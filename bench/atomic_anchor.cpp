#include "atomic_anchor.h"

#include <hwloc.h>

#include <atomic>
#include <thread>

#include "bench_util.h"

namespace moirai::bench {

namespace {

constexpr std::uint64_t kWarmupRoundTrips = 1000;

bool pin_to_pu(hwloc_topology_t topology, unsigned index) {
  hwloc_obj_t pu = hwloc_get_obj_by_type(topology, HWLOC_OBJ_PU, index);
  return pu != nullptr && hwloc_set_cpubind(topology, pu->cpuset, HWLOC_CPUBIND_THREAD) == 0;
}

}  // namespace

AnchorBatch atomic_ping_pong(std::uint64_t round_trips) {
  AnchorBatch batch;
  hwloc_topology_t topology = nullptr;
  if (hwloc_topology_init(&topology) != 0 || hwloc_topology_load(topology) != 0) {
    batch.error = "hwloc could not load the topology";
    return batch;
  }
  if (hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_PU) < 2) {
    hwloc_topology_destroy(topology);
    batch.error = "needs two PUs";
    return batch;
  }
  // The calling thread's binding is put back afterwards: the benchmark thread goes on to run
  // other rows.
  hwloc_cpuset_t before = hwloc_bitmap_alloc();
  const bool had_binding = hwloc_get_cpubind(topology, before, HWLOC_CPUBIND_THREAD) == 0;
  alignas(64) std::atomic<std::uint64_t> ball{0};
  std::atomic<bool> pinned{false};
  std::thread pong([&] {
    pinned.store(pin_to_pu(topology, 1));
    for (std::uint64_t seen = 1;; seen += 2) {
      std::uint64_t now;
      while ((now = ball.load(std::memory_order_acquire)) < seen) {
      }
      if (now == UINT64_MAX) return;
      ball.store(seen + 1, std::memory_order_release);
    }
  });
  const bool here = pin_to_pu(topology, 0);
  std::uint64_t next = 1;
  auto round_trip = [&] {
    ball.store(next, std::memory_order_release);
    while (ball.load(std::memory_order_acquire) != next + 1) {
    }
    next += 2;
  };
  for (std::uint64_t i = 0; i < kWarmupRoundTrips; ++i) round_trip();
  const Clock::time_point start = Clock::now();
  for (std::uint64_t i = 0; i < round_trips; ++i) round_trip();
  const Clock::time_point end = Clock::now();
  ball.store(UINT64_MAX, std::memory_order_release);
  pong.join();
  if (had_binding) hwloc_set_cpubind(topology, before, HWLOC_CPUBIND_THREAD);
  hwloc_bitmap_free(before);
  hwloc_topology_destroy(topology);
  if (!here || !pinned.load()) {
    batch.error = "hwloc could not pin the threads";
    return batch;
  }
  batch.seconds = seconds_between(start, end);
  return batch;
}

}  // namespace moirai::bench

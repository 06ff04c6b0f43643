// What else the machine did during a run, per CPU, from the kernel's /proc/stat: time spent on
// any task (ours and other processes') and time the hypervisor stole from the virtual CPU.
#pragma once

#include <cstdint>
#include <vector>

namespace moirai::instrument::detail {

// CpuLoad is one CPU's cumulative times since boot, in nanoseconds.
struct CpuLoad {
  std::uint64_t busy_ns = 0;   // user, nice, system, irq, softirq (guest time is inside user)
  std::uint64_t steal_ns = 0;  // the hypervisor ran something else on this virtual CPU
};

// read_cpu_loads reads /proc/stat; index = CPU number; empty when it cannot be read.
std::vector<CpuLoad> read_cpu_loads();

}  // namespace moirai::instrument::detail

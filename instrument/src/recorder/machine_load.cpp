#include "machine_load.h"

#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

namespace moirai::instrument::detail {

std::vector<CpuLoad> read_cpu_loads() {
  std::vector<CpuLoad> loads;
  std::ifstream stat("/proc/stat");
  const double ns_per_tick = 1e9 / static_cast<double>(sysconf(_SC_CLK_TCK));
  for (std::string line; std::getline(stat, line);) {
    // "cpuN user nice system idle iowait irq softirq steal ..."; the first line is all CPUs.
    if (line.rfind("cpu", 0) != 0 || line.size() < 4 || line[3] < '0' || line[3] > '9') continue;
    std::istringstream fields(line.substr(3));
    std::size_t cpu = 0;
    std::uint64_t user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
    if (!(fields >> cpu >> user >> nice >> system >> idle >> iowait >> irq >> softirq)) continue;
    fields >> steal;  // older kernels lack it
    if (loads.size() <= cpu) loads.resize(cpu + 1);
    loads[cpu].busy_ns = static_cast<std::uint64_t>(static_cast<double>(user + nice + system + irq + softirq) * ns_per_tick);
    loads[cpu].steal_ns = static_cast<std::uint64_t>(static_cast<double>(steal) * ns_per_tick);
  }
  return loads;
}

}  // namespace moirai::instrument::detail

// What the trace says about the machine under the run: the metadata chunk (clock, counters,
// host, hwloc's topology or a simulated machine's own header) and, per core, what else the CPU
// did during the run (the closing chunk's OS lines).
#include <hwloc.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>

#include "recorder/impl.h"

namespace moirai::instrument {

using namespace detail;

// start_os_time chooses how (or whether) the run measures what the OS took from each unit, and
// reads the CPUs' loads it starts from.
void TraceRecorder::Impl::start_os_time() {
  if (time != nullptr) {
    os_method = "none: a simulated machine's cores are not the host's";
  } else if (!options.os_time) {
    os_method = "off";
  } else {
    OsTimeProbe probe;
    os_method = probe.start(Clock::info().hz, Clock::now());
    os_on = true;
    loads_at_start = read_cpu_loads();
  }
}

template <class Line>
void TraceRecorder::Impl::write_topology(Line& line) {
  hwloc_topology_t topology = nullptr;
  if (hwloc_topology_init(&topology) == 0 && hwloc_topology_load(topology) == 0) {
    line("topology", "packages:" +
                         std::to_string(hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_PACKAGE)) +
                         " cores:" +
                         std::to_string(hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_CORE)) +
                         " pus:" + std::to_string(hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_PU)));
  }
  if (topology != nullptr) hwloc_topology_destroy(topology);
}

void TraceRecorder::Impl::write_metadata(const std::string& language, std::size_t core_count,
                                         double unit_cost_ns) {
  const ClockInfo host_clock = Clock::info();
  const ClockInfo clock = time != nullptr ? ClockInfo{time->source(), time->hz()} : host_clock;
  std::string text;
  auto line = [&text](const std::string& key, const std::string& value) { key_value_line(text, key, value); };
  line("format", "moirai-trace");
  line("language", language);
  if (names_domains) line("lock_domains", "named");
  line("cores", std::to_string(core_count));
  line("clock_source", clock.source);
  line("clock_hz", std::to_string(clock.hz));
  line("start_unix_ns", std::to_string(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                           std::chrono::system_clock::now().time_since_epoch())
                                           .count()));
  line("start_ticks", std::to_string(time != nullptr ? 0 : Clock::now()));
  line("command_line", options.command_line);
  std::string present, backends, notes, missing;
  for (const CounterStatus& counter : counter_set.status()) {
    if (counter.present) {
      present += (present.empty() ? "" : ",") + counter.name;
      backends += (backends.empty() ? "" : ",") + counter.backend;
      if (!counter.note.empty()) notes += (notes.empty() ? "" : ";") + counter.name + ": " + counter.note;
    } else {
      std::string reason = counter.reason;  // ';' separates the entries
      std::replace(reason.begin(), reason.end(), ';', ',');
      missing += (missing.empty() ? "" : ";") + counter.name + ": " + reason;
    }
  }
  line("counters", present);
  line("counter_backends", backends);
  line("counter_notes", notes);
  line("counter_read", counter_set.read_method());
  line("missing_counters", missing);
  line("unit_record_bytes", std::to_string(unit_size));
  line("os_time", os_method);
  line("unit_record_cost_ns", std::to_string(unit_cost_ns));
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  line("host", host);
  for (const auto& [key, value] : options.metadata) line(key, value);
  if (time != nullptr) {
    for (const auto& [key, value] : time->header()) line(key, value);
  } else {
    line("machine", "real");
    write_topology(line);
  }
  std::lock_guard<std::mutex> hold(writer_mutex);
  write_chunk(fmt::ChunkType::metadata, fmt::kNoCore, text.data(), text.size());
}

// os_closing_lines says, per core, what else its CPU did during the run: the other processes'
// time there (the CPU's busy time less this core's thread) and the hypervisor's steal.
void TraceRecorder::Impl::os_closing_lines(std::vector<std::pair<std::string, std::string>>& lines) const {
  if (!os_on) return;
  const std::vector<CpuLoad> loads_at_end = read_cpu_loads();
  const double ns_per_tick = 1e9 / Clock::info().hz;
  std::string cpus, threads, walls, others, steals, moved;
  for (std::size_t k = 0; k < cores.size(); ++k) {
    const CoreRecorder& core = cores[k];
    const char* comma = k ? "," : "";
    const std::uint64_t thread = core.thread_cpu_stop - core.thread_cpu_start;
    std::uint64_t other = 0, steal = 0;
    if (core.cpu >= 0 && static_cast<std::size_t>(core.cpu) < std::min(loads_at_start.size(), loads_at_end.size())) {
      const CpuLoad& a = loads_at_start[static_cast<std::size_t>(core.cpu)];
      const CpuLoad& b = loads_at_end[static_cast<std::size_t>(core.cpu)];
      const std::uint64_t busy = b.busy_ns > a.busy_ns ? b.busy_ns - a.busy_ns : 0;
      other = busy > thread ? busy - thread : 0;
      steal = b.steal_ns > a.steal_ns ? b.steal_ns - a.steal_ns : 0;
    }
    cpus += comma + std::to_string(core.cpu);
    threads += comma + std::to_string(thread);
    walls += comma + std::to_string(static_cast<std::uint64_t>(static_cast<double>(core.wall_stop - core.wall_start) * ns_per_tick));
    others += comma + std::to_string(other);
    steals += comma + std::to_string(steal);
    if (core.moved) moved += (moved.empty() ? "" : ",") + std::to_string(k);
  }
  lines.emplace_back("os_core_cpu", cpus);
  lines.emplace_back("os_core_wall_ns", walls);
  lines.emplace_back("os_core_thread_cpu_ns", threads);
  lines.emplace_back("os_core_other_busy_ns", others);
  lines.emplace_back("os_core_steal_ns", steals);
  lines.emplace_back("os_unpinned_cores", moved);
}

}  // namespace moirai::instrument

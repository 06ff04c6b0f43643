#include "moirai/visualize/analyses/os_load.h"

#include <algorithm>
#include <sstream>

#include "moirai/visualize/model/run_span.h"

namespace moirai::visualize {

namespace {

// per_core reads a closing key's comma list (one number per core); empty when absent.
std::vector<double> per_core(const trace::Trace& trace, const char* key) {
  std::vector<double> values;
  auto found = trace.metadata.find(key);
  if (found == trace.metadata.end()) return values;
  std::istringstream in(found->second);
  for (std::string item; std::getline(in, item, ',');) {
    try {
      values.push_back(std::stod(item));
    } catch (const std::exception&) {
      values.push_back(-1);
    }
  }
  return values;
}

}  // namespace

std::vector<std::uint32_t> OsLoad::busy_cores() const {
  std::vector<const CoreOsLoad*> busy;
  for (const CoreOsLoad& core : cores) {
    if (core.share > kBusyShare) busy.push_back(&core);
  }
  std::stable_sort(busy.begin(), busy.end(), [](auto* a, auto* b) { return a->taken > b->taken; });
  std::vector<std::uint32_t> ids;
  for (const CoreOsLoad* core : busy) ids.push_back(core->core);
  return ids;
}

OsLoad os_load(const trace::Trace& trace) {
  OsLoad load;
  auto method = trace.metadata.find("os_time");
  load.method = method != trace.metadata.end() ? method->second : "not recorded (a trace older than format 2)";
  load.measured = method != trace.metadata.end() && method->second.rfind("none", 0) != 0 && method->second != "off";
  load.cores.resize(trace.core_count);
  for (std::uint32_t k = 0; k < trace.core_count; ++k) load.cores[k].core = k;
  for (const trace::Unit& unit : trace.units) {
    if (unit.taken == 0 && unit.switches == 0 && unit.migrations == 0) continue;
    CoreOsLoad& core = load.cores.at(unit.core);
    core.taken += unit.taken;
    ++core.units_hit;
    core.switches += unit.switches;
    core.migrations += unit.migrations;
    load.taken += unit.taken;
  }
  const std::uint64_t span = run_span(trace).length();
  const std::vector<double> cpus = per_core(trace, "os_core_cpu");
  const std::vector<double> others = per_core(trace, "os_core_other_busy_ns");
  const std::vector<double> steals = per_core(trace, "os_core_steal_ns");
  const std::vector<double> unpinned = per_core(trace, "os_unpinned_cores");
  // A front-end that measured the OS's share per core over the run, not per unit (an MPI rank's
  // run queue wait), gives it here; the units then carry none.
  const std::vector<double> waited = per_core(trace, "os_core_run_queue_wait_ns");
  for (CoreOsLoad& core : load.cores) {
    if (core.taken == 0 && core.core < waited.size() && waited[core.core] > 0) {
      core.taken = static_cast<std::uint64_t>(waited[core.core] * trace.clock_hz / 1e9);
      core.per_run = true;
      load.taken += core.taken;
    }
    core.share = span ? static_cast<double>(core.taken) / static_cast<double>(span) : 0;
    if (core.core < cpus.size()) core.cpu = static_cast<int>(cpus[core.core]);
    if (core.core < others.size()) core.other_busy_ns = others[core.core];
    if (core.core < steals.size()) core.steal_ns = steals[core.core];
    core.unpinned = std::find(unpinned.begin(), unpinned.end(), static_cast<double>(core.core)) != unpinned.end();
  }
  return load;
}

}  // namespace moirai::visualize

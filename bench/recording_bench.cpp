// What recording costs at one unit boundary, by part: one read of the counters through each
// backend (PAPI_read, a perf_event group read(2), rdpmc) and the OS-time probe around a unit.
// A backend this machine lacks is reported as an error row naming why, never timed as zero.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "counter_catalog.h"
#include "counter_set.h"
#include "moirai/instrument/clock.h"
#include "os_time.h"
#include "papi_counters.h"
#include "perf_event_counters.h"

namespace {

using namespace moirai::instrument;
using namespace moirai::instrument::detail;

void BM_BoundaryRead_PAPI(benchmark::State& state) {
  int code = 0;
  const std::string reason = papi_probe("perf::TASK-CLOCK", &code);
  if (!reason.empty()) {
    state.SkipWithError(reason.c_str());
    return;
  }
  PapiThread thread;
  const std::string failed = thread.start({code});
  if (!failed.empty()) {
    state.SkipWithError(failed.c_str());
    return;
  }
  long long values[1] = {};
  for (auto _ : state) {
    thread.read(values);
    benchmark::DoNotOptimize(values);
  }
  thread.stop();
}
BENCHMARK(BM_BoundaryRead_PAPI);

void BM_BoundaryRead_PerfEventGroupRead(benchmark::State& state) {
  // Three software events, as a user would ask for: one read(2) returns them all.
  std::vector<KernelEvent> events;
  for (const char* name : {"perf::TASK-CLOCK", "perf::CONTEXT-SWITCHES", "perf::PAGE-FAULTS"}) {
    events.push_back(find_kernel_event(name)->kernel);
  }
  PerfEventGroup group;
  const std::string failed = group.open(events);
  if (!failed.empty()) {
    state.SkipWithError(failed.c_str());
    return;
  }
  long long values[3] = {};
  for (auto _ : state) {
    group.read(values);
    benchmark::DoNotOptimize(values);
  }
  state.SetLabel(group.method());
}
BENCHMARK(BM_BoundaryRead_PerfEventGroupRead);

void BM_BoundaryRead_Rdpmc(benchmark::State& state) {
  PerfEventGroup group;
  const std::string failed = group.open({find_kernel_event("perf::INSTRUCTIONS")->kernel,
                                         find_kernel_event("perf::CYCLES")->kernel});
  if (!failed.empty()) {
    state.SkipWithError(("no hardware counters to read with rdpmc: " + failed).c_str());
    return;
  }
  if (group.method() != "rdpmc") {
    state.SkipWithError(group.method().c_str());
    return;
  }
  long long values[2] = {};
  for (auto _ : state) {
    group.read(values);
    benchmark::DoNotOptimize(values);
  }
}
BENCHMARK(BM_BoundaryRead_Rdpmc);

// The OS-time probe around a short unit (under OsTimeProbe::kMeasuredNs): two reads of the CPU
// id, no system call.
void BM_OsTimeProbe_ShortUnit(benchmark::State& state) {
  OsTimeProbe probe;
  probe.start(Clock::info().hz, Clock::now());
  OsTaken taken;
  for (auto _ : state) {
    probe.begin(Clock::now());
    benchmark::DoNotOptimize(probe.end(Clock::now(), taken));
  }
}
BENCHMARK(BM_OsTimeProbe_ShortUnit);

// What a long unit adds: one read of the thread's CPU time at its end (and one at its begin
// after a long gap; a getrusage call when the OS took something).
void BM_OsTimeProbe_ThreadCpuTimeRead(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(OsTimeProbe::thread_cpu_ns());
}
BENCHMARK(BM_OsTimeProbe_ThreadCpuTimeRead);

void BM_ClockReading(benchmark::State& state) {
  Clock::info();
  for (auto _ : state) benchmark::DoNotOptimize(Clock::now());
}
BENCHMARK(BM_ClockReading);

}  // namespace

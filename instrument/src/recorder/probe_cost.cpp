// The probe's own cost: what recording adds to one unit, measured at the start of each run and
// stored in the trace, so that the report states the probe effect rather than guessing it.
#include <cstring>
#include <vector>

#include "recorder/impl.h"

namespace moirai::instrument {

using namespace detail;

// measure_unit_cost times what recording adds to one unit, through the same code the run uses:
// the clock readings of a whole life-line, two reads of the counters, the OS-time probe and the
// copy into a buffer. The report shows it as the probe's own overhead kind. (A loop of clock
// readings alone, as before, stated 2-3 times less than the probe-effect benchmark measured.)
double TraceRecorder::Impl::measure_unit_cost() {
  CounterSet::Thread counters_here;
  const bool counting = counter_set.present() > 0 && counter_set.start(counters_here).empty();
  OsTimeProbe os;
  // Its units are short, as most are: a unit of OsTimeProbe::kMeasuredNs or more also pays one
  // read of the thread's CPU time (docs/performance.md has both costs).
  if (os_on) os.start(Clock::info().hz, Clock::now());
  std::vector<unsigned char> scratch(unit_size * 64);
  long long values[fmt::kMaxCounters] = {};
  // At most 2000 units or about 2 ms, whichever comes first: system calls on a busy virtual
  // machine can take microseconds each.
  constexpr int kMaxSamples = 2000;
  const std::uint64_t budget = static_cast<std::uint64_t>(Clock::info().hz * 2e-3);
  const std::uint64_t t0 = Clock::now();
  int samples = 0;
  while (samples < kMaxSamples && (samples < 16 || Clock::now() - t0 < budget)) {
    fmt::UnitRecord probe{};
    probe.assign = Clock::now();
    probe.begin = Clock::now();
    if (os_on) os.begin(probe.begin);
    if (counting) counter_set.read(counters_here, values);
    if (counting) counter_set.read(counters_here, values);
    probe.end = Clock::now();
    OsTaken taken;
    if (os_on) os.end(probe.end, taken);
    probe.locked = probe.end;
    probe.handler = Clock::now();
    probe.handler_end = Clock::now();
    std::memcpy(scratch.data() + (static_cast<std::size_t>(samples) % 64) * unit_size, &probe, sizeof probe);
    ++samples;
  }
  const double per_unit_ticks = static_cast<double>(Clock::now() - t0) / samples;
  if (counting) counter_set.stop(counters_here);
  volatile unsigned char keep = scratch[0];  // the copies must not be optimised away
  (void)keep;
  return per_unit_ticks * 1e9 / Clock::info().hz;
}

}  // namespace moirai::instrument

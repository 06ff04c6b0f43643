#include "moirai/instrument/clock.h"

#include <time.h>
#include <x86intrin.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

namespace moirai::instrument {

namespace {

std::uint64_t monotonic_ns() noexcept {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ull +
         static_cast<std::uint64_t>(ts.tv_nsec);
}

bool tsc_is_invariant() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("flags", 0) != 0) continue;
    std::istringstream words(line);
    bool constant = false, nonstop = false;
    for (std::string word; words >> word;) {
      constant = constant || word == "constant_tsc";
      nonstop = nonstop || word == "nonstop_tsc";
    }
    return constant && nonstop;
  }
  return false;
}

ClockInfo choose() {
#if defined(__x86_64__)
  if (tsc_is_invariant()) {
    const std::uint64_t ns0 = monotonic_ns();
    const std::uint64_t tsc0 = __rdtsc();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const std::uint64_t ns1 = monotonic_ns();
    const std::uint64_t tsc1 = __rdtsc();
    return ClockInfo{"tsc", static_cast<double>(tsc1 - tsc0) * 1e9 / static_cast<double>(ns1 - ns0)};
  }
#endif
  return ClockInfo{"monotonic", 1e9};
}

bool use_tsc = false;

}  // namespace

const ClockInfo& Clock::info() {
  static const ClockInfo chosen = [] {
    ClockInfo info = choose();
    use_tsc = info.source == "tsc";
    return info;
  }();
  return chosen;
}

std::uint64_t Clock::now() noexcept {
#if defined(__x86_64__)
  if (use_tsc) return __rdtsc();
#endif
  return monotonic_ns();
}

}  // namespace moirai::instrument

// Shared helpers of the Moirai test suite: a watchdog for runs, the core-count parameter and
// observers that let a test see what the runtime handled.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <future>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <type_traits>
#include <unordered_map>
#include <utility>

#include "moirai/core/ids.h"
#include "moirai/core/runtime_observer.h"

namespace moirai::test {

// kRunLimit bounds every run of the runtime in the suite; generous, because the sanitizer build
// is slow. Speed is never asserted: the limit only turns a hang into a clear failure.
inline constexpr std::chrono::seconds kRunLimit{240};

// within runs `body` on a thread of its own and returns its result (or rethrows what it threw).
// A body still running after `limit` means the runtime hangs; a hung runtime cannot be
// cancelled, so the process aborts with a message naming `what`.
template <class F>
auto within(std::chrono::seconds limit, const std::string& what, F&& body)
    -> std::invoke_result_t<F&> {
  using Result = std::invoke_result_t<F&>;
  std::packaged_task<Result()> task(std::ref(body));
  std::future<Result> result = task.get_future();
  std::thread worker(std::move(task));
  if (result.wait_for(limit) != std::future_status::ready) {
    std::fprintf(stderr,
                 "\nFATAL: %s did not finish within %lld s: the runtime hangs (a deadlock it did "
                 "not detect, or a lost wake-up). A hung runtime cannot be cancelled: aborting "
                 "the test process.\n",
                 what.c_str(), static_cast<long long>(limit.count()));
    std::fflush(stderr);
    std::abort();
  }
  worker.join();
  return result.get();
}

// CoreCountTest parameterises a test over the number of cores of the run (1 and 2), as marl
// parameterises its tests over worker counts.
class CoreCountTest : public ::testing::TestWithParam<std::size_t> {
 protected:
  std::size_t cores() const { return GetParam(); }
};

// kSimulatedCores as a core count parameter means the simulated machine sim:40 (declared work).
inline constexpr std::size_t kSimulatedCores = 40;

inline std::string core_count_name(const ::testing::TestParamInfo<std::size_t>& info) {
  if (info.param == kSimulatedCores) return "Sim" + std::to_string(info.param) + "Cores";
  return std::to_string(info.param) + (info.param == 1 ? "Core" : "Cores");
}

// MOIRAI_INSTANTIATE_MACHINES runs a suite on 1 and 2 real cores and on sim:40, for behaviour
// that must not depend on the machine (errors, deadlocks, the constructs' outcomes).
#define MOIRAI_INSTANTIATE_MACHINES(Suite)                                                   \
  INSTANTIATE_TEST_SUITE_P(Machines, Suite,                                                  \
                           ::testing::Values(std::size_t{1}, std::size_t{2},                 \
                                             ::moirai::test::kSimulatedCores),               \
                           ::moirai::test::core_count_name)

#define MOIRAI_INSTANTIATE_CORE_COUNTS(Suite)                                                     \
  INSTANTIATE_TEST_SUITE_P(CoreCounts, Suite, ::testing::Values(std::size_t{1}, std::size_t{2}), \
                           ::moirai::test::core_count_name)

// site_of renders "file.cpp:line" with the file's base name, the way a message names a call site
// (format_site prints the full path; its tail is the base name).
inline std::string site_of(const char* file, unsigned line) {
  std::string path(file);
  const std::size_t slash = path.find_last_of('/');
  return (slash == std::string::npos ? path : path.substr(slash + 1)) + ":" + std::to_string(line);
}

// HandledProbe tells a test which requests of which VP the language's handlers have finished:
// unit_end maps a unit to its VP, handler_exit for that unit counts (vp, construct) as handled.
// Tests use it to order events that the language itself does not order (e.g. "this VP has ended").
class HandledProbe : public RuntimeObserver {
 public:
  void unit_end(CoreId, VpId vp, UnitId unit, ConstructKind, const CallSite&) override {
    std::lock_guard<std::mutex> hold(mutex_);
    unit_vp_[unit] = vp;
  }
  void handler_exit(CoreId, ConstructKind kind, UnitId unit) override {
    std::lock_guard<std::mutex> hold(mutex_);
    auto found = unit_vp_.find(unit);
    if (found == unit_vp_.end()) return;
    ++handled_[{found->second, kind}];
    unit_vp_.erase(found);
  }
  // handled counts the requests of construct `kind` made by `vp` whose handler has returned.
  std::size_t handled(VpId vp, ConstructKind kind) const {
    std::lock_guard<std::mutex> hold(mutex_);
    auto found = handled_.find({vp, kind});
    return found == handled_.end() ? 0 : found->second;
  }

 private:
  mutable std::mutex mutex_;
  std::unordered_map<UnitId, VpId> unit_vp_;
  std::map<std::pair<VpId, ConstructKind>, std::size_t> handled_;
};

}  // namespace moirai::test

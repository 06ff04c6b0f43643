// What the OS took from each unit, measured for real: a thread of another kind pinned to a core's
// CPU takes about half of it, and the trace must say so unit by unit; where the kernel counts a
// thread's CPU time (perf::TASK-CLOCK), every unit's taken time must agree with it.
#include <gtest/gtest.h>
#include <sched.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "moirai/instrument/trace_recorder.h"
#include "moirai/ssr/ssr.h"
#include "moirai/trace/reader.h"

namespace moirai {
namespace {

// spin_for is work of a known wall length, not a wait: the OS's share of a unit is measured
// against the unit's wall time, so a time is the only way to say how long the unit is.
void spin_for(std::chrono::milliseconds length) {
  const auto until = std::chrono::steady_clock::now() + length;
  while (std::chrono::steady_clock::now() < until) {
  }
}

// run records a program on one core whose eight units each spin 40 ms of wall time; with
// `compete`, a plain thread pinned to the core's CPU spins alongside for the whole run.
trace::Trace run(bool compete, const std::string& name) {
  const std::string path = ::testing::TempDir() + "moirai_os_" + name + "_" + std::to_string(getpid()) + ".mtrace";
  std::atomic<bool> stop{false};
  std::thread competitor;
  {
    instrument::TraceRecorder recorder({path, {"perf::TASK-CLOCK"}, "os_time_test", 4096});
    ssr::run(
        [&](ssr::Context& ctx) {
          if (compete) {
            const int cpu = sched_getcpu();  // the core's own CPU: it is pinned there
            competitor = std::thread([cpu, &stop] {
              cpu_set_t set;
              CPU_ZERO(&set);
              CPU_SET(cpu, &set);
              sched_setaffinity(0, sizeof set, &set);
              while (!stop.load(std::memory_order_relaxed)) {
              }
            });
          }
          for (int i = 0; i < 8; ++i) {
            ctx.create_vp([](ssr::Context&) { spin_for(std::chrono::milliseconds(40)); });
          }
        },
        {.cores = 1, .observer = &recorder});
    stop = true;
    if (competitor.joinable()) competitor.join();
  }
  trace::Trace trace = trace::read_trace(path);
  std::remove(path.c_str());
  return trace;
}

struct Sums {
  double span_ms = 0, taken_ms = 0;
  std::size_t long_units = 0, hit_units = 0;
};

Sums sums(const trace::Trace& t) {
  Sums s;
  for (const trace::Unit& unit : t.units) {
    const double span = static_cast<double>(unit.record.end - unit.record.begin) * 1e3 / t.clock_hz;
    EXPECT_LE(unit.taken, unit.record.end - unit.record.begin);
    if (span < 30) continue;  // the seed's short units
    ++s.long_units;
    s.span_ms += span;
    s.taken_ms += static_cast<double>(unit.taken) * 1e3 / t.clock_hz;
    if (unit.taken > 0) ++s.hit_units;
  }
  return s;
}

// Where the kernel counts the thread's CPU time, taken time is the unit's wall time less it.
void expect_agrees_with_task_clock(const trace::Trace& t) {
  if (t.counters.empty()) return;  // no perf::TASK-CLOCK here: nothing independent to compare
  for (const trace::Unit& unit : t.units) {
    const double span_ns = static_cast<double>(unit.record.end - unit.record.begin) * 1e9 / t.clock_hz;
    const double cpu_ns = static_cast<double>(unit.counters.at(0));
    const double taken_ns = static_cast<double>(unit.taken) * 1e9 / t.clock_hz;
    const double off_cpu_ns = span_ns > cpu_ns ? span_ns - cpu_ns : 0;
    // The counter and the thread clock are read one after the other: on a loaded machine the
    // thread may lose one scheduler tick (4 ms at HZ=250) between the two readings.
    EXPECT_NEAR(taken_ns, off_cpu_ns, 0.05 * span_ns + 4e6)
        << "unit " << unit.record.unit << ": " << span_ns << " ns long, " << cpu_ns << " ns on the CPU";
  }
}

TEST(OsTime, AThreadSharingTheCoresCpuShowsAsTakenTimeInEveryLongUnit) {
  const trace::Trace t = run(true, "compete");
  ASSERT_NE(t.metadata.at("os_time").rfind("none", 0), 0u) << t.metadata.at("os_time");
  const Sums s = sums(t);
  ASSERT_GE(s.long_units, 8u);  // the seed may be slowed to 30 ms as well
  EXPECT_GE(s.hit_units, 6u) << "the competitor shares the CPU: nearly every 40 ms unit loses time";
  EXPECT_GT(s.taken_ms, 0.2 * s.span_ms) << "about half of the CPU went to the competitor";
  std::uint64_t switches = 0;
  for (const trace::Unit& unit : t.units) switches += unit.switches;
  EXPECT_GE(switches, s.hit_units) << "time is taken by switching the thread out";
  expect_agrees_with_task_clock(t);
  // The closing figures name the core's CPU and the other work on it.
  EXPECT_FALSE(t.metadata.at("os_core_cpu").empty());
  EXPECT_GT(std::stod(t.metadata.at("os_core_other_busy_ns")), 50e6) << "the competitor ran there";
}

TEST(OsTime, UndisturbedUnitsAgreeWithTheKernelsCpuTime) {
  // Whatever else this machine runs, the taken time the trace states is the off-CPU time the
  // kernel's own task clock implies.
  const trace::Trace t = run(false, "alone");
  expect_agrees_with_task_clock(t);
  EXPECT_GE(sums(t).long_units, 8u);
}

TEST(OsTime, OffOnRequestAndNeverOnASimulatedMachine) {
  const std::string path = ::testing::TempDir() + "moirai_os_off_" + std::to_string(getpid()) + ".mtrace";
  {
    instrument::RecorderOptions options{path, {}, "os_time_test", 4096};
    options.os_time = false;
    instrument::TraceRecorder recorder(options);
    ssr::run([](ssr::Context&) {}, {.cores = 1, .observer = &recorder});
  }
  const trace::Trace t = trace::read_trace(path);
  std::remove(path.c_str());
  EXPECT_EQ(t.metadata.at("os_time"), "off");
  EXPECT_EQ(t.metadata.count("os_core_cpu"), 0u);
}

}  // namespace
}  // namespace moirai

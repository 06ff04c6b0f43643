// Counters on whatever machine runs the suite: each test first asks the real PAPI and the real
// kernel (perf_event_open) what this machine can count, then asserts that Moirai counted exactly
// that, through the backend it says, with plausible values, and named the rest missing with
// every backend's reason. Nothing is skipped: both kinds of machine are asserted.
#include <gtest/gtest.h>
#include <linux/perf_event.h>
#include <papi.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <string>
#include <vector>

#include "moirai/instrument/counters.h"
#include "moirai/instrument/trace_recorder.h"
#include "moirai/ssr/ssr.h"
#include "moirai/trace/reader.h"

namespace moirai {
namespace {

// What this machine can do, found without Moirai.
struct Machine {
  bool papi_active = false;      // PAPI's perf_event component is enabled
  bool kernel_software = false;  // perf_event_open counts a thread's task-clock
  bool kernel_instructions = false;
};

bool kernel_counts(std::uint32_t type, std::uint64_t config) {
  perf_event_attr attr{};
  attr.size = sizeof attr;
  attr.type = type;
  attr.config = config;
  attr.exclude_hv = 1;
  const int fd = static_cast<int>(syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0));
  if (fd < 0) return false;
  close(fd);
  return true;
}

bool papi_counts(const char* name) {
  if (PAPI_is_initialized() == PAPI_NOT_INITED) PAPI_library_init(PAPI_VER_CURRENT);
  int code = 0;
  if (PAPI_event_name_to_code(name, &code) != PAPI_OK) return false;
  int set = PAPI_NULL;
  bool ok = PAPI_create_eventset(&set) == PAPI_OK && PAPI_add_event(set, code) == PAPI_OK &&
            PAPI_start(set) == PAPI_OK;
  long long value = 0;
  if (ok) ok = PAPI_stop(set, &value) == PAPI_OK;
  if (set != PAPI_NULL) {
    PAPI_cleanup_eventset(set);
    PAPI_destroy_eventset(&set);
  }
  return ok;
}

Machine this_machine() {
  Machine machine;
  if (PAPI_is_initialized() == PAPI_NOT_INITED) PAPI_library_init(PAPI_VER_CURRENT);
  const int component = PAPI_get_component_index("perf_event");
  const PAPI_component_info_t* info = component >= 0 ? PAPI_get_component_info(component) : nullptr;
  machine.papi_active = info != nullptr && !info->disabled;
  machine.kernel_software = kernel_counts(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
  machine.kernel_instructions = kernel_counts(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);
  return machine;
}

std::string expected_backend(const char* name, bool kernel_can) {
  if (papi_counts(name)) return "papi";
  return kernel_can ? "perf_event" : "";
}

// A run with real work in its units, so counters have something to count.
trace::Trace record(const std::vector<std::string>& counters, const std::string& name) {
  const std::string path = ::testing::TempDir() + "moirai_counters_" + name + "_" + std::to_string(getpid()) + ".mtrace";
  {
    instrument::TraceRecorder recorder({path, counters, "counter_test", 4096});
    ssr::run(
        [](ssr::Context& ctx) {
          for (int i = 0; i < 8; ++i) {
            ctx.create_vp([](ssr::Context&) {
              // Fresh pages from the kernel (malloc could hand back pages already touched):
              // 128 page faults, then 1.3 M additions.
              constexpr std::size_t kBytes = 512 * 1024;
              void* memory = mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
              ASSERT_NE(memory, MAP_FAILED);
              auto* data = static_cast<double*>(memory);
              const std::size_t count = kBytes / sizeof(double);
              for (std::size_t k = 0; k < count; ++k) data[k] = 1.0;
              volatile double sum = 0;
              for (int round = 0; round < 20; ++round) {
                for (std::size_t k = 0; k < count; ++k) sum = sum + data[k];
              }
              munmap(memory, kBytes);
            });
          }
        },
        {.cores = 2, .observer = &recorder});
  }
  trace::Trace trace = trace::read_trace(path);
  std::remove(path.c_str());
  return trace;
}

std::size_t index_of(const trace::Trace& trace, const std::string& name) {
  for (std::size_t i = 0; i < trace.counters.size(); ++i) {
    if (trace.counters[i] == name) return i;
  }
  return trace.counters.size();
}

TEST(Counters, EachEventIsCountedByTheBackendThisMachineHasOrNamedMissingWithReasons) {
  const Machine machine = this_machine();
  std::printf("counter backends here: PAPI %s, kernel software events %s, kernel instructions %s\n",
              machine.papi_active ? "active" : "disabled", machine.kernel_software ? "yes" : "no",
              machine.kernel_instructions ? "yes" : "no");
  const std::vector<std::string> asked{"perf::TASK-CLOCK", "perf::PAGE-FAULTS", "PAPI_TOT_INS"};
  const std::string expected[] = {
      expected_backend("perf::TASK-CLOCK", machine.kernel_software),
      expected_backend("perf::PAGE-FAULTS", machine.kernel_software),
      expected_backend("PAPI_TOT_INS", machine.kernel_instructions)};
  const trace::Trace t = record(asked, "backends");

  std::size_t present = 0;
  for (std::size_t i = 0; i < asked.size(); ++i) {
    const std::size_t at = index_of(t, asked[i]);
    if (expected[i].empty()) {
      EXPECT_EQ(at, t.counters.size()) << asked[i] << " is recorded, but neither PAPI nor the kernel counts it here";
      bool named = false;
      for (const std::string& missing : t.missing_counters) {
        if (missing.rfind(asked[i] + ": ", 0) != 0) continue;
        named = true;
        // Both backends' reasons, so the user knows what to change.
        EXPECT_NE(missing.find("PAPI"), std::string::npos) << missing;
        EXPECT_NE(missing.find("perf_event: "), std::string::npos) << missing;
      }
      EXPECT_TRUE(named) << asked[i] << " is neither recorded nor named missing";
      continue;
    }
    ASSERT_LT(at, t.counters.size()) << asked[i] << " should be counted by " << expected[i];
    EXPECT_EQ(t.counter_backends.at(at), expected[i]) << asked[i];
    ++present;
  }
  EXPECT_EQ(t.counters.size(), present);
  EXPECT_EQ(t.missing_counters.size(), asked.size() - present);

  // Plausible values: a thread's CPU time inside a unit never exceeds the unit's wall time, and
  // units that sum 16 MB of doubles take CPU time and fault pages in.
  const std::size_t clock = index_of(t, "perf::TASK-CLOCK");
  if (clock < t.counters.size()) {
    double cpu_ns = 0, wall_ns = 0;
    for (const trace::Unit& unit : t.units) {
      cpu_ns += static_cast<double>(unit.counters.at(clock));
      wall_ns += static_cast<double>(unit.record.end - unit.record.begin) * 1e9 / t.clock_hz;
    }
    EXPECT_GT(cpu_ns, 0.0);
    EXPECT_LE(cpu_ns, wall_ns * 1.02 + 1e5) << "more CPU time than wall time inside units";
  }
  const std::size_t faults = index_of(t, "perf::PAGE-FAULTS");
  if (faults < t.counters.size()) {
    std::uint64_t total = 0;
    for (const trace::Unit& unit : t.units) total += unit.counters.at(faults);
    EXPECT_GE(total, 8u) << "eight units each touched fresh pages (transparent huge pages may fault many at once)";
  }
  const std::size_t instructions = index_of(t, "PAPI_TOT_INS");
  if (instructions < t.counters.size()) {
    std::uint64_t total = 0;
    for (const trace::Unit& unit : t.units) total += unit.counters.at(instructions);
    EXPECT_GT(total, 8u * 20u * 65536u) << "each of eight units adds 1.3 M doubles";
  }
}

TEST(Counters, TheListSaysWhatThisMachineCountsAndWhatPresetsMapTo) {
  const Machine machine = this_machine();
  const std::vector<instrument::CounterStatus> list = instrument::available_counters();
  auto find = [&](const std::string& name) -> const instrument::CounterStatus* {
    for (const auto& status : list) {
      if (status.name == name) return &status;
    }
    return nullptr;
  };
  for (const char* name : {"perf::TASK-CLOCK", "perf::CONTEXT-SWITCHES", "perf::CPU-MIGRATIONS", "perf::PAGE-FAULTS"}) {
    const instrument::CounterStatus* status = find(name);
    ASSERT_NE(status, nullptr) << name;
    EXPECT_EQ(status->present, machine.kernel_software || papi_counts(name)) << name;
    if (!status->present) {
      EXPECT_FALSE(status->reason.empty()) << name;
    }
  }
  const instrument::CounterStatus* instructions = find("PAPI_TOT_INS");
  ASSERT_NE(instructions, nullptr);
  EXPECT_EQ(instructions->present, papi_counts("PAPI_TOT_INS") || machine.kernel_instructions);
  EXPECT_NE(instructions->note.find("perf::INSTRUCTIONS"), std::string::npos) << instructions->note;
  const instrument::CounterStatus* l1 = find("PAPI_L1_DCM");
  ASSERT_NE(l1, nullptr);
  EXPECT_NE(l1->note.find("nearest"), std::string::npos) << "a preset mapped to a different event says so";
  const std::string summary = instrument::counter_machine_summary();
  EXPECT_NE(summary.find(machine.papi_active ? "PAPI: active" : "PAPI's perf_event component is disabled"),
            std::string::npos) << summary;
}

TEST(Counters, AnUnknownNameIsNamedMissingNotGuessed) {
  const trace::Trace t = record({"perf::NO-SUCH-EVENT", "PAPI_NOT_A_PRESET"}, "unknown");
  EXPECT_TRUE(t.counters.empty());
  ASSERT_EQ(t.missing_counters.size(), 2u);
  for (const std::string& missing : t.missing_counters) {
    EXPECT_NE(missing.find("no event by this name"), std::string::npos) << missing;
  }
}

TEST(Counters, PerfNamesAreCaseBlindAndTakeTheKernelsAliases) {
  const Machine machine = this_machine();
  const trace::Trace t = record({"perf::task-clock", "perf::CS"}, "aliases");
  EXPECT_EQ(t.counters.size(), machine.kernel_software || papi_counts("perf::TASK-CLOCK") ? 2u : 0u);
}

// A program that recorded a run may use PAPI itself afterwards, on the thread that made the
// recorder: the recorder counted on that thread too (timing its own cost per unit) and must leave
// PAPI's record of it in place. libpapi crashed in PAPI_event_name_to_code when it did not.
TEST(Counters, PapiAnswersTheRecordingThreadAfterTheRun) {
  const bool task_clock = papi_counts("perf::TASK-CLOCK");
  const bool page_faults = papi_counts("perf::PAGE-FAULTS");
  const trace::Trace t = record({"perf::TASK-CLOCK", "perf::PAGE-FAULTS"}, "after");
  EXPECT_FALSE(t.units.empty());
  EXPECT_EQ(papi_counts("perf::TASK-CLOCK"), task_clock);
  EXPECT_EQ(papi_counts("perf::PAGE-FAULTS"), page_faults);
}

}  // namespace
}  // namespace moirai

// The report on OpenMP programs (apps/omp/omp_scenarios on 2 real threads, recorded through
// libmoirai_ompt.so): each planted pathology's hint names its rule and the source line of the
// construct that plants it (the first `#pragma omp task`, `critical` or `for` at or after the
// scenario's first "planted:" comment), first of the hints, with a loss of the size of what the
// fixed variant (the same work, the cause removed) really gains: (makespan - fixed makespan) x 2
// threads. The clean run gets no hint above the line.
//
// On a loaded machine a run's makespan moves with what else runs: planted and fixed runs
// alternate, each makespan less what the OS took from the run's threads (the trace records it
// per core; its mean over the cores is what the run waited for the OS) and less what recording
// cost them (a run of many small units pays the probe per unit), and each variant keeps
// its shortest of kRuns. The 15% the SSR suite holds (scenario_test.cpp, on the simulated
// machine) does not hold here on a loaded 2-vCPU machine: the loss is held to the gain's order
// of magnitude, and only on a run the report does not call busy; every ratio is printed
// (docs/openmp.md). On a busy run the planted cause may cost nothing (the OS can take it with the
// threads' time): its hint is then held to its line only where the report gives one. The
// scenarios run one at a time (RUN_SERIAL). What the report does not name yet is listed per
// scenario (gap, rank_gap), printed when it shows, and not held.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <limits>
#include <ostream>
#include <string>
#include <vector>

#include "moirai/visualize/analyses/report.h"
#include "support/openmp_run.h"

namespace moirai::test {
namespace {

constexpr int kRuns = 3;
constexpr double kOrderOfMagnitude = 3.0;  // loss within gain / 3 .. gain x 3

struct Planted {
  const char* name;
  const char* scale;  // shortened runs: the test stays well under a minute
  const char* rule;   // the first hint's rule ("": the clean run, no hint)
  // gap: why the report does not yet name this cause first (the rule and site are then printed,
  // not held, nor its loss); "" when it does.
  const char* gap;
  // rank_gap: why the cause's hint, found, need not be first even on a quiet machine ("": it must).
  const char* rank_gap = "";
};

// PrintTo names a scenario in test names and messages (not its bytes).
void PrintTo(const Planted& planted, std::ostream* out) { *out << planted.name; }

const Planted kScenarios[] = {
    {"producer", "0.5", "creator-starvation", ""},
    {"critical", "0.5", "idle-cause", "",
     "critical-path claims first the idle the chain of critical sections forces (parallelism 1.24 < 1.6), naming the chain's "
     "longest unit, the initial task's before the fork, not the critical section; idle-cause names the section with the rest"},
    {"static_tail", "0.7", "idle-tail", ""},
    {"fine_tasks", "0.3", "unit-size", ""},
    {"clean", "2", "", ""},  // long enough that libomp's start (in the initial task's first unit) stays under 5%
};

// planted_line is the line of the construct that plants scenario `name`'s cause in
// apps/omp/omp_scenarios.cpp: the first task, critical or loop pragma at or after the first
// "planted:" comment of the scenario's section ("// --- name:").
int planted_line(const std::string& name) {
  std::ifstream source(std::string(MOIRAI_SOURCE_DIR) + "/apps/omp/omp_scenarios.cpp");
  std::string line;
  bool in_section = false, planted = false;
  for (int number = 1; std::getline(source, line); ++number) {
    if (line.rfind("// --- ", 0) == 0) in_section = line.rfind("// --- " + name + ":", 0) == 0;
    if (!in_section) continue;
    planted = planted || line.find("planted:") != std::string::npos;
    const bool construct = line.find("#pragma omp task") != std::string::npos || line.find("#pragma omp critical") != std::string::npos ||
                           line.find("#pragma omp parallel for") != std::string::npos;
    if (planted && construct) return number;
  }
  return 0;
}

struct Recorded {
  trace::Trace trace;
  visualize::Report report;
};

Recorded record(const Planted& s, bool fixed, int round) {
  std::vector<std::string> command = {MOIRAI_OMP_SCENARIOS, "--scenario", s.name, "--scale", s.scale};
  if (fixed) command.emplace_back("--fixed");
  Recorded run{record_openmp(command, std::string(s.name) + (fixed ? "_fixed_" : "_") + std::to_string(round)), {}};
  run.report = visualize::build_report(run.trace);
  return run;
}

double ms(const trace::Trace& trace, double ticks) { return ticks * 1e3 / trace.clock_hz; }

// os_taken is what the OS took from the run's units, in ticks.
double os_taken(const visualize::Report& report) {
  auto taken = report.lost.by_kind.find("taken by the OS");
  return taken == report.lost.by_kind.end() ? 0 : static_cast<double>(taken->second);
}

// recording is what the recorder's probes cost the run's threads, in ticks: a run of many small
// units pays it per unit, a cost the program does not have unrecorded.
double recording(const visualize::Report& report) {
  auto probe = report.lost.by_kind.find("recording (the probe)");
  return probe == report.lost.by_kind.end() ? 0 : static_cast<double>(probe->second);
}

// own_makespan is a run's makespan less what the OS took from its threads and what recording
// cost them, per thread.
double own_makespan(const Recorded& run) {
  return static_cast<double>(run.report.makespan) -
         (os_taken(run.report) + recording(run.report)) / std::max<std::uint32_t>(run.trace.core_count, 1);
}

std::string hints(const visualize::Report& report) {
  std::string text;
  for (const visualize::Hint& h : report.hints) text += "\n  [" + h.rule + "] " + h.message + " (call site " + h.site + ")";
  return text;
}

class OpenMpScenario : public ::testing::TestWithParam<Planted> {};

TEST_P(OpenMpScenario, FirstHintNamesThePlantedConstructAndWhatFixingItGains) {
  const Planted& s = GetParam();
  const bool clean = std::string(s.rule).empty();
  // Alternate planted and fixed runs; keep each variant's shortest.
  Recorded planted;
  double fixed_makespan = std::numeric_limits<double>::max();
  for (int round = 0; round < kRuns; ++round) {
    Recorded p = record(s, false, round);
    if (round == 0 || own_makespan(p) < own_makespan(planted)) planted = std::move(p);
    if (clean) continue;
    fixed_makespan = std::min(fixed_makespan, own_makespan(record(s, true, round)));
  }
  const visualize::Report& report = planted.report;
  // Every call site in the program names its source file, even where the compiler left no line
  // (clang gives line 0 to two calls it merged): never the binary.
  for (const auto& [id, site] : planted.trace.sites) {
    EXPECT_NE(site.file, MOIRAI_OMP_SCENARIOS) << s.name << ": call site " << id << " (" << site.function << ") names the binary";
  }
  // Where the OS took much of the run, the report says so first (machine-busy) and its figures are
  // qualified: waits stretch by what the OS took from the threads they wait for, and hints that
  // claim such waits (critical-path, idle-tail, long-serial) can outrank the planted cause. On such
  // a run the planted cause's hint must still be found, naming the planted line; its rank, the
  // clean run's silence and the loss are held only on a run the OS left alone, and printed always.
  const bool busy = std::any_of(report.warnings.begin(), report.warnings.end(),
                                [](const std::string& w) { return w.rfind("machine was busy", 0) == 0; });
  if (clean) {
    std::printf("%-12s %s%zu hints above the line%s\n", s.name, busy ? "(busy machine) " : "", report.hints.size(), hints(report).c_str());
    if (!busy) {
      EXPECT_TRUE(report.hints.empty()) << s.name << hints(report);
    }
    return;
  }
  const std::string line = ":" + std::to_string(planted_line(s.name));
  const auto names_line = [&](const visualize::Hint& h) { return h.site.ends_with(line) && h.site.find("omp_scenarios.cpp") != std::string::npos; };
  const visualize::Hint* cause = nullptr;  // the planted cause's hint, above the line or below
  for (const auto* list : {&report.hints, &report.minor_hints}) {
    for (const visualize::Hint& h : *list) {
      if (cause == nullptr && h.rule == s.rule && names_line(h)) cause = &h;
    }
  }
  const bool gap = !std::string(s.gap).empty();
  const visualize::Hint* first = report.hints.empty() ? nullptr : &report.hints.front();
  if (!gap && busy && cause == nullptr) {
    // The OS can take the planted cause's cost away with the threads' time: a critical section
    // serialises nothing while only one thread gets a CPU. Any hint of the rule still names the line.
    for (const auto* list : {&report.hints, &report.minor_hints}) {
      for (const visualize::Hint& h : *list) {
        if (h.rule == s.rule) ADD_FAILURE() << s.name << ": [" << h.rule << "] at " << h.site << ", not at omp_scenarios.cpp" << line;
      }
    }
    std::printf("%-12s (busy machine) no [%s] hint: the OS took %.3f ms of core time%s\n", s.name, s.rule,
                ms(planted.trace, os_taken(report)), hints(report).c_str());
    return;
  }
  if (!gap) {
    ASSERT_NE(cause, nullptr) << s.name << ": no " << s.rule << " hint at omp_scenarios.cpp" << line << hints(report);
    if (!busy && std::string(s.rank_gap).empty()) {
      EXPECT_EQ(first, cause) << s.name << hints(report);
    } else if (first != cause && !std::string(s.rank_gap).empty()) {
      std::printf("%-12s KNOWN GAP: [%s] is not first: %s\n", s.name, s.rule, s.rank_gap);
    }
  } else if (cause == nullptr || first != cause) {
    std::printf("%-12s KNOWN GAP: first hint [%s] at %s, not [%s] at omp_scenarios.cpp%s: %s\n", s.name,
                first ? first->rule.c_str() : "none", first ? first->site.c_str() : "", s.rule, line.c_str(), s.gap);
  }
  const visualize::Hint* shown = cause != nullptr ? cause : first;
  if (shown == nullptr) return;
  const double gain = (own_makespan(planted) - fixed_makespan) * 2;
  const double loss = static_cast<double>(shown->lost);
  std::printf("%-12s %s[%s] rank %s  loss %8.3f ms  gain %8.3f ms  ratio %.2f  (makespan less the OS's and the probe's %.3f ms, fixed %.3f ms; the OS took %.3f ms of core time)\n  %s (call site %s)\n",
              s.name, busy ? "(busy machine) " : "", shown->rule.c_str(), shown == first ? "1" : "not 1", ms(planted.trace, loss), ms(planted.trace, gain),
              gain > 0 ? loss / gain : 0.0, ms(planted.trace, own_makespan(planted)), ms(planted.trace, fixed_makespan),
              ms(planted.trace, os_taken(report)), shown->message.c_str(), shown->site.c_str());
  if (busy || gap) return;
  ASSERT_GT(gain, 0) << s.name << ": the fixed variant must be faster";
  EXPECT_GT(loss, gain / kOrderOfMagnitude) << s.name;
  EXPECT_LT(loss, gain * kOrderOfMagnitude) << s.name;
}

INSTANTIATE_TEST_SUITE_P(Scenarios, OpenMpScenario, ::testing::ValuesIn(kScenarios),
                         [](const auto& param_info) { return std::string(param_info.param.name); });

}  // namespace
}  // namespace moirai::test

// The report on OpenMP programs (apps/omp/omp_scenarios on 2 real threads, recorded through
// libmoirai_ompt.so): each planted pathology's hint names its rule and the source line of the
// construct that plants it (the first `#pragma omp task`, `critical` or `for` at or after the
// scenario's first "planted:" comment), first of the hints, and claims a loss within 15 % of the
// gain replay measures on the same trace with the hint's cause taken away (`moirai report
// --check-losses`, replay/loss_check.h): deterministic for a trace, so no real run time is
// compared. The clean run gets no hint above the line. What the fixed variant really gains on
// quiet runs is bench/omp_scenarios.sh's to measure (docs/performance.md).
//
// A run that did not have the machine to itself (the report calls it busy, or other work took
// more than a tenth of a recorded thread's CPU: support/omp_scenarios.h's quiet) is recorded
// again, up to kAttempts runs: the test waits for a run the machine left alone, as a state, not a
// time. Where every attempt was busy, the OS's share stretches waits by what it took from the threads they waited
// for, and ranks and claims are the OS's as much as the program's: the planted line's hint, where
// the report gives one, must still name its line, and the figures are printed, not held.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "moirai/replay/loss_check.h"
#include "support/omp_scenarios.h"

namespace moirai::test {
namespace {

constexpr int kAttempts = 4;

class OpenMpScenario : public ::testing::TestWithParam<Planted> {};

TEST_P(OpenMpScenario, FirstHintNamesThePlantedConstructAndItsLossHoldsByReplay) {
  const Planted& s = GetParam();
  const bool clean = std::string(s.rule).empty();
  RecordedScenario planted;
  int attempt = 0;
  while (attempt < kAttempts) {
    planted = record_scenario(s, false, std::to_string(attempt++));
    if (quiet(planted.trace, planted.report)) break;
  }
  const visualize::Report& report = planted.report;
  const bool alone = quiet(planted.trace, report);
  const char* state = alone ? "" : "(busy machine) ";
  // Every call site in the program names its source file, even where the compiler left no line
  // (clang gives line 0 to two calls it merged): never the binary.
  for (const auto& [id, site] : planted.trace.sites) {
    EXPECT_NE(site.file, MOIRAI_OMP_SCENARIOS) << s.name << ": call site " << id << " (" << site.function << ") names the binary";
  }
  if (clean) {
    std::printf("%-12s %s%zu hints above the line after %d runs%s\n", s.name, state, report.hints.size(), attempt, hints_text(report).c_str());
    if (alone) {
      EXPECT_TRUE(report.hints.empty()) << s.name << hints_text(report);
    }
    return;
  }
  const std::string line = "omp_scenarios.cpp:" + std::to_string(planted_line(s.name));
  const visualize::Hint* cause = planted_hint(s, report);
  if (cause == nullptr) {
    // On a busy run the OS can take the planted cause's cost away with the threads' time (a
    // critical section serialises nothing while only one thread gets a CPU); a hint of the rule
    // must still name the planted line.
    for (const auto* list : {&report.hints, &report.minor_hints}) {
      for (const visualize::Hint& h : *list) {
        if (h.rule == s.rule) ADD_FAILURE() << s.name << ": [" << h.rule << "] at " << h.site << ", not at " << line;
      }
    }
    std::printf("%-12s %sno [%s] hint after %d runs: the OS took %.3f ms of core time%s\n", s.name, state, s.rule, attempt,
                ms(planted.trace, lost_to(report, "taken by the OS")), hints_text(report).c_str());
    EXPECT_FALSE(alone) << s.name << ": no " << s.rule << " hint at " << line << hints_text(report);
    return;
  }
  const visualize::Hint* first = report.hints.empty() ? nullptr : &report.hints.front();
  const bool rank_gap = !std::string(s.rank_gap).empty();
  if (alone && !rank_gap) {
    EXPECT_EQ(first, cause) << s.name << hints_text(report);
  } else if (first != cause && rank_gap) {
    std::printf("%-12s KNOWN GAP: [%s] is not first: %s\n", s.name, s.rule, s.rank_gap);
  }
  const replay::ClaimedLoss claim{cause->rule, cause->site, cause->units, cause->construct, cause->lost};
  const replay::LossCheck check = replay::check_losses(planted.trace, {claim}).front();
  std::printf("%-12s %s[%s] rank %s  claims %8.3f ms  --remove-cause %s gains %8.3f ms  ratio %.2f  (run %d; the OS took %.3f ms of core time)\n  %s (call site %s)\n",
              s.name, state, cause->rule.c_str(), cause == first ? "1" : "not 1", check.claimed_ms, replay::cause_text(check.cause).c_str(),
              check.gained_ms, check.gained_ms > 0 ? check.claimed_ms / check.gained_ms : 0.0, attempt,
              ms(planted.trace, lost_to(report, "taken by the OS")), cause->message.c_str(), cause->site.c_str());
  ASSERT_NE(check.cause.cause, replay::Cause::none) << s.name << ": replay has no what-if for [" << s.rule << "]";
  if (!alone) return;
  if (!std::string(s.replay_gap).empty()) {
    std::printf("%-12s KNOWN GAP: the claim is not held to replay's gain: %s\n", s.name, s.replay_gap);
    return;
  }
  EXPECT_TRUE(check.agrees()) << s.name << ": claimed " << check.claimed_ms << " ms, replay without "
                              << replay::cause_text(check.cause) << " gains " << check.gained_ms << " ms" << hints_text(report);
}

INSTANTIATE_TEST_SUITE_P(Scenarios, OpenMpScenario, ::testing::ValuesIn(kOmpScenarios),
                         [](const auto& param_info) { return std::string(param_info.param.name); });

}  // namespace
}  // namespace moirai::test

// bench/omp_scenarios.sh's driver: each OpenMP scenario (apps/omp/omp_scenarios on 2 real
// threads, recorded through libmoirai_ompt.so) planted and fixed, kRuns runs each, alternating;
// each variant keeps its shortest makespan less what the OS and the recording probe took from
// its threads. Prints the planted cause's claimed loss beside what the fix really gained,
// (planted - fixed) x 2 threads, and beside what replay gains without the cause on the same
// trace. Real run times are compared here, in a bench, never in a test: the script judges the
// figures, on runs the report did not call busy.
#include <gtest/gtest.h>

#include <cstdio>
#include <limits>
#include <string>

#include "moirai/replay/loss_check.h"
#include "support/omp_scenarios.h"

namespace moirai::test {
namespace {

constexpr int kRuns = 3;

class OmpScenarioGain : public ::testing::TestWithParam<Planted> {};

TEST_P(OmpScenarioGain, ClaimedLossAgainstTheFixedVariantsGain) {
  const Planted& s = GetParam();
  if (std::string(s.rule).empty()) {
    const RecordedScenario run = record_scenario(s, false, "gain");
    std::printf("clean %s%zu hints above the line\n", busy(run.report) ? "(busy machine) " : "", run.report.hints.size());
    return;
  }
  RecordedScenario planted;
  double fixed = std::numeric_limits<double>::max();
  bool any_busy = false;
  for (int round = 0; round < kRuns; ++round) {
    RecordedScenario p = record_scenario(s, false, "gain" + std::to_string(round));
    RecordedScenario f = record_scenario(s, true, "gain" + std::to_string(round));
    any_busy = any_busy || busy(p.report) || busy(f.report);
    if (round == 0 || own_makespan(p) < own_makespan(planted)) planted = std::move(p);
    fixed = std::min(fixed, own_makespan(f));
  }
  const visualize::Hint* cause = planted_hint(s, planted.report);
  if (cause == nullptr) {
    std::printf("%s %sno [%s] hint at the planted line%s\n", s.name, any_busy ? "(busy machine) " : "", s.rule, hints_text(planted.report).c_str());
    return;
  }
  const bool first = !planted.report.hints.empty() && &planted.report.hints.front() == cause;
  const double gain = ms(planted.trace, (own_makespan(planted) - fixed) * planted.trace.core_count);
  const double loss = ms(planted.trace, static_cast<double>(cause->lost));
  const replay::LossCheck check =
      replay::check_losses(planted.trace, {{cause->rule, cause->site, cause->units, cause->construct, cause->lost}}).front();
  std::printf("%s %s[%s] rank %s  loss %.3f ms  gain %.3f ms  ratio %.2f  replayed %.3f ms  (planted %.3f ms, fixed %.3f ms, less the OS's and the probe's)\n",
              s.name, any_busy ? "(busy machine) " : "", cause->rule.c_str(), first ? "1" : "not-1", loss, gain, gain > 0 ? loss / gain : 0.0,
              check.gained_ms, ms(planted.trace, own_makespan(planted)), ms(planted.trace, fixed));
}

INSTANTIATE_TEST_SUITE_P(Scenarios, OmpScenarioGain, ::testing::ValuesIn(kOmpScenarios),
                         [](const auto& param_info) { return std::string(param_info.param.name); });

}  // namespace
}  // namespace moirai::test

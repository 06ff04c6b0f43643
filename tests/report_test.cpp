// The report against hand-built traces whose answers are known exactly.
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

#include "moirai/trace/reader.h"
#include "moirai/visualize/report.h"
#include "support/trace_builder.h"

namespace {

using namespace moirai;
using test_support::TraceBuilder;
constexpr std::uint16_t kCreate = 1;
constexpr std::uint16_t kSendOfTypeTo = 4;

trace::Trace read_back(TraceBuilder& builder, const std::string& name) {
  const std::string path = ::testing::TempDir() + "moirai_report_" + name + "_" + std::to_string(::getpid()) + ".mtrace";
  builder.write(path);
  trace::Trace trace = trace::read_trace(path);
  std::remove(path.c_str());
  return trace;
}

// Core 0 works 80 of 100 ticks (10 decide, 10 overhead after); core 1 idles 50, then works 40.
TEST(Report, ExactUtilisationOfAKnownRun) {
  TraceBuilder builder(2);
  builder.site(1, "app.cpp", 7);
  builder.unit(0, 1, 1, 0, 10, 90, 100, kSendOfTypeTo, 1);
  builder.idle(1, 0, 50);
  builder.unit(1, 2, 2, 50, 55, 95, 100, kSendOfTypeTo, 1);
  builder.constraint(0, kSendOfTypeTo, 1, 2, 45);
  const trace::Trace trace = read_back(builder, "exact");
  const visualize::Report report = visualize::build_report(trace);
  EXPECT_EQ(report.makespan, 100u);
  ASSERT_EQ(report.summary.cores.size(), 2u);
  EXPECT_EQ(report.summary.cores[0].work, 80u);
  EXPECT_EQ(report.summary.cores[0].decision + report.summary.cores[0].communication + report.summary.cores[0].constraint_update, 20u);
  EXPECT_EQ(report.summary.cores[0].idle, 0u);
  EXPECT_EQ(report.summary.cores[1].work, 40u);
  EXPECT_EQ(report.summary.cores[1].idle, 50u);
  ASSERT_EQ(report.idle_causes.size(), 1u);
  EXPECT_EQ(report.idle_causes[0].construct, "send_of_type_to");
  EXPECT_EQ(report.idle_causes[0].site, "app.cpp:7");
  EXPECT_EQ(report.idle_causes[0].ticks, 50u);
}

// The paper's 3.4.1: the creator (VP 1, core 0) runs a worker's unit between two creations while
// core 1 waits for a creation.
TEST(Report, CreatorStarvationNamesCoreZeroAndTheCreateSite) {
  TraceBuilder builder(2);
  builder.site(1, "divider.cpp", 42);
  builder.site(2, "worker.cpp", 9);
  builder.unit(0, 1, 1, 0, 1, 9, 10, kCreate, 1);              // creates VP 2 (on core 0)
  builder.constraint(0, kCreate, 1, 2, 9);
  builder.unit(0, 2, 2, 10, 11, 59, 60, kSendOfTypeTo, 2);      // the worker runs first
  builder.unit(0, 3, 1, 60, 61, 69, 70, kCreate, 1);            // then the next creation
  builder.constraint(0, kCreate, 3, 4, 69);
  builder.idle(1, 0, 70);                                       // core 1 waits for it
  builder.unit(1, 4, 3, 70, 71, 99, 100, kSendOfTypeTo, 2);
  const trace::Trace trace = read_back(builder, "starvation");
  const visualize::Report report = visualize::build_report(trace);
  ASSERT_FALSE(report.hints.empty());
  const visualize::Hint& first = report.hints.front();
  EXPECT_EQ(first.rule, "creator-starvation");
  EXPECT_EQ(first.cores, (std::vector<std::uint32_t>{0}));
  EXPECT_EQ(first.site, "divider.cpp:42");
  EXPECT_EQ(first.begin, 10u);
  EXPECT_EQ(first.end, 60u);
}

// Two cores busy the whole run with small overhead and enough units: nothing to report.
TEST(Report, CleanRunHasNoHint) {
  TraceBuilder builder(2);
  builder.site(1, "app.cpp", 3);
  std::uint64_t unit = 1;
  for (std::uint32_t core = 0; core < 2; ++core) {
    for (std::uint64_t t = 0; t < 300; t += 100) {
      builder.unit(core, unit, core + 1, t, t + 1, t + 99, t + 100, kSendOfTypeTo, 1);
      ++unit;
    }
  }
  const trace::Trace trace = read_back(builder, "clean");
  const visualize::Report report = visualize::build_report(trace);
  EXPECT_TRUE(report.hints.empty()) << report.hints.front().rule << ": " << report.hints.front().message;
  EXPECT_EQ(report.unit_size_verdict, "fine");
  EXPECT_TRUE(report.idle_causes.empty());
}

}  // namespace

// moirai sweep's parts that decide: the command line, each run's command and file names, the
// figures of a known trace, the median of repeats, the best value and the plot's axes.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "child_process.h"
#include "support/trace_builder.h"
#include "sweep_plot.h"
#include "sweep_result.h"
#include "sweep_spec.h"

namespace {

using namespace moirai;
using sweep::parse_sweep_spec;
using sweep::UsageError;

std::vector<std::string_view> words(const std::vector<const char*>& list) { return {list.begin(), list.end()}; }

TEST(SweepSpec, ParsesEveryFlag) {
  const sweep::SweepSpec spec = parse_sweep_spec(words({"--param", "pieces=4,8,16", "--repeat", "3", "--out", "d",
                                                        "--scale", "500", "--timeout", "2.5", "--", "app", "-p", "{pieces}"}));
  EXPECT_EQ(spec.name, "pieces");
  EXPECT_EQ(spec.values, (std::vector<std::string>{"4", "8", "16"}));
  EXPECT_EQ(spec.repeat, 3u);
  EXPECT_EQ(spec.out_dir, "d");
  EXPECT_DOUBLE_EQ(spec.cycles_per_point, 500);
  EXPECT_DOUBLE_EQ(spec.timeout_s, 2.5);
  EXPECT_EQ(spec.command, (std::vector<std::string>{"app", "-p", "{pieces}"}));
}

TEST(SweepSpec, DefaultsNameTheOutputAfterTheParameter) {
  const sweep::SweepSpec spec = parse_sweep_spec(words({"--param", "size=96", "--", "app", "--size={size}"}));
  EXPECT_EQ(spec.out_dir, "sweep-size");
  EXPECT_EQ(spec.repeat, 1u);
}

TEST(SweepSpec, RejectsBadInputNamingIt) {
  const auto message = [](const std::vector<const char*>& list) {
    try {
      parse_sweep_spec(words(list));
    } catch (const UsageError& error) {
      return std::string(error.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(message({"--", "app", "{p}"}), "no --param NAME=V1,V2,... given");
  EXPECT_EQ(message({"--param", "p", "--", "app", "{p}"}), "--param p: expected NAME=V1,V2,... (no '=')");
  EXPECT_EQ(message({"--param", "p=", "--", "app", "{p}"}), "--param p=: no values after '='");
  EXPECT_EQ(message({"--param", "p=1,", "--", "app", "{p}"}), "--param p=1,: value 2 is empty");
  EXPECT_EQ(message({"--param", "=1", "--", "app", "{p}"}), "--param =1: the name '' must be letters, digits, '_' or '-'");
  EXPECT_EQ(message({"--param", "trace=1", "--", "app", "{trace}"}),
            "--param trace=1: 'trace' is reserved for {trace}, the trace path");
  EXPECT_EQ(message({"--param", "p=1", "--", "app", "{q}"}),
            "the command has no {p} placeholder: every run would be the same (e.g. --pieces {p})");
  EXPECT_EQ(message({"--param", "p=1", "--"}), "no command after '--'");
  EXPECT_EQ(message({"--param", "p=1", "app", "{p}"}), "unexpected 'app' before '--' (the command to run goes after '--')");
  EXPECT_EQ(message({"--repeat", "0", "--param", "p=1", "--", "app", "{p}"}), "--repeat 0: must be a whole number from 1 to 1000");
  EXPECT_EQ(message({"--repeat", "-1", "--param", "p=1", "--", "app", "{p}"}), "--repeat -1: must be a whole number from 1 to 1000");
  EXPECT_EQ(message({"--timeout", "nan", "--param", "p=1", "--", "app", "{p}"}), "--timeout nan: must be a number above 0");
  EXPECT_EQ(message({"--param", "p=1", "--repeat"}), "--repeat needs a value");
  EXPECT_EQ(message({"-x", "--param", "p=1", "--", "app", "{p}"}), "unknown option '-x'");
}

TEST(SweepSpec, HelpWinsOverEverythingElse) {
  EXPECT_TRUE(parse_sweep_spec(words({"--repeat", "0", "--help"})).help);
  EXPECT_TRUE(parse_sweep_spec(words({"-h", "--", "app", "--help"})).help);
  // After '--', --help belongs to the command.
  EXPECT_FALSE(parse_sweep_spec(words({"--param", "p=1", "--", "app", "{p}", "--help"})).help);
}

TEST(SweepSpec, RunCommandReplacesEveryPlaceholderAndAddsTheTrace) {
  sweep::SweepSpec spec = parse_sweep_spec(words({"--param", "n=1,2", "--", "app", "--n", "{n}", "--label=n{n}x{n}"}));
  EXPECT_EQ(sweep::run_command(spec, "2", "d/n-2.mtrace"),
            (std::vector<std::string>{"app", "--n", "2", "--label=n2x2", "--trace", "d/n-2.mtrace"}));
  spec = parse_sweep_spec(words({"--param", "n=1", "--", "app", "{n}", "--trace", "{trace}"}));
  EXPECT_EQ(sweep::run_command(spec, "1", "t.mtrace"), (std::vector<std::string>{"app", "1", "--trace", "t.mtrace"}));
}

TEST(SweepSpec, RunStemIsASafeFileName) {
  sweep::SweepSpec spec = parse_sweep_spec(words({"--param", "p=a/b c", "--", "app", "{p}"}));
  EXPECT_EQ(sweep::run_stem(spec, "a/b c", 1), "p-a_b_c");
  spec.repeat = 3;
  EXPECT_EQ(sweep::run_stem(spec, "8", 2), "p-8-r2");
}

sweep::RunResult run(double makespan_s, bool ok = true) {
  sweep::RunResult r;
  r.ok = ok;
  r.figures.makespan_s = makespan_s;
  return r;
}

TEST(SweepResult, MedianRunSkipsFailuresAndTakesTheLowerMiddle) {
  EXPECT_EQ(sweep::median_run({run(3), run(1), run(2)}), 2u);
  EXPECT_EQ(sweep::median_run({run(3), run(1), run(9, false), run(2), run(4)}), 3u);  // of 1 2 3 4: 2
  EXPECT_EQ(sweep::median_run({run(5)}), 0u);
  EXPECT_FALSE(sweep::median_run({run(1, false), run(2, false)}).has_value());
}

TEST(SweepResult, BestIsTheSmallestMakespanAndTheFirstAmongEqualOnes) {
  std::vector<sweep::ValueResult> values(4);
  values[0].runs = {run(2)};
  values[1].runs = {run(1, false)};
  values[2].runs = {run(1.5)};
  values[3].runs = {run(1.5)};
  for (auto& v : values) v.chosen = sweep::median_run(v.runs);
  EXPECT_EQ(sweep::best_value(values), 2u);
  values[0].chosen.reset();
  values[2].chosen.reset();
  values[3].chosen.reset();
  EXPECT_FALSE(sweep::best_value(values).has_value());
}

// Core 0 works 80 of 100 ticks with 20 of overhead; core 1 starts at 50, works 40, overhead 10.
TEST(SweepResult, FiguresOfAKnownTrace) {
  test_support::TraceBuilder builder(2);
  builder.site(1, "app.cpp", 7);
  builder.unit(0, 1, 1, 0, 10, 90, 100, 4, 1);
  builder.idle(1, 0, 50);
  builder.unit(1, 2, 2, 50, 55, 95, 100, 4, 1);
  const std::string path = ::testing::TempDir() + "moirai_sweep_" + std::to_string(::getpid()) + ".mtrace";
  builder.write(path);
  const sweep::RunFigures f = sweep::measure_trace(path);
  std::remove(path.c_str());
  EXPECT_EQ(f.makespan_ticks, 100u);
  EXPECT_DOUBLE_EQ(f.makespan_s, 100e-9);
  EXPECT_EQ(f.units, 2u);
  EXPECT_DOUBLE_EQ(f.work_pct, 60);      // 120 of 200 core ticks
  EXPECT_DOUBLE_EQ(f.overhead_pct, 15);  // 30 of 200
  EXPECT_DOUBLE_EQ(f.idle_pct, 25);
  EXPECT_DOUBLE_EQ(f.mean_unit_us, 0.06);  // 60 ticks at 1 GHz
}

TEST(SweepResult, AnUnfitTraceSaysWhy) {
  EXPECT_THROW(sweep::measure_trace("/nonexistent.mtrace"), std::runtime_error);
  test_support::TraceBuilder empty(1);
  const std::string path = ::testing::TempDir() + "moirai_sweep_empty_" + std::to_string(::getpid()) + ".mtrace";
  empty.write(path);
  try {
    sweep::measure_trace(path);
    ADD_FAILURE() << "a trace without units was accepted";
  } catch (const std::runtime_error& error) {
    EXPECT_STREQ(error.what(), "the trace holds no units");
  }
  std::remove(path.c_str());
}

TEST(ChildProcess, RunChildCapturesStderrAndTheExitStatus) {
  const std::string base = ::testing::TempDir() + "moirai_sweep_child_" + std::to_string(::getpid());
  const tools::ChildStatus status =
      tools::run_child({"sh", "-c", "echo out; echo one >&2; echo two >&2; exit 3"}, base + ".out", base + ".log", 0);
  EXPECT_TRUE(status.started);
  EXPECT_EQ(status.exit_code, 3);
  EXPECT_EQ(status.describe(), "exit 3");
  EXPECT_EQ(tools::last_lines(base + ".log", 1), (std::vector<std::string>{"two"}));
  EXPECT_EQ(tools::last_lines(base + ".out", 5), (std::vector<std::string>{"out"}));
  const tools::ChildStatus missing = tools::run_child({"/nonexistent/app"}, base + ".out", base + ".log", 0);
  EXPECT_FALSE(missing.started);
  EXPECT_EQ(missing.describe(), "could not start: '/nonexistent/app': No such file or directory");
  const tools::ChildStatus slow = tools::run_child({"sleep", "10"}, base + ".out", base + ".log", 0.1);
  EXPECT_TRUE(slow.timed_out);
  EXPECT_FALSE(slow.succeeded());
  EXPECT_EQ(slow.describe().rfind("timed out after 0.", 0), 0u) << slow.describe();
  std::remove((base + ".out").c_str());
  std::remove((base + ".log").c_str());
}

TEST(SweepPlot, AxesEndOnARoundNumber) {
  EXPECT_DOUBLE_EQ(sweep::nice_axis_max(8.03), 10);
  EXPECT_DOUBLE_EQ(sweep::nice_axis_max(10), 10);
  EXPECT_DOUBLE_EQ(sweep::nice_axis_max(11), 12.5);
  EXPECT_DOUBLE_EQ(sweep::nice_axis_max(0.9), 1);
  EXPECT_DOUBLE_EQ(sweep::nice_axis_max(23), 25);
  EXPECT_DOUBLE_EQ(sweep::nice_axis_max(0), 1);
}

}  // namespace

// The report against hand-built traces whose answers are known exactly.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "moirai/instrument/trace_recorder.h"
#include "moirai/proto_runtime/real_machine.h"
#include "moirai/ssr/ssr.h"
#include "moirai/trace/reader.h"
#include "moirai/visualize/analyses/critical_path.h"
#include "moirai/visualize/analyses/report.h"
#include "moirai/visualize/analyses/run_summary.h"
#include "support/hostile_names.h"
#include "support/known_traces.h"
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

namespace {

constexpr std::uint16_t kSingleton = 8, kSingletonEnd = 9;

// The paper's 3.4.2: four cores run a wave of units; cores 2 and 3 then idle together while the
// long units on cores 0 and 1 hold up the creation of the second wave (two cores stay busy, so
// it is a band, not a serial section).
TEST(Report, IdleBandBetweenWavesNamesItsCoresTimeAndCause) {
  TraceBuilder builder(4);
  builder.site(1, "divider.cpp", 42);
  builder.site(2, "worker.cpp", 9);
  std::uint64_t unit = 1;
  for (std::uint32_t core = 0; core < 4; ++core) {  // wave 1: 0..100 (cores 0 and 1: 0..200)
    const std::uint64_t end = core < 2 ? 200 : 100;
    builder.unit(core, unit++, core + 1, 0, 1, end - 1, end, core == 0 ? kCreate : kSendOfTypeTo, core == 0 ? 1 : 2);
  }
  builder.unit(1, unit++, 2, 200, 201, 399, 400, kSendOfTypeTo, 2);
  for (std::uint32_t core = 2; core < 4; ++core) {  // idle 100..210, until core 0's creations
    builder.idle(core, 100, 210);
    builder.constraint(0, kCreate, 1, unit, 205);
    builder.unit(core, unit++, core + 10, 210, 211, 399, 400, kSendOfTypeTo, 2);
  }
  builder.unit(0, unit++, 1, 200, 201, 399, 400, kSendOfTypeTo, 2);
  const trace::Trace trace = read_back(builder, "band");
  const visualize::Report report = visualize::build_report(trace);
  ASSERT_FALSE(report.hints.empty());
  const visualize::Hint& band = report.hints.front();
  EXPECT_EQ(band.rule, "idle-band");
  EXPECT_EQ(band.cores, (std::vector<std::uint32_t>{2, 3}));
  EXPECT_EQ(band.begin, 100u);
  EXPECT_EQ(band.end, 210u);
  EXPECT_EQ(band.site, "divider.cpp:42");
  EXPECT_EQ(band.lost, 220u);
  EXPECT_NE(band.message.find("create_vp"), std::string::npos) << band.message;
  EXPECT_NE(band.message.find("cores 2,3"), std::string::npos) << band.message;
}

// Issue 36: cores 2-7 run a short unit each in turn, each freed by a long unit of cores 0 and 1,
// so two or more of them sit idle at any time from near the start of the run to near its end.
// That spans the run: no wave ran before it nor after it, and it is no band between waves.
TEST(Report, ABandThatSpansTheRunIsNotBetweenWaves) {
  constexpr std::uint64_t kWaves = 5, kLong = 1000, kShort = 150, kStagger = 50;
  TraceBuilder builder(8);
  builder.site(1, "long.cpp", 3);
  builder.site(2, "short.cpp", 5);
  std::uint64_t unit = 1;
  const auto short_unit = [&](std::uint32_t k, std::uint64_t at) {
    builder.unit(2 + k, unit++, 100 + k, at, at + 1, at + kShort - 1, at + kShort, kSendOfTypeTo, 2);
  };
  for (std::uint32_t k = 0; k < 6; ++k) short_unit(k, kStagger * k);
  for (std::uint64_t j = 0; j < kWaves; ++j) {
    const std::uint64_t first = unit;
    for (std::uint32_t c = 0; c < 2; ++c) {
      builder.unit(c, unit++, 10 * j + c + 1, kLong * j, kLong * j + 1, kLong * (j + 1) - 1, kLong * (j + 1), kSendOfTypeTo, 1);
    }
    for (std::uint32_t k = 0; k < 6; ++k) {  // core 2 + k waits for core k % 2's long unit
      builder.constraint(k % 2, kSendOfTypeTo, first + k % 2, unit, kLong * (j + 1) - 1);
      builder.idle(2 + k, kLong * j + kStagger * k + kShort, kLong * (j + 1) + kStagger * k);
      short_unit(k, kLong * (j + 1) + kStagger * k);
    }
  }
  const trace::Trace trace = read_back(builder, "whole_run_band");
  const visualize::Report report = visualize::build_report(trace);
  ASSERT_FALSE(report.hints.empty());
  for (const auto* list : {&report.hints, &report.minor_hints}) {
    for (const visualize::Hint& h : *list) EXPECT_NE(h.rule, "idle-band") << h.message;
  }
  EXPECT_EQ(report.hints.front().rule, "idle-cause") << report.hints.front().message;
  EXPECT_EQ(report.hints.front().site, "long.cpp:3");
}

// Issue 36: two cores pass a token in units of 2 ticks of work and 88 of the runtime's: each
// waits while the other is between units, in the runtime, not working. That idle is the units'
// size (bigger units shorten it), not a cause of its own.
TEST(Report, IdleBehindAPartnersOverheadIsTheUnitsSize) {
  TraceBuilder builder(2);
  builder.site(1, "token.cpp", 7);
  for (std::uint64_t k = 0; k < 10; ++k) {
    const std::uint32_t core = static_cast<std::uint32_t>(k % 2);
    const std::uint64_t next_at = 100 * (k + 1);  // the other core's next unit
    builder.unit(core, k + 1, core + 1, 100 * k, 100 * k + 40, 100 * k + 42, 100 * k + 90, kSendOfTypeTo, 1);
    if (k + 1 < 10) {
      builder.constraint(core, kSendOfTypeTo, k + 1, k + 2, 100 * k + 85);
      builder.idle(1 - core, k == 0 ? 0 : 100 * k - 10, next_at);
    }
  }
  const trace::Trace trace = read_back(builder, "token");
  const visualize::Report report = visualize::build_report(trace);
  ASSERT_FALSE(report.hints.empty());
  const visualize::Hint& first = report.hints.front();
  EXPECT_EQ(first.rule, "unit-size") << first.message;
  EXPECT_NE(first.message.find("sat idle"), std::string::npos) << first.message;
  const std::uint64_t idle = report.lost.by_kind.at("idle");
  EXPECT_GE(first.lost, report.overhead.total() + idle * 9 / 10) << first.message;
  for (const visualize::Hint& h : report.hints) EXPECT_NE(h.rule, "idle-cause") << h.message;
}

// The contrast: core 1 waits for a unit of core 0 that works all along, while cores 2-7 run units
// too small for their overhead. unit-size claims their overhead, not core 1's wait.
TEST(Report, IdleBehindAPartnersWorkIsNotTheUnitsSize) {
  TraceBuilder builder(8);
  builder.site(1, "small.cpp", 4);
  builder.site(2, "long.cpp", 9);
  std::uint64_t unit = 1;
  for (std::uint32_t core = 2; core < 8; ++core) {
    for (std::uint64_t j = 0; j < 20; ++j) builder.unit(core, unit++, core, 140 * j, 140 * j + 20, 140 * j + 120, 140 * j + 140, kSendOfTypeTo, 1);
  }
  builder.unit(0, unit, 100, 0, 1, 1001, 1002, kSendOfTypeTo, 2);
  builder.constraint(0, kSendOfTypeTo, unit, unit + 1, 1001);
  builder.idle(1, 0, 1010);
  builder.unit(1, unit + 1, 101, 1010, 1011, 1411, 1412, kSendOfTypeTo, 2);
  const trace::Trace trace = read_back(builder, "partner_works");
  const visualize::Report report = visualize::build_report(trace);
  const auto size = std::find_if(report.hints.begin(), report.hints.end(), [](const visualize::Hint& h) { return h.rule == "unit-size"; });
  ASSERT_NE(size, report.hints.end());
  EXPECT_EQ(size->lost, report.overhead.total()) << size->message;
  EXPECT_EQ(size->message.find("sat idle"), std::string::npos) << size->message;
}

// One core works while the other waits for it: a long serial section, charged to the VP that
// ran alone; the cores that waited lost exactly the section.
TEST(Report, LongSerialSectionIsTheUnitThatRanAlone) {
  TraceBuilder builder(3);
  builder.site(1, "main.cpp", 5);
  builder.site(2, "reduce.cpp", 17);
  builder.unit(0, 1, 1, 0, 1, 99, 100, kSendOfTypeTo, 1);
  builder.unit(1, 2, 2, 0, 1, 99, 100, kSendOfTypeTo, 1);
  builder.unit(2, 3, 3, 0, 1, 99, 100, kSendOfTypeTo, 1);
  builder.unit(0, 4, 1, 100, 101, 499, 500, kSendOfTypeTo, 2);  // the reduction, alone
  builder.idle(1, 100, 500);
  builder.idle(2, 100, 500);
  builder.constraint(0, kSendOfTypeTo, 4, 5, 499);
  builder.constraint(0, kSendOfTypeTo, 4, 6, 499);
  builder.unit(1, 5, 2, 500, 501, 599, 600, kSendOfTypeTo, 1);
  builder.unit(2, 6, 3, 500, 501, 599, 600, kSendOfTypeTo, 1);
  builder.idle(0, 500, 600);
  const trace::Trace trace = read_back(builder, "serial");
  const visualize::Report report = visualize::build_report(trace);
  ASSERT_FALSE(report.hints.empty());
  const visualize::Hint& first = report.hints.front();
  EXPECT_EQ(first.rule, "long-serial") << first.message;
  EXPECT_EQ(first.cores, (std::vector<std::uint32_t>{0}));
  EXPECT_EQ(first.site, "reduce.cpp:17");
  EXPECT_EQ(first.lost, 800u);
}

// The demo's shape: a singleton body runs alone while core 1 waits for its end, later VP 1's last
// long piece runs alone while core 1 waits for its result. Two causes, two hints: the singleton's
// loss is the idle its end satisfied, never the later wait.
TEST(Report, EachSerialSectionIsChargedToItsOwnCause) {
  TraceBuilder builder(2);
  builder.site(1, "main.cpp", 10);
  builder.site(2, "main.cpp", 20);
  builder.site(3, "main.cpp", 30);
  builder.site(4, "main.cpp", 40);
  builder.unit(0, 1, 1, 0, 1, 9, 10, kSingleton, 1);
  builder.constraint(0, kSingleton, 1, 2, 10);
  builder.unit(0, 2, 1, 10, 11, 599, 600, kSingletonEnd, 2);  // the body, alone
  builder.unit(1, 10, 2, 0, 1, 9, 10, kSingleton, 1);
  builder.idle(1, 10, 600);
  builder.constraint(0, kSingletonEnd, 2, 11, 599);
  builder.unit(0, 3, 1, 600, 601, 699, 700, kSendOfTypeTo, 3);
  builder.unit(1, 11, 2, 600, 601, 699, 700, kSendOfTypeTo, 4);
  builder.unit(0, 4, 1, 700, 701, 1099, 1100, kSendOfTypeTo, 3);  // the last piece, alone
  builder.idle(1, 700, 1100);
  builder.constraint(0, kSendOfTypeTo, 4, 12, 1099);
  builder.unit(1, 12, 2, 1100, 1101, 1199, 1200, kSendOfTypeTo, 4);
  builder.idle(0, 1100, 1200);
  const trace::Trace trace = read_back(builder, "two_sections");
  const visualize::Report report = visualize::build_report(trace);
  std::vector<visualize::Hint> serial;
  for (const visualize::Hint& h : report.hints) {
    if (h.rule == "long-serial") serial.push_back(h);
  }
  ASSERT_EQ(serial.size(), 2u);
  EXPECT_EQ(serial[0].site, "main.cpp:20") << serial[0].message;
  EXPECT_NE(serial[0].message.find("singleton body"), std::string::npos) << serial[0].message;
  EXPECT_NE(serial[0].message.find("in 1 section)"), std::string::npos) << serial[0].message;
  EXPECT_EQ(serial[1].site, "main.cpp:30") << serial[1].message;
  EXPECT_NE(serial[1].message.find("runs alone"), std::string::npos) << serial[1].message;
  const auto waited = std::find_if(report.idle_causes.begin(), report.idle_causes.end(),
                                   [](const visualize::IdleCause& c) { return c.site == "main.cpp:20"; });
  ASSERT_NE(waited, report.idle_causes.end());
  // The body began one tick after the grant: exclusive-late owns that tick of the wait.
  EXPECT_EQ(serial[0].lost, waited->ticks - 1);
  EXPECT_EQ(serial[1].lost, 400u);
}

// A chain on one VP bounds the run on 4 cores; its long units are listed to split, its tiny one
// is not.
TEST(Report, CriticalPathListsOnlyUnitsWorthSplitting) {
  TraceBuilder builder(4);
  builder.site(1, "chain.cpp", 7);
  builder.site(2, "chain.cpp", 9);
  builder.unit(0, 1, 1, 0, 1, 299, 300, kSendOfTypeTo, 1);
  builder.unit(0, 2, 1, 300, 301, 302, 303, kSendOfTypeTo, 2);  // 1 tick of work
  builder.unit(0, 3, 1, 303, 304, 599, 600, kSendOfTypeTo, 1);
  builder.unit(1, 4, 2, 0, 1, 549, 550, kSendOfTypeTo, 2);
  builder.unit(2, 5, 3, 0, 1, 9, 10, kSendOfTypeTo, 2);
  builder.unit(3, 6, 4, 0, 1, 9, 10, kSendOfTypeTo, 2);
  const trace::Trace trace = read_back(builder, "chain");
  const visualize::Report report = visualize::build_report(trace);
  ASSERT_FALSE(report.hints.empty());
  const visualize::Hint& first = report.hints.front();
  EXPECT_EQ(first.rule, "critical-path") << first.message;
  EXPECT_NE(first.message.find("unit 1 ("), std::string::npos) << first.message;
  EXPECT_NE(first.message.find("unit 3 ("), std::string::npos) << first.message;
  EXPECT_EQ(first.message.find("unit 2 ("), std::string::npos) << first.message;
}

// Many small losses are no clean run: no hint fires, and the note says how much was lost in all
// and where, instead of "no problem worth tuning".
TEST(Report, SmallCausesThatAddUpAreNotACleanRun) {
  TraceBuilder builder(1);
  builder.site(1, "loop.cpp", 3);
  for (std::uint64_t i = 0; i < 100; ++i) {
    const std::uint64_t t = 100 * i;  // 4 ticks deciding, 88 of work, 4 communicating, 4 updating
    builder.unit(0, i + 1, 1, t, t + 4, t + 92, t + 100, kSendOfTypeTo, 1);
  }
  const trace::Trace trace = read_back(builder, "small_causes");
  const visualize::Report report = visualize::build_report(trace);
  EXPECT_TRUE(report.hints.empty());
  ASSERT_EQ(report.notes.size(), 1u);
  EXPECT_NE(report.notes[0].find("lost 12.0% of it in all, most in: assigner + switch 4.0%, communication 4.0%, constraint update 4.0%"),
            std::string::npos) << report.notes[0];
  EXPECT_EQ(report.notes[0].find("no problem worth tuning"), std::string::npos) << report.notes[0];
}

// Every tick of the cores' time is work or exactly one entry of lost time, and the hints claim
// disjoint parts of it: their losses never add up to more.
TEST(Report, HintsPartitionTheLostTime) {
  const std::vector<std::function<void(const std::string&)>> writers = {
      test_support::write_rendezvous_trace, [](const std::string& p) { test_support::write_typed_send_trace(p); }};
  for (const auto& write : writers) {
    const trace::Trace trace = test_support::read_written(write, "partition");
    const visualize::Report report = visualize::build_report(trace);
    EXPECT_EQ(report.lost.work + report.lost.total, report.lost.core_time);
    std::uint64_t claimed = 0;
    for (const auto* list : {&report.hints, &report.minor_hints}) {
      for (const visualize::Hint& h : *list) claimed += h.lost;
    }
    EXPECT_LE(claimed, report.lost.total);
    EXPECT_EQ(report.lost.explained <= report.lost.total, true);
  }
}

// The lock wait is booked wherever it happened: before the assigner (inside the decision span or
// an idle span) as well as after a unit, from the lock-handoff records.
TEST(Report, LockWaitBeforeTheAssignerIsLockWait) {
  TraceBuilder builder(2);
  builder.site(1, "app.cpp", 1);
  builder.unit(0, 1, 1, 0, 30, 90, 100, kSendOfTypeTo, 1);
  builder.lock_handoff(0, 1, 5, 25);  // in unit 1's decision span: 20 ticks
  builder.unit(1, 2, 2, 0, 10, 50, 60, kSendOfTypeTo, 1);
  builder.idle(1, 60, 100);
  builder.lock_handoff(1, 0, 70, 80);  // in the idle span: 10 ticks
  const trace::Trace trace = read_back(builder, "lock");
  const visualize::Report report = visualize::build_report(trace);
  EXPECT_EQ(report.overhead.lock_wait, 30u);
  EXPECT_EQ(report.overhead.decision, 10u + 10u);
  EXPECT_EQ(report.lost.by_kind.at("lock wait"), 30u);
  EXPECT_EQ(report.lost.work + report.lost.total, report.lost.core_time);
  ASSERT_FALSE(report.idle_causes.empty());
  EXPECT_EQ(report.idle_causes.front().ticks, 30u);
}

// Chores lie inside decision and idle spans: a wake-up is "waking cores", a VP shell is creation,
// and neither stays in the assigner's time nor in the idle time.
TEST(Report, ChoresAreTakenOutOfDecisionAndIdle) {
  TraceBuilder builder(2);
  builder.site(1, "app.cpp", 1);
  builder.unit(0, 1, 1, 0, 30, 90, 100, kSendOfTypeTo, 1);
  builder.chore(0, Chore::wake_up, 5, 25, 1);  // 20 of unit 1's 30-tick decision span
  builder.unit(1, 2, 2, 0, 10, 50, 60, kSendOfTypeTo, 1);
  builder.idle(1, 60, 100);
  builder.chore(1, Chore::vp_shell, 60, 75);  // 15 of the idle span
  const trace::Trace trace = read_back(builder, "chores");
  const visualize::Report report = visualize::build_report(trace);
  EXPECT_EQ(report.overhead.wake_up, 20u);
  EXPECT_EQ(report.overhead.decision, 10u + 10u);
  EXPECT_EQ(report.overhead.create, 15u);
  EXPECT_EQ(report.lost.by_kind.at("waking cores"), 20u);
  EXPECT_EQ(report.lost.work + report.lost.total, report.lost.core_time);
  ASSERT_FALSE(report.idle_causes.empty());
  EXPECT_EQ(report.idle_causes.front().ticks, 25u);
  const visualize::CoreTime& core0 = report.summary.cores.at(0);
  const visualize::CoreTime& core1 = report.summary.cores.at(1);
  EXPECT_EQ(core0.decision, 10u);
  EXPECT_EQ(core0.wake_ups, 20u);
  EXPECT_EQ(core0.wake_up_count, 1u);
  EXPECT_EQ(core1.idle, 25u);
  EXPECT_EQ(core1.vp_shells, 15u);
  EXPECT_EQ(core1.total(), 100u);  // the core's whole time, each tick once
  std::ostringstream text;
  visualize::print_report(text, trace, report);
  EXPECT_NE(text.str().find("waking cores 0.000 ms"), std::string::npos) << text.str();
}

// const Hint* of a rule among the hints above and below the line (nullptr: none).
const visualize::Hint* hint_of(const visualize::Report& report, const std::string& rule) {
  for (const auto* list : {&report.hints, &report.minor_hints}) {
    for (const visualize::Hint& hint : *list) {
      if (hint.rule == rule) return &hint;
    }
  }
  return nullptr;
}

// waking-cores claims the wake-up chores, tells parked wake-ups (5 us and more) from the others,
// and names the construct call whose handler made the work that cost the most of them.
TEST(Report, WakingCoresNamesTheCallThatMadeTheWork) {
  TraceBuilder builder(2);
  builder.site(1, "app.cpp", 7);
  builder.site(2, "app.cpp", 9);
  // Core 0: units 1-3 end by sends at app.cpp:9, each followed by a parked wake-up (6 us) in the
  // next unit's decision span; unit 4 ends at app.cpp:7, followed by a spinning one (100 ns).
  builder.unit(0, 1, 1, 0, 10, 1000, 1100, kSendOfTypeTo, 2);
  std::uint64_t t = 1100;
  for (std::uint64_t u = 2; u <= 4; ++u) {
    builder.chore(0, Chore::wake_up, t + 5, t + 6005, 1);
    builder.unit(0, u, 1, t, t + 6010, t + 6900, t + 7000, kSendOfTypeTo, u < 4 ? 2 : 1);
    t += 7000;
  }
  builder.chore(0, Chore::wake_up, t + 5, t + 105, 1);
  builder.unit(0, 5, 1, t, t + 110, t + 2000, t + 2100, kSendOfTypeTo, 1);
  t += 2100;
  builder.unit(1, 6, 2, 0, 10, t - 100, t, kSendOfTypeTo, 1);
  const trace::Trace trace = read_back(builder, "waking");
  const visualize::Report report = visualize::build_report(trace);
  EXPECT_EQ(report.overhead.wake_up, 3u * 6000u + 100u);
  const visualize::Hint* hint = hint_of(report, "waking-cores");
  ASSERT_NE(hint, nullptr);
  EXPECT_EQ(hint->lost, 3u * 6000u + 100u);
  EXPECT_EQ(hint->site, "app.cpp:9");
  EXPECT_NE(hint->message.find("4 wake-ups, 3 of them of a parked core"), std::string::npos) << hint->message;
  EXPECT_TRUE(std::any_of(report.hints.begin(), report.hints.end(), [](const visualize::Hint& h) { return h.rule == "waking-cores"; }))
      << "18 us of a 2 x 24 us run is worth tuning";
}

// Runs without chores (simulated machines, traces before format 3.2) get no such hint.
TEST(Report, NoWakingCoresWithoutChores) {
  const trace::Trace trace = test_support::read_written([](const std::string& p) { test_support::write_rendezvous_trace(p); },
                                                       "report_no_chores");
  EXPECT_EQ(hint_of(visualize::build_report(trace), "waking-cores"), nullptr);
}

// A core that creates a VP for a parked core pays the kernel call that wakes it. The report books
// it as waking cores, not as the creator's assigner (where a VM's 15-50 us wake-ups hid before).
TEST(Report, WakingAParkedCoreIsTheWakersWakeUp) {
  if (proto::RealMachine::available_cores() < 2) {
    GTEST_SKIP() << "waking another core needs 2 processing units; this machine has "
                 << proto::RealMachine::available_cores();
  }
  const std::string path = ::testing::TempDir() + "moirai_parked_wake_" + std::to_string(::getpid()) + ".mtrace";
  {
    instrument::TraceRecorder recorder({path, {}, "report_test", 4096});
    proto::RealMachine machine(2);
    ssr::run(
        machine,
        [&machine](ssr::Context& ctx) {
          // Core 1 has nothing: it spins, then parks. Wait for the machine to say so, however
          // long a loaded machine takes to start core 1's thread.
          while (!machine.parked(1)) {
          }
          ctx.create_vp([](ssr::Context&) {}, {.name = "child", .core = 1});
        },
        {.observer = &recorder, .seed_core = 0});
  }
  const trace::Trace trace = trace::read_trace(path);
  std::remove(path.c_str());
  std::uint64_t woke = 0, wake_ticks = 0;
  for (const trace::Trace::ChoreSpan& chore : trace.chores) {
    if (chore.core != 0 || chore.record.chore != static_cast<std::uint16_t>(Chore::wake_up)) continue;
    ++woke;
    EXPECT_EQ(chore.record.cores, 1u);
    wake_ticks += chore.record.end - chore.record.begin;
  }
  EXPECT_GE(woke, 1u) << "the creation for core 1 recorded no wake-up on core 0";
  const visualize::Report report = visualize::build_report(trace);
  EXPECT_GE(report.overhead.wake_up, wake_ticks);
  EXPECT_EQ(report.summary.cores.at(0).wake_ups, wake_ticks);
  EXPECT_EQ(report.lost.work + report.lost.total, report.lost.core_time);
  // The hint (above or below the line, as its share decides) names the create_vp call above.
  const visualize::Hint* hint = hint_of(report, "waking-cores");
  ASSERT_NE(hint, nullptr);
  EXPECT_EQ(hint->lost, report.overhead.wake_up);
  EXPECT_NE(hint->site.find("report_test.cpp:"), std::string::npos) << hint->site;
}

// The paper's 3.4.6: VP 1 is granted the singleton at 10, but a worker runs first on its core,
// so the body starts at 100 while core 1's VP waits for its end.
TEST(Report, SingletonWhoseBodyRanLateIsNamed) {
  TraceBuilder builder(2);
  builder.site(1, "worker.cpp", 5);
  builder.site(2, "worker.cpp", 6);
  builder.unit(0, 1, 1, 0, 1, 9, 10, kSingleton, 1);            // VP 1 reaches the singleton first
  builder.constraint(0, kSingleton, 1, 3, 10);                  // granted: its next unit runs the body
  builder.unit(0, 2, 2, 10, 11, 99, 100, kSendOfTypeTo, 2);     // but a worker runs first
  builder.unit(0, 3, 1, 100, 101, 119, 120, kSingletonEnd, 2);  // the body
  builder.unit(1, 4, 3, 0, 1, 19, 20, kSingleton, 1);           // VP 3 waits for the end
  builder.idle(1, 20, 120);
  builder.constraint(0, kSingletonEnd, 3, 5, 119);
  builder.unit(1, 5, 3, 120, 121, 199, 200, kSendOfTypeTo, 2);
  builder.idle(0, 120, 200);
  const trace::Trace trace = read_back(builder, "singleton");
  const visualize::Report report = visualize::build_report(trace);
  const auto late = std::find_if(report.hints.begin(), report.hints.end(), [](const auto& h) { return h.rule == "exclusive-late"; });
  ASSERT_NE(late, report.hints.end());
  EXPECT_EQ(late->cores, (std::vector<std::uint32_t>{0}));
  EXPECT_EQ(late->begin, 10u);
  EXPECT_EQ(late->end, 101u);
  EXPECT_EQ(late->site, "worker.cpp:5");
  EXPECT_NE(late->message.find("after 1 unit of other VPs"), std::string::npos) << late->message;
  EXPECT_NE(late->message.find("core 1 waited"), std::string::npos) << late->message;
  EXPECT_EQ(late->lost, 81u);  // core 1 idle from 20 until the body began at 101
}

// Overhead by kind adds up the life-line segments: creation handlers apart from other handlers.
TEST(Report, OverheadByKind) {
  TraceBuilder builder(1);
  builder.site(1, "app.cpp", 1);
  builder.unit(0, 1, 1, 0, 10, 90, 100, kCreate, 1);          // decide 10, then 5 + 5
  builder.unit(0, 2, 2, 100, 104, 180, 200, kSendOfTypeTo, 1);  // decide 4, then 10 + 10
  const trace::Trace trace = read_back(builder, "kinds");
  const visualize::Report report = visualize::build_report(trace);
  EXPECT_EQ(report.overhead.decision, 14u);
  EXPECT_EQ(report.overhead.communication, 15u);
  EXPECT_EQ(report.overhead.lock_wait, 0u);
  EXPECT_EQ(report.overhead.create, 5u);
  EXPECT_EQ(report.overhead.constraint_update, 10u);
}

// A run on real cores as the recorder writes it: the OS measured, recording costing 2 ticks a
// unit. Core 0 works all of [0, 1000); core 1 runs one unit of the same span from which the OS
// took `taken` ticks (another process on its CPU).
trace::Trace real_core_run(std::uint64_t taken, const std::string& name) {
  const std::string path = ::testing::TempDir() + "moirai_report_" + name + "_" + std::to_string(::getpid()) + ".mtrace";
  {
    trace::BuilderOptions options = test_support::ssr_options(2);
    options.metadata = {{"os_time", "thread CPU time at unit boundaries"}, {"unit_record_cost_ns", "2"}};
    trace::TraceBuilder builder(path, options);
    builder.site(1, "app.cpp", 5);
    builder.unit(0, 1, 1, 0, 10, 990, 1000, kSendOfTypeTo, 1);
    builder.unit(1, 2, 2, 0, 10, 990, 1000, kSendOfTypeTo, 1);
    if (taken > 0) builder.os_taken(1, 2, taken, 7);
    builder.finish();
  }
  trace::Trace trace = trace::read_trace(path);
  std::remove(path.c_str());
  return trace;
}

std::string printed(const trace::Trace& trace, const visualize::Report& report) {
  std::ostringstream out;
  visualize::print_report(out, trace, report);
  return out.str();
}

// The report's first line says the machine was busy, naming the core and the OS's share; the
// taken time is not work for any figure or rule.
TEST(Report, ABusyMachineIsSaidFirstAndTakenTimeIsNotWork) {
  const trace::Trace trace = real_core_run(400, "busy");
  const visualize::Report report = visualize::build_report(trace);
  ASSERT_EQ(report.warnings.size(), 1u);
  const std::string text = printed(trace, report);
  const std::string first = text.substr(0, text.find('\n'));
  EXPECT_EQ(first.rfind("machine was busy: the OS took 40.0% of core 1's time", 0), 0u) << first;
  EXPECT_NE(first.find("core 1: 1 of 1 unit hit, 7 involuntary switches"), std::string::npos) << first;
  EXPECT_EQ(first.find("core 0"), std::string::npos) << "core 0 lost nothing: " << first;
  EXPECT_EQ(report.summary.cores[1].work, 980u - 400u);
  EXPECT_EQ(report.lost.work, 980u + 580u);
  EXPECT_EQ(report.lost.by_kind.at("taken by the OS"), 400u);
  std::uint64_t claimed = 0;
  for (const auto* hints : {&report.hints, &report.minor_hints}) {
    for (const visualize::Hint& hint : *hints) claimed += hint.lost;
  }
  EXPECT_LE(claimed, report.lost.total - 400u) << "no rule may claim the OS's time";
}

TEST(Report, AnUndisturbedRunSaysNothingOfTheKind) {
  const trace::Trace trace = real_core_run(0, "calm");
  const visualize::Report report = visualize::build_report(trace);
  EXPECT_TRUE(report.warnings.empty());
  const std::string text = printed(trace, report);
  EXPECT_EQ(text.rfind("run:", 0), 0u) << text;
  EXPECT_EQ(text.find("busy"), std::string::npos) << text;
}

// A few per cent is noise the report does not raise: 2% taken is below the line.
TEST(Report, ALittleTakenTimeIsNotABusyMachine) {
  const trace::Trace trace = real_core_run(20, "little");
  EXPECT_TRUE(visualize::build_report(trace).warnings.empty());
}

// Pieces that declared the same work on 2 real cores, 4 each, back to back; core 1's take
// `slowdown` times as long, and core 0 then waits for it: a VM whose hypervisor gives one vCPU
// less of its CPU, unseen by the guest's OS.
trace::Trace uneven_run(double slowdown, const std::string& name, bool simulated = false) {
  const std::string path = ::testing::TempDir() + "moirai_report_" + name + "_" + std::to_string(::getpid()) + ".mtrace";
  {
    trace::BuilderOptions options = test_support::ssr_options(2);
    options.metadata = {{"os_time", "thread CPU time at unit boundaries"}};
    if (simulated) options.clock_source = "virtual";
    trace::TraceBuilder builder(path, options);
    builder.site(1, "app.cpp", 5);
    const std::uint64_t piece = 1000, slow = static_cast<std::uint64_t>(slowdown * 1000);
    std::uint64_t id = 1;
    for (std::uint32_t core = 0; core < 2; ++core) {
      const std::uint64_t each = core == 0 ? piece : slow;
      for (std::uint64_t k = 0; k < 4; ++k, ++id) {
        builder.unit(core, id, id, k * (each + 20), k * (each + 20) + 10, k * (each + 20) + 10 + each, (k + 1) * (each + 20), kSendOfTypeTo, 1);
        builder.declared_work(core, id, 500);
      }
    }
    builder.finish();
  }
  trace::Trace trace = trace::read_trace(path);
  std::remove(path.c_str());
  return trace;
}

// Cores that ran the same declared work at different speeds are said first: the faster waited
// for the slower, whatever the program did.
TEST(Report, CoresOfDifferentSpeedsAreSaidFirst) {
  const trace::Trace trace = uneven_run(1.3, "uneven");
  const visualize::Report report = visualize::build_report(trace);
  ASSERT_EQ(report.warnings.size(), 1u);
  EXPECT_EQ(report.warnings[0].rfind("cores ran at different speeds: core 1 took 1.30x as long per declared cycle as core 0", 0), 0u)
      << report.warnings[0];
  EXPECT_NE(report.warnings[0].find("hypervisor"), std::string::npos) << report.warnings[0];
  const std::string text = printed(trace, report);
  EXPECT_EQ(text.rfind("cores ran at different speeds", 0), 0u) << text;
  // On the simulated machine the spread is the cost model's, and the warning says so.
  const visualize::Report simulated = visualize::build_report(uneven_run(1.3, "uneven_sim", true));
  ASSERT_EQ(simulated.warnings.size(), 1u);
  EXPECT_NE(simulated.warnings[0].find("core_spread"), std::string::npos) << simulated.warnings[0];
}

// A spread of a few per cent is noise, and a run without declared work has nothing to compare.
TEST(Report, CoresOfAboutTheSameSpeedSayNothingOfTheKind) {
  EXPECT_TRUE(visualize::build_report(uneven_run(1.1, "even")).warnings.empty());
  EXPECT_TRUE(visualize::build_report(real_core_run(0, "undeclared")).warnings.empty());
}

// Recording is its own overhead kind: units x the measured cost per unit, out of the assigner
// and switch span where the probe runs.
TEST(Report, RecordingIsItsOwnOverheadKind) {
  const trace::Trace trace = real_core_run(0, "recording");
  const visualize::Report report = visualize::build_report(trace);
  EXPECT_EQ(report.overhead.recording, 2u * 2u);
  EXPECT_EQ(report.overhead.decision, 2u * 10u - 4u);
  EXPECT_EQ(report.lost.by_kind.at("recording (the probe)"), 4u);
  EXPECT_NE(printed(trace, report).find("recording 0.000 ms"), std::string::npos);
}

// ---- JSON: strict whatever the trace holds (docs/export.md, "Writing outputs") ------------------

// json_views are what `moirai report --json`, `report --json --critical-path` and `stats --json`
// print for a trace, each parsed strictly (nlohmann::json::parse throws on invalid UTF-8, NaN or
// a bare control character).
std::vector<nlohmann::json> json_views(const trace::Trace& trace, const std::string& path) {
  std::ostringstream report, critical, stats;
  visualize::print_report_json(report, trace, visualize::build_report(trace));
  visualize::print_critical_path_json(critical, visualize::list_critical_path(trace));
  visualize::print_summary_json(stats, path, trace, visualize::summarize(trace));
  std::vector<nlohmann::json> parsed;
  for (const std::string& text : {report.str(), critical.str(), stats.str()}) {
    EXPECT_EQ(text.find("nan"), std::string::npos) << text;
    EXPECT_EQ(text.find("inf"), std::string::npos) << text;
    parsed.push_back(nlohmann::json::parse(text));
  }
  return parsed;
}

std::string scratch_trace(const std::string& name) {
  return ::testing::TempDir() + "moirai_report_" + name + "_" + std::to_string(::getpid()) + ".mtrace";
}

TEST(ReportJson, HostileNamesGiveStrictJsonThatSaysWhatWasReplaced) {
  const trace::Trace trace = test_support::read_written(test_support::write_hostile_names_trace, "json_hostile");
  // The file name is hostile too: stats prints the path it was given.
  const std::vector<nlohmann::json> views = json_views(trace, "run" + test_support::kBadBytes + ".mtrace");
  const std::string replaced = "\xEF\xBF\xBD";
  EXPECT_NE(views[2]["trace"].get<std::string>().find(replaced), std::string::npos);
  EXPECT_NE(views[2]["trace"].get<std::string>().find("\x1b[31m\x01"), std::string::npos) << "control characters are escaped, kept";
  for (const nlohmann::json& view : views) {
    ASSERT_TRUE(view.contains("warnings")) << view.dump();
    bool said = false;
    for (const auto& warning : view["warnings"]) said |= warning.get<std::string>().find("not valid UTF-8") != std::string::npos;
    EXPECT_TRUE(said) << view["warnings"].dump();
  }
  // The critical path names the hostile call site, its bad bytes replaced.
  EXPECT_NE(views[1]["critical_path"]["units"][0]["ended_at"].get<std::string>().find("bad\x1b[31m\x01" + replaced), std::string::npos)
      << views[1].dump();
}

TEST(ReportJson, ValidNamesGetNoWarning) {
  const trace::Trace trace = test_support::read_written(test_support::write_rendezvous_trace, "json_clean");
  const std::vector<nlohmann::json> views = json_views(trace, "run.mtrace");
  EXPECT_TRUE(views[0]["warnings"].empty()) << views[0]["warnings"].dump();
  EXPECT_FALSE(views[1].contains("warnings"));
  EXPECT_FALSE(views[2].contains("warnings"));
  EXPECT_DOUBLE_EQ(views[0]["makespan_s"].get<double>(), 520e-9);
}

// A trace cut right after its header has no clock rate: every figure in seconds is null (it
// printed -nan before), counts are 0, and the JSON parses.
TEST(ReportJson, ATraceCutAfterItsHeaderHasNullsNotNan) {
  const std::string whole_path = scratch_trace("json_cut_whole");
  test_support::write_rendezvous_trace(whole_path);
  std::ifstream whole_file(whole_path, std::ios::binary);
  const std::string whole((std::istreambuf_iterator<char>(whole_file)), {});
  const std::string path = scratch_trace("json_cut");
  std::ofstream(path, std::ios::binary) << whole.substr(0, 16);
  const trace::Trace trace = trace::read_trace(path);
  const std::vector<nlohmann::json> views = json_views(trace, path);
  EXPECT_TRUE(views[0]["makespan_s"].is_null()) << views[0].dump();
  EXPECT_EQ(views[0]["units"], 0);
  EXPECT_TRUE(views[0]["lost"]["core_s"].is_null());
  EXPECT_FALSE(views[2]["integrity"]["complete"].get<bool>());
  std::remove(path.c_str());
  std::remove(whole_path.c_str());
}

// ---- Work share: `moirai stats` and the report define it the same way -------------------------

// write_late_and_early_trace: core 0 has nothing after 300, core 1 nothing before 130; the
// makespan is 400: stats gave each core's work as a share of its own span (66.7% and
// 92.6%), the report as a share of the makespan (50.0% and 62.5%). Both use the makespan now.
TEST(WorkShare, StatsAndTheReportGiveTheSameSharesOfTheMakespan) {
  const std::string path = scratch_trace("work_share");
  test_support::write_late_and_early_trace(path);
  const trace::Trace trace = trace::read_trace(path);
  std::remove(path.c_str());
  const visualize::Report report = visualize::build_report(trace);
  std::ostringstream stats_text, stats_json, report_text;
  visualize::print_summary(stats_text, path, trace, report.summary);
  visualize::print_summary_json(stats_json, path, trace, report.summary);
  visualize::print_report(report_text, trace, report);
  const nlohmann::json json = nlohmann::json::parse(stats_json.str());
  EXPECT_DOUBLE_EQ(json["makespan_s"].get<double>(), 400e-9);
  const char* expected[2][2] = {{"50.0%", "12.5%"}, {"62.5%", "0.0%"}};
  for (int core = 0; core < 2; ++core) {
    const std::string work = expected[core][0], idle = expected[core][1];
    EXPECT_NE(stats_text.str().find("work " + work + ", idle " + idle), std::string::npos) << stats_text.str();
    EXPECT_NE(report_text.str().find("core " + std::to_string(core) + ": " + work + " / "), std::string::npos) << report_text.str();
    EXPECT_NE(report_text.str().find(" / " + idle + "  ("), std::string::npos) << report_text.str();
    EXPECT_EQ(json["per_core"][core]["work_share"].get<double>() * 100, std::stod(work)) << json["per_core"][core].dump();
    EXPECT_EQ(json["per_core"][core]["idle_share"].get<double>() * 100, std::stod(idle)) << json["per_core"][core].dump();
  }
}

}  // namespace

// The SCG, structurally: a column per core, one block per unit, heights proportional to
// cycles, one arc per cross-core constraint of each drawn kind, and an SVG Graphviz rendered.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <string>

#include "moirai/instrument/trace_recorder.h"
#include "moirai/ssr/ssr.h"
#include "moirai/trace/reader.h"
#include "moirai/visualize/scg.h"
#include "support/trace_builder.h"

namespace {

using namespace moirai;

inline const ssr::MessageType<int> kDone{"done"};

std::string temp(const std::string& name) {
  return ::testing::TempDir() + "moirai_scg_" + name + "_" + std::to_string(::getpid());
}

// A small divider/worker program on 2 cores: creation, typed sends and a singleton.
trace::Trace record_run(const std::string& name) {
  const std::string path = temp(name) + ".mtrace";
  {
    instrument::TraceRecorder recorder({path, {}, "scg_test", 4096});
    ssr::run(
        [](ssr::Context& ctx) {
          static ssr::Singleton once{"setup"};
          const ssr::VpRef main = ctx.self();
          for (int i = 0; i < 8; ++i) {
            ctx.create_vp(
                [main](ssr::Context& me) {
                  me.singleton(once, [] {});
                  volatile double sink = 0;
                  for (int k = 0; k < 20000; ++k) sink = sink + k;
                  me.send_of_type_to(kDone, main, 1);
                },
                {.name = "worker", .core = static_cast<CoreId>(i % 2)});
          }
          for (int i = 0; i < 8; ++i) ctx.receive_of_type_to(kDone);
        },
        {.cores = 2, .observer = &recorder});
  }
  trace::Trace trace = trace::read_trace(path);
  std::remove(path.c_str());
  return trace;
}

TEST(Scg, ColumnsAreCoresAndEveryUnitHasItsBlock) {
  const trace::Trace trace = record_run("blocks");
  visualize::ScgOptions options;
  options.cycles_per_point = 1;  // fine enough that no unit is below a point
  const visualize::ScgLayout layout = visualize::layout_scg(trace, options);
  EXPECT_EQ(layout.cores, (std::vector<std::uint32_t>{0, 1}));
  EXPECT_NE(layout.x_of(0), layout.x_of(1));
  ASSERT_EQ(layout.blocks.size(), trace.units.size());
  std::map<std::uint64_t, const trace::Unit*> units;
  for (const trace::Unit& unit : trace.units) units[unit.record.unit] = &unit;
  for (const visualize::ScgBlock& block : layout.blocks) {
    const trace::UnitRecord& r = units.at(block.unit)->record;
    EXPECT_EQ(block.core, units.at(block.unit)->core);
    // Height in points is the unit's cycles at the graph's scale, within a point.
    EXPECT_NEAR(block.height, static_cast<double>(r.handler_end - r.assign) / layout.cycles_per_point, 1.0);
    EXPECT_NEAR(block.y, static_cast<double>(r.assign - layout.origin) / layout.cycles_per_point, 1.0);
  }
}

TEST(Scg, ArcsPerKindEqualTheCrossCoreConstraints) {
  const trace::Trace trace = record_run("arcs");
  visualize::ScgOptions options;
  options.cycles_per_point = 1;
  options.arc_kinds = {"create_vp", "send_of_type_to", "singleton", "singleton end", "receive_of_type_to"};
  const visualize::ScgLayout layout = visualize::layout_scg(trace, options);
  std::map<std::uint64_t, std::uint32_t> core_of;
  for (const trace::Unit& unit : trace.units) core_of[unit.record.unit] = unit.core;
  std::map<std::string, int> expected, drawn;
  for (const trace::ConstraintRecord& c : trace.constraints) {
    const std::string kind = trace.construct_name(c.construct);
    if (options.arc_kinds.count(kind) && core_of.at(c.from) != core_of.at(c.to)) ++expected[kind];
  }
  for (const visualize::ScgArc& arc : layout.arcs) ++drawn[arc.kind];
  EXPECT_EQ(drawn, expected);
  EXPECT_GT(expected["create_vp"], 0);
  EXPECT_GT(expected["send_of_type_to"], 0);
}

TEST(Scg, RendersAnSvgWithEveryBlockAndArc) {
  const trace::Trace trace = record_run("svg");
  const visualize::ScgLayout layout = visualize::layout_scg(trace, {});
  const std::string path = temp("render") + ".svg";
  visualize::render_scg(layout, trace, "svg", path);
  std::ifstream file(path);
  const std::string svg((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  std::remove(path.c_str());
  ASSERT_NE(svg.find("<svg"), std::string::npos);
  auto count = [&](const std::string& needle) {
    std::size_t n = 0;
    for (std::size_t at = svg.find(needle); at != std::string::npos; at = svg.find(needle, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("class=\"node scgunit\"") + count("class=\"node scgmerged\""), layout.blocks.size());
  EXPECT_EQ(count("class=\"edge scgarc"), layout.arcs.size());
  EXPECT_NE(svg.find("Scheduling Consequence Graph"), std::string::npos);
}

TEST(Scg, SameScaleGivesTheSamePointsPerCycle) {
  const trace::Trace a = record_run("scale_a");
  const trace::Trace b = record_run("scale_b");
  visualize::ScgOptions options;
  options.cycles_per_point = 2500;
  EXPECT_EQ(visualize::layout_scg(a, options).cycles_per_point, visualize::layout_scg(b, options).cycles_per_point);
}

TEST(Scg, RejectsACoreTheTraceLacks) {
  const trace::Trace trace = record_run("badcore");
  visualize::ScgOptions options;
  options.cores = {0, 7};
  try {
    visualize::layout_scg(trace, options);
    FAIL() << "core 7 accepted";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("core 7 does not exist"), std::string::npos) << error.what();
  }
}

}  // namespace

// Hand-built traces of known shape for the drawing options.
namespace {

using test_support::TraceBuilder;
constexpr std::uint16_t kCreate = 1, kSendOfTypeTo = 4;

// Two cores: core 0 runs the creator (units 1, 2) and a worker (4); core 1 idles until unit 1's
// creation frees unit 3 there, then runs it. Counters: instructions and L1 data-cache misses.
trace::Trace counted_trace(const std::string& name, std::uint64_t stretch = 1) {
  TraceBuilder b(2, {"PAPI_TOT_INS", "PAPI_L1_DCM"});
  b.site(1, "app.cpp", 10);
  b.site(2, "app.cpp", 20);
  const std::uint64_t s = stretch;
  b.unit(0, 1, 1, 0, 10 * s, 100 * s, 120 * s, kCreate, 1, {1000, 10});      // 0.01 misses per instruction
  b.unit(0, 2, 1, 120 * s, 130 * s, 300 * s, 320 * s, kCreate, 1, {1000, 50});
  b.unit(0, 4, 3, 320 * s, 330 * s, 600 * s, 640 * s, kSendOfTypeTo, 2, {1000, 100});  // 0.1
  b.idle(1, 0, 130 * s);
  b.unit(1, 3, 2, 130 * s, 140 * s, 400 * s, 440 * s, kSendOfTypeTo, 2, {2000, 20});
  b.idle(1, 440 * s, 640 * s);
  b.constraint(0, kCreate, 1, 3, 110 * s);
  b.lock_handoff(1, 0, 400 * s, 420 * s);
  const std::string path = temp(name) + ".mtrace";
  b.write(path);
  trace::Trace trace = trace::read_trace(path);
  std::remove(path.c_str());
  return trace;
}

std::string dot_of(const trace::Trace& trace, const visualize::ScgOptions& options) {
  const std::string path = temp("dot") + ".dot";
  visualize::render_scg(visualize::layout_scg(trace, options), trace, "dot", path);
  std::ifstream file(path);
  std::string dot((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  std::remove(path.c_str());
  return dot;
}

std::size_t count_of(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

TEST(ScgOptions, ArcsRunFromTheFreeingPointToTheStartOfTheFreedUnit) {
  const trace::Trace trace = counted_trace("arcpoints");
  visualize::ScgOptions options;
  options.cycles_per_point = 2;
  const visualize::ScgLayout layout = visualize::layout_scg(trace, options);
  ASSERT_EQ(layout.arcs.size(), 1u);
  EXPECT_EQ(layout.arcs[0].kind, "create_vp");
  EXPECT_DOUBLE_EQ(layout.arcs[0].from_y, 55.0);  // the constraint was recorded at tick 110
  EXPECT_DOUBLE_EQ(layout.arcs[0].to_y, 65.0);    // unit 3 starts at tick 130
  // The DOT pins the arc's own points: its head ends at the top of unit 3's block.
  EXPECT_NE(dot_of(trace, options).find("pos=\"e,"), std::string::npos);
}

TEST(ScgOptions, LockHandoffAndCoreSuccessionArcsOnRequest) {
  const trace::Trace trace = counted_trace("kinds");
  visualize::ScgOptions options;
  options.cycles_per_point = 2;
  options.arc_kinds = {visualize::kLockHandoffArc, visualize::kCoreSuccessionArc};
  const visualize::ScgLayout layout = visualize::layout_scg(trace, options);
  std::map<std::string, int> drawn;
  for (const visualize::ScgArc& arc : layout.arcs) ++drawn[arc.kind];
  EXPECT_EQ(drawn[visualize::kLockHandoffArc], 1);     // core 0's unit 4 let core 1's unit 3 in
  EXPECT_EQ(drawn[visualize::kCoreSuccessionArc], 2);  // 1 -> 2 -> 4 on core 0; 3 alone on core 1
  EXPECT_EQ(drawn.count("create_vp"), 0u);
  options.arc_kinds = {"no such construct"};
  EXPECT_THROW(visualize::layout_scg(trace, options), std::invalid_argument);
}

TEST(ScgOptions, APhaseIsAnArcFromItsBeginToItsEnd) {
  TraceBuilder b(1);
  b.site(1, "app.cpp", 1);
  b.unit(0, 1, 1, 0, 1, 50, 60, kSendOfTypeTo, 1);
  b.unit(0, 2, 1, 60, 61, 90, 100, kSendOfTypeTo, 1);
  b.user_event(0, 1, "solve", 1, 20, true);
  b.user_event(0, 1, "solve", 2, 80, false);
  const std::string path = temp("phase") + ".mtrace";
  b.write(path);
  const trace::Trace trace = trace::read_trace(path);
  std::remove(path.c_str());
  visualize::ScgOptions options;
  options.cycles_per_point = 1;
  const visualize::ScgLayout layout = visualize::layout_scg(trace, options);
  ASSERT_EQ(layout.arcs.size(), 1u);
  EXPECT_EQ(layout.arcs[0].kind, visualize::kUserEventArc);
  EXPECT_EQ(layout.arcs[0].note, "phase 'solve'");
  EXPECT_DOUBLE_EQ(layout.arcs[0].from_y, 20.0);
  EXPECT_DOUBLE_EQ(layout.arcs[0].to_y, 80.0);
}

TEST(ScgOptions, WorkIsColouredByMissesPerInstruction) {
  const trace::Trace trace = counted_trace("misses");
  visualize::ScgOptions options;
  options.cycles_per_point = 2;
  const visualize::ScgLayout layout = visualize::layout_scg(trace, options);
  EXPECT_EQ(layout.miss_counter, "PAPI_L1_DCM");
  EXPECT_EQ(layout.miss_denominator, "instruction");
  EXPECT_DOUBLE_EQ(layout.miss_min, 0.01);
  EXPECT_DOUBLE_EQ(layout.miss_max, 0.1);
  std::map<std::uint64_t, double> rate;
  for (const visualize::ScgBlock& block : layout.blocks) rate[block.unit] = block.miss_rate;
  EXPECT_DOUBLE_EQ(rate[4], 0.1);
  EXPECT_EQ(visualize::miss_color(0.01, 0.01, 0.1), "#0000ff");
  EXPECT_EQ(visualize::miss_color(0.1, 0.01, 0.1), "#ff0000");
  const std::string dot = dot_of(trace, options);
  EXPECT_NE(dot.find("#ff0000"), std::string::npos);
  EXPECT_NE(dot.find("PAPI_L1_DCM per instruction"), std::string::npos);
  // A range set by hand clamps: everything at or above 0.05 is pure red.
  options.miss_min = 0;
  options.miss_max = 0.05;
  EXPECT_EQ(visualize::layout_scg(trace, options).miss_max, 0.05);
  EXPECT_NE(dot_of(trace, options).find("#ff0000"), std::string::npos);
}

TEST(ScgOptions, OverheadDetailStacksEveryKindInProportion) {
  const trace::Trace trace = counted_trace("detail", 100);
  visualize::ScgOptions options;
  options.cycles_per_point = 10;
  options.overhead_detail = true;
  const std::string dot = dot_of(trace, options);
  EXPECT_EQ(count_of(dot, "scgoverhead assigner + switch"), 4u);
  EXPECT_EQ(count_of(dot, "scgoverhead create meta-unit"), 2u);     // units 1 and 2 ended by creating
  EXPECT_EQ(count_of(dot, "scgoverhead constraint update"), 2u);    // units 3 and 4
  EXPECT_EQ(count_of(dot, "class=scgunit"), 4u);
  // Unit 1's decision takes 1000 ticks: 100 points at 10 ticks per point, 100/72 inch.
  EXPECT_NE(dot.find("height=1.3889"), std::string::npos);
}

TEST(ScgOptions, AWindowDrawsOnlyTheUnitsInsideIt) {
  const trace::Trace trace = counted_trace("window");
  visualize::ScgOptions options;
  options.cycles_per_point = 1;
  options.from = 310;
  options.to = 500;
  const visualize::ScgLayout layout = visualize::layout_scg(trace, options);
  std::set<std::uint64_t> units;
  for (const visualize::ScgBlock& block : layout.blocks) units.insert(block.unit);
  EXPECT_EQ(units, (std::set<std::uint64_t>{2, 3, 4}));
  EXPECT_EQ(layout.origin, 310u);
  EXPECT_EQ(layout.makespan, 190u);
  for (const visualize::ScgBlock& block : layout.blocks) {
    EXPECT_GE(block.y, 0);
    EXPECT_LE(block.y + block.height, 190.0 + 1e-9);
  }
  options.from = 500;
  options.to = 400;
  EXPECT_THROW(visualize::layout_scg(trace, options), std::invalid_argument);
}

TEST(ScgOptions, SameScaleAsGivesBothGraphsThePointsPerCycleOfTheFirst) {
  const trace::Trace a = counted_trace("scale_short");
  const trace::Trace b = counted_trace("scale_long", 10);
  visualize::ScgOptions options;
  options.cycles_per_point = visualize::fit_cycles_per_point(b);
  const visualize::ScgLayout la = visualize::layout_scg(a, options);
  const visualize::ScgLayout lb = visualize::layout_scg(b, {});
  EXPECT_EQ(la.cycles_per_point, lb.cycles_per_point);
  // Equal ticks give equal heights across the two graphs: unit 1 is 120 ticks in a.
  const auto height_of = [](const visualize::ScgLayout& layout, std::uint64_t unit) {
    for (const visualize::ScgBlock& block : layout.blocks) {
      if (block.unit == unit) return block.height;
    }
    return -1.0;
  };
  EXPECT_NEAR(height_of(la, 1) * 10, height_of(lb, 1), 1e-9);
}

}  // namespace

// The SCG, structurally: a column per core, one block per unit, heights proportional to
// cycles, one arc per cross-core constraint of each drawn kind, and an SVG Graphviz rendered.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "moirai/instrument/trace_recorder.h"
#include "moirai/ssr/ssr.h"
#include "moirai/trace/reader.h"
#include "moirai/visualize/analyses/critical_path.h"
#include "moirai/visualize/analyses/report.h"
#include "moirai/visualize/views/scg.h"
#include "support/hostile_names.h"
#include "support/known_traces.h"
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
  std::map<std::uint64_t, const trace::UnitRecord*> record_of, previous_of;
  std::map<std::uint64_t, const trace::UnitRecord*> last_of_vp;
  std::vector<const trace::UnitRecord*> in_time;
  for (const trace::Unit& unit : trace.units) {
    core_of[unit.record.unit] = unit.core;
    record_of[unit.record.unit] = &unit.record;
    in_time.push_back(&unit.record);
  }
  std::sort(in_time.begin(), in_time.end(), [](auto* a, auto* b) { return a->begin < b->begin; });
  for (const trace::UnitRecord* r : in_time) {
    previous_of[r->unit] = last_of_vp[r->vp];
    last_of_vp[r->vp] = r;
  }
  std::map<std::string, int> expected, drawn, late;
  for (const trace::ConstraintRecord& c : trace.constraints) {
    const std::string kind = trace.construct_name(c.construct);
    if (!options.arc_kinds.count(kind) || core_of.at(c.from) == core_of.at(c.to)) continue;
    // A VP that reached the singleton after its body ended never waited for it: no line.
    const trace::UnitRecord* asked = previous_of.at(c.to);
    if (kind == "singleton end" && asked != nullptr && record_of.at(c.from)->handler_end <= asked->end) {
      ++late[kind];
      continue;
    }
    ++expected[kind];
  }
  for (const visualize::ScgArc& arc : layout.arcs) ++drawn[arc.kind];
  EXPECT_EQ(drawn, expected) << late["singleton end"] << " singleton end constraints to VPs that never waited";
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
    EXPECT_EQ(std::string(error.what()), "core 7 does not exist: the trace has cores 0,1");
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
  const trace::Trace trace = test_support::read_written([&](const std::string& p) { b.write(p); }, "scg_phase");
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

// overlay_y is the centre y (Graphviz's, growing up) of the node `name` in a DOT text.
double overlay_y(const std::string& dot, const std::string& name) {
  const std::size_t at = dot.find("\t" + name + "\t[");
  if (at == std::string::npos) return NAN;
  const std::size_t pos = dot.find("pos=\"", at);
  return std::stod(dot.substr(dot.find(',', pos) + 1));
}

TEST(ScgOptions, OverheadDetailDrawsEveryKindInProportionInTimeOrder) {
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
  // Unit 1 (the first block, 1200 points tall): decision [0, 1000), work [1000, 10000),
  // communication [10000, 11000), create [11000, 12000): the overlays' centres sit 50, 1050 and
  // 1150 points below the block's top, in time order around the work, not stacked on top of it.
  const double top = overlay_y(dot, "b0") + 600;
  EXPECT_NEAR(top - overlay_y(dot, "o0"), 50.0, 0.01);
  EXPECT_NEAR(top - overlay_y(dot, "o1"), 1050.0, 0.01);
  EXPECT_NEAR(top - overlay_y(dot, "o2"), 1150.0, 0.01);
}

// A chore inside a unit's decision span is drawn apart from the assigner's time, after it, and the
// legend names it only when some block holds one (the report and stats count it apart too).
// one_chore_unit is one unit on core 0, decision [0, 100), work [100, 1000), 200 ticks after it,
// whose decision span holds `chore` over [begin, end).
trace::Trace one_chore_unit(Chore chore, std::uint64_t begin, std::uint64_t end, const std::string& name) {
  TraceBuilder b(1);
  b.site(1, "app.cpp", 10);
  b.chore(0, chore, begin, end, 1);
  b.unit(0, 1, 1, 0, 100, 1000, 1200, kSendOfTypeTo, 1);
  return test_support::read_written([&](const std::string& p) { b.write(p); }, name);
}

// detail_options draws every overhead kind at a tick per point.
visualize::ScgOptions detail_options() {
  visualize::ScgOptions options;
  options.cycles_per_point = 1;
  options.overhead_detail = true;
  return options;
}

TEST(ScgOptions, AChoreInTheDecisionIsDrawnApartFromTheAssigner) {
  const trace::Trace trace = one_chore_unit(Chore::wake_up, 20, 80, "scg_chore");  // 60 of the 100-tick decision span
  const visualize::ScgOptions options = detail_options();
  const visualize::ScgLayout layout = visualize::layout_scg(trace, options);
  ASSERT_EQ(layout.blocks.size(), 1u);
  EXPECT_EQ(layout.blocks[0].decide_ticks, 40u);
  EXPECT_EQ(layout.blocks[0].wake_ticks, 60u);
  EXPECT_TRUE(layout.chores_any);
  const std::string dot = dot_of(trace, options);
  EXPECT_EQ(count_of(dot, "scgoverhead waking cores"), 1u);
  EXPECT_NE(dot.find("overhead: waking cores"), std::string::npos);  // the legend
  EXPECT_NE(dot.find("decide 40, waking cores 60"), std::string::npos);  // the tooltip
  // Decision [0, 40), then the wake-up [40, 100): the overlays' centres 20 and 70 points down.
  const double top = overlay_y(dot, "b0") + 600;
  EXPECT_NEAR(top - overlay_y(dot, "o0"), 20.0, 0.01);
  EXPECT_NEAR(top - overlay_y(dot, "o1"), 70.0, 0.01);
  // Without chores, the legend stays as it was.
  EXPECT_EQ(dot_of(counted_trace("no_chore", 1), options).find("waking cores"), std::string::npos);
}

// The runtime's work a front-end estimated inside a unit (format 3.5: libomp's per task) lies at
// the end of the decision span: drawn in a grey of the runtime's, between the assigner's time and
// the work, named in the legend only when some block holds it; `moirai stats` and the report count
// it as the runtime's overhead of its own kind, so work + overhead is still the unit's stretch.
TEST(ScgOptions, EstimatedRuntimeWorkIsDrawnGreyAndCountedAsOverhead) {
  const trace::Trace trace = one_chore_unit(Chore::estimated, 40, 100, "scg_estimated");  // the span's last 60
  const visualize::ScgOptions options = detail_options();
  const visualize::ScgLayout layout = visualize::layout_scg(trace, options);
  ASSERT_EQ(layout.blocks.size(), 1u);
  EXPECT_EQ(layout.blocks[0].decide_ticks, 40u);
  EXPECT_EQ(layout.blocks[0].estimated_ticks, 60u);
  EXPECT_FALSE(layout.chores_any);
  EXPECT_TRUE(layout.estimated_any);
  const std::string dot = dot_of(trace, options);
  EXPECT_EQ(count_of(dot, "scgoverhead the runtime's work inside the unit, estimated"), 1u);
  EXPECT_NE(dot.find("fillcolor=grey55"), std::string::npos);
  EXPECT_NE(dot.find("overhead: the runtime's work inside the unit, estimated"), std::string::npos);  // the legend
  EXPECT_NE(dot.find("decide 40, runtime work (estimated) 60"), std::string::npos);  // the tooltip
  // Decision [0, 40), then the estimate [40, 100): the overlays' centres 20 and 70 points down.
  const double top = overlay_y(dot, "b0") + 600;
  EXPECT_NEAR(top - overlay_y(dot, "o0"), 20.0, 0.01);
  EXPECT_NEAR(top - overlay_y(dot, "o1"), 70.0, 0.01);
  EXPECT_EQ(dot_of(counted_trace("no_estimate", 1), options).find("estimated"), std::string::npos);
  // The accounts: 900 of work, 40 deciding, 60 estimated, 200 after the unit.
  const visualize::Report report = visualize::build_report(trace);
  const visualize::CoreTime& core = report.summary.cores.at(0);
  EXPECT_EQ(core.work, 900u);
  EXPECT_EQ(core.decision, 40u);
  EXPECT_EQ(core.estimated, 60u);
  EXPECT_EQ(core.estimated_count, 1u);
  EXPECT_EQ(core.overhead(), 300u);
  EXPECT_EQ(core.total(), 1200u);
  EXPECT_EQ(report.overhead.estimated, 60u);
  EXPECT_EQ(report.overhead.decision, 40u);
  EXPECT_DOUBLE_EQ(report.overhead_per_work, 300.0 / 900.0);
  std::ostringstream text, json;
  visualize::print_report(text, trace, report);
  visualize::print_report_json(json, trace, report);
  EXPECT_NE(text.str().find(", runtime work (estimated) 0.000 ms"), std::string::npos) << text.str();
  EXPECT_NE(json.str().find("\"estimated\":6e-08"), std::string::npos) << json.str();
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

// The critical path over the SCG, and its listing, on known_traces.h's rendezvous: u1 -> u3 -> u4
// (create_vp, then send_from_to), work 100 + 300 + 50 = 450.
namespace {

trace::Trace rendezvous() {
  return test_support::read_written([](const std::string& p) { test_support::write_rendezvous_trace(p); }, "scg_rendezvous");
}

TEST(CriticalPath, ListsItsUnitsInOrderAndTheirWorkAddsUpToTheReportedPath) {
  const trace::Trace trace = rendezvous();
  const visualize::CriticalPathListing listing = visualize::list_critical_path(trace);
  ASSERT_EQ(listing.units.size(), 3u);
  const std::vector<std::uint64_t> units = {listing.units[0].unit, listing.units[1].unit, listing.units[2].unit};
  EXPECT_EQ(units, (std::vector<std::uint64_t>{1, 3, 4}));
  std::uint64_t work = 0;
  for (const visualize::CriticalUnit& u : listing.units) work += u.work;
  EXPECT_EQ(work, 450u);
  EXPECT_EQ(listing.work, 450u);
  EXPECT_EQ(visualize::build_report(trace).critical_path_work, listing.work);
  const visualize::CriticalUnit& u3 = listing.units[1];
  EXPECT_EQ(u3.vp, 2u);
  EXPECT_EQ(u3.core, 1u);
  EXPECT_EQ(u3.work, 300u);
  EXPECT_EQ(u3.arrived_by, "create_vp");
  EXPECT_EQ(u3.began_by, "created");
  EXPECT_EQ(u3.ended_by, "send_from_to");
  EXPECT_EQ(u3.ended_at, "known.cpp:10");
  const visualize::CriticalUnit& u4 = listing.units[2];
  EXPECT_EQ(u4.arrived_by, "send_from_to");
  EXPECT_EQ(u4.began_by, "receive_from_to");  // u2, VP 1's unit before it, ended by its receive
  EXPECT_EQ(u4.began_at, "known.cpp:10");
  EXPECT_EQ(u4.ended_by, "end_vp");
  EXPECT_TRUE(listing.units[0].arrived_by.empty());
  std::ostringstream json, text;
  visualize::print_critical_path_json(json, listing);
  visualize::print_critical_path(text, listing);
  EXPECT_NE(json.str().find("{\"critical_path\":{\"work\":450,\"makespan\":520,"), std::string::npos) << json.str();
  EXPECT_NE(json.str().find("{\"unit\":3,\"vp\":2,\"core\":1,\"work\":300,\"arrived_by\":\"create_vp\""), std::string::npos)
      << json.str();
  EXPECT_NE(text.str().find("critical path: 3 units, work 450 ticks"), std::string::npos) << text.str();
}

TEST(CriticalPath, IsDrawnOverTheScgWithRimsAndJoiningLines) {
  const trace::Trace trace = rendezvous();
  visualize::ScgOptions options;
  options.cycles_per_point = 1;
  options.critical_path = true;
  const visualize::ScgLayout layout = visualize::layout_scg(trace, options);
  std::set<std::uint64_t> rimmed;
  for (const visualize::ScgBlock& block : layout.blocks) {
    if (block.critical) rimmed.insert(block.unit);
  }
  EXPECT_EQ(rimmed, (std::set<std::uint64_t>{1, 3, 4}));
  std::vector<std::pair<std::uint64_t, std::uint64_t>> joins;
  for (const visualize::ScgArc& arc : layout.arcs) {
    if (arc.kind == visualize::kCriticalPathArc) joins.emplace_back(layout.blocks[arc.from].unit, layout.blocks[arc.to].unit);
  }
  EXPECT_EQ(joins, (std::vector<std::pair<std::uint64_t, std::uint64_t>>{{1, 3}, {3, 4}}));
  EXPECT_EQ(layout.critical_work, 450u);
  const std::string dot = dot_of(trace, options);
  EXPECT_EQ(count_of(dot, "scgunit scgcritical"), 3u);
  EXPECT_EQ(count_of(dot, "scgarc critical path"), 2u);
  EXPECT_NE(dot.find("the critical path, 3 units with 450 ns of work"), std::string::npos);
  // Without the option nothing is rimmed.
  options.critical_path = false;
  EXPECT_EQ(count_of(dot_of(trace, options), "scgcritical"), 0u);
}

TEST(Scg, ASingletonEndLineGoesOnlyToAUnitThatWaited) {
  const trace::Trace trace =
      test_support::read_written([](const std::string& p) { test_support::write_singleton_trace(p); }, "scg_singleton");
  visualize::ScgOptions options;
  options.cycles_per_point = 1;
  const visualize::ScgLayout layout = visualize::layout_scg(trace, options);
  std::vector<std::pair<std::uint64_t, std::uint64_t>> ends;
  for (const visualize::ScgArc& arc : layout.arcs) {
    if (arc.kind == "singleton end") ends.emplace_back(layout.blocks[arc.from].unit, layout.blocks[arc.to].unit);
  }
  // VP 2 waited in u4 and u2's end freed u5; VP 3 reached the singleton at 130, after u2 had
  // ended it at 110: its u7 was never waiting, so no line to it, though the trace records u2 -> u7.
  EXPECT_EQ(ends, (std::vector<std::pair<std::uint64_t, std::uint64_t>>{{2, 5}}));
}

}  // namespace

namespace {

// What the OS took from a unit's work span is drawn in its own colour, as tall as the time taken,
// and named in the legend and the block's tooltip; a run without it shows neither.
TEST(Scg, TakenTimeIsDrawnApartFromWork) {
  const auto build = [](std::uint64_t taken, const std::string& name) {
    const std::string path = temp(name) + ".mtrace";
    {
      trace::BuilderOptions options = test_support::ssr_options(1);
      options.metadata = {{"os_time", "thread CPU time at unit boundaries"}};
      trace::TraceBuilder b(path, options);
      b.site(1, "app.cpp", 3);
      b.unit(0, 1, 1, 0, 100, 900, 1000, 4, 1);
      if (taken) b.os_taken(0, 1, taken);
      b.finish();
    }
    trace::Trace trace = trace::read_trace(path);
    std::remove(path.c_str());
    return trace;
  };
  visualize::ScgOptions options;
  options.cycles_per_point = 2;
  const trace::Trace busy = build(300, "taken");
  const visualize::ScgLayout layout = visualize::layout_scg(busy, options);
  ASSERT_EQ(layout.blocks.size(), 1u);
  EXPECT_EQ(layout.blocks[0].taken_ticks, 300u);
  EXPECT_TRUE(layout.taken_any);
  const std::string dot = dot_of(busy, options);
  EXPECT_EQ(count_of(dot, "fillcolor=\"#ffd700c0\""), 1u) << "one taken segment";
  EXPECT_NE(dot.find("height=2.0833"), std::string::npos) << "300 ticks at 2 per point: 150 points";
  EXPECT_NE(dot.find("taken by the OS: inside a unit's work span"), std::string::npos) << "the legend says it";
  EXPECT_NE(dot.find("work 800 (of which taken by the OS 300)"), std::string::npos) << "the tooltip says it";
  const std::string calm = dot_of(build(0, "calm"), options);
  EXPECT_EQ(calm.find("#ffd700c0"), std::string::npos);
  EXPECT_EQ(calm.find("taken by the OS"), std::string::npos);
}

// Control characters and invalid UTF-8 in a VP, call site or phase name reach the SCG's labels
// and tooltips as U+FFFD: the SVG stays well-formed XML, in every overhead and arc mode.
TEST(Scg, HostileNamesStillMakeWellFormedXml) {
  const trace::Trace trace = test_support::read_written(test_support::write_hostile_names_trace, "scg_hostile");
  for (const bool detail : {false, true}) {
    visualize::ScgOptions options;
    options.cycles_per_point = 1;
    options.critical_path = detail;
    options.overhead_detail = detail;
    const std::string path = temp(detail ? "hostile_detail" : "hostile") + ".svg";
    visualize::render_scg(visualize::layout_scg(trace, options), trace, "svg", path);
    EXPECT_EQ(test_support::xml_problems(XMLLINT, path), "") << path;
    std::ifstream file(path);
    const std::string svg((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    EXPECT_NE(svg.find("\xEF\xBF\xBD"), std::string::npos) << "the bad bytes are shown as U+FFFD";
    EXPECT_EQ(svg.find('\x1b'), std::string::npos);
    std::remove(path.c_str());
  }
}

TEST(Scg, AMissingFolderIsAnErrorAndNothingIsWritten) {
  const trace::Trace trace = rendezvous();
  const std::string folder = temp("missing_folder");
  EXPECT_THROW(visualize::render_scg(visualize::layout_scg(trace, {}), trace, "svg", folder + "/x.svg"), std::runtime_error);
  EXPECT_NE(::access(folder.c_str(), F_OK), 0);
}

}  // namespace

// The views are language-neutral: a trace of another language (a task dataflow one, say) is
// drawn with its own construct names and colours, its arcs chosen by role, and the report's rules
// find its creations by role.
namespace {

trace::Trace dataflow_trace(const std::string& name) {
  trace::BuilderOptions options;
  options.cores = 2;
  options.language = "Dataflow";
  options.constructs = {{"task end", ConstructRole::end, ""},
                        {"spawn", ConstructRole::create, "firebrick"},
                        {"dep RAW", ConstructRole::dependence, "teal"},
                        {"barrier", ConstructRole::wait, "navy"},
                        {"dep back", ConstructRole::receive, "pink"}};
  test_support::TraceBuilder b(options);
  b.site(1, "flow.cpp", 10);
  b.site(2, "flow.cpp", 20);
  b.unit(0, 1, 1, 0, 1, 99, 100, 1, 1);         // the seed spawns task 2 ...
  b.constraint(0, 1, 1, 3, 99);
  b.unit(0, 2, 1, 100, 101, 199, 200, 3, 2);    // ... and waits at a barrier
  b.idle(1, 0, 100);
  b.unit(1, 3, 2, 100, 101, 399, 400, 0, 2);    // task 2 runs on core 1, then ends
  b.constraint(1, 2, 3, 4, 399);                // a dependence frees the seed's next unit
  b.constraint(1, 4, 3, 4, 399);                // drawn only on request
  b.idle(0, 200, 400);
  b.unit(0, 4, 1, 400, 401, 499, 500, 0, 2);
  b.idle(1, 400, 500);
  const std::string path = temp(name) + ".mtrace";
  b.write(path);
  trace::Trace trace = trace::read_trace(path);
  std::remove(path.c_str());
  return trace;
}

}  // namespace

TEST(LanguageNeutralViews, AnotherLanguageIsDrawnWithItsOwnConstructs) {
  const trace::Trace trace = dataflow_trace("dataflow");
  const visualize::ScgLayout layout = visualize::layout_scg(trace, {});
  std::multiset<std::string> kinds;
  for (const visualize::ScgArc& arc : layout.arcs) kinds.insert(arc.kind);
  EXPECT_EQ(kinds.count("spawn"), 1u);
  EXPECT_EQ(kinds.count("dep RAW"), 1u);
  EXPECT_EQ(kinds.count("dep back"), 0u) << "a receiving side's line is drawn on request only";
  const std::string dot = dot_of(trace, {});
  EXPECT_NE(dot.find("firebrick"), std::string::npos);
  EXPECT_NE(dot.find("teal"), std::string::npos);
  EXPECT_NE(dot.find(">spawn<"), std::string::npos) << "the legend names the trace's constructs";
  EXPECT_NE(dot.find(">dep RAW<"), std::string::npos);
  for (const char* ssr : {"create_vp", "send_from_to", "send_of_type", "singleton"}) {
    EXPECT_EQ(dot.find(ssr), std::string::npos) << ssr;
  }
  // The creation ended the seed's unit: its block is marked as a creation, by role.
  const auto seed = std::find_if(layout.blocks.begin(), layout.blocks.end(), [](const auto& b) { return b.unit == 1; });
  ASSERT_NE(seed, layout.blocks.end());
  EXPECT_TRUE(seed->created);
}

TEST(LanguageNeutralViews, TheReportChargesAnotherLanguagesCreationByRole) {
  const trace::Trace trace = dataflow_trace("dataflow_report");
  const visualize::Report report = visualize::build_report(trace);
  EXPECT_GT(report.overhead.create, 0u) << "the spawn's handler time is creation overhead";
  bool named = false;
  for (const visualize::IdleCause& cause : report.idle_causes) named = named || cause.construct == "spawn" || cause.construct == "dep RAW";
  EXPECT_TRUE(named);
}

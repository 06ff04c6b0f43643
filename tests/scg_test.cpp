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

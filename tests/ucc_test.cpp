// The UCC, structurally, on the DOT Graphviz writes: one node per unit and one per group, the
// group's lines equal to its recorded sources and sinks, rows in the order of depth, weighted
// heights proportional to the weight; merging of full rows and an empty trace.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cctype>
#include <cmath>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "moirai/instrument/trace_recorder.h"
#include "moirai/proto_runtime/sim_machine.h"
#include "moirai/ssr/ssr.h"
#include "moirai/trace/reader.h"
#include "moirai/visualize/views/ucc.h"
#include "support/hostile_names.h"
#include "support/known_traces.h"

namespace {

using namespace moirai;

// Dot is what the tests read back from Graphviz's DOT output.
struct Dot {
  struct Node { std::map<std::string, std::string> attributes; };
  std::map<std::string, Node> nodes;  // u<unit>, g<group>, m<row>
  std::vector<std::pair<std::string, std::string>> edges;
  std::vector<std::string> edge_classes;
  std::vector<std::string> edge_penwidth;
  std::string text;
  double y(const std::string& node) const {  // centre, Graphviz's y (up)
    const std::string& pos = nodes.at(node).attributes.at("pos");
    return std::stod(pos.substr(pos.find(',') + 1));
  }
  double x(const std::string& node) const { return std::stod(nodes.at(node).attributes.at("pos")); }
  double height_points(const std::string& node) const { return std::stod(nodes.at(node).attributes.at("height")) * 72; }
};

// attributes parses a DOT attribute list: key=value or key="quoted value", comma-separated.
std::map<std::string, std::string> attributes(const std::string& list) {
  std::map<std::string, std::string> out;
  std::size_t at = 0;
  while (at < list.size()) {
    while (at < list.size() && (std::isspace(static_cast<unsigned char>(list[at])) || list[at] == ',')) ++at;
    const std::size_t equals = list.find('=', at);
    if (equals == std::string::npos) break;
    const std::string key = list.substr(at, equals - at);
    std::string value;
    at = equals + 1;
    if (at < list.size() && list[at] == '"') {
      for (++at; at < list.size() && list[at] != '"'; ++at) {
        if (list[at] == '\\' && at + 1 < list.size()) value += list[at++];
        value += list[at];
      }
      ++at;
    } else {
      while (at < list.size() && list[at] != ',' && !std::isspace(static_cast<unsigned char>(list[at]))) value += list[at++];
    }
    out[key] = value;
  }
  return out;
}

// node_name reads a u/g/m node name (dropping a :port) at `at`, or returns "".
std::string node_name(const std::string& text, std::size_t& at) {
  if (at >= text.size() || (text[at] != 'u' && text[at] != 'g' && text[at] != 'm')) return "";
  std::size_t end = at + 1;
  while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
  if (end == at + 1) return "";
  std::string name = text.substr(at, end - at);
  if (end + 1 < text.size() && text[end] == ':') end += 2;
  at = end;
  return name;
}

Dot draw(const trace::Trace& trace, const visualize::UccOptions& options, visualize::UccLayout* layout_out = nullptr) {
  const visualize::UccLayout layout = visualize::layout_ucc(trace, options);
  const std::string path = ::testing::TempDir() + "moirai_ucc_" + std::to_string(::getpid()) + ".dot";
  visualize::render_ucc(layout, "dot", path);
  std::ifstream in(path);
  Dot dot;
  dot.text.assign(std::istreambuf_iterator<char>(in), {});
  std::remove(path.c_str());
  // Statements start on their own line: NAME [-> NAME] [attributes];
  for (std::size_t line = dot.text.find('\n'); line != std::string::npos; line = dot.text.find('\n', line + 1)) {
    std::size_t at = line + 1;
    while (at < dot.text.size() && dot.text[at] == '\t') ++at;
    const std::string from = node_name(dot.text, at);
    if (from.empty()) continue;
    while (at < dot.text.size() && dot.text[at] == ' ') ++at;
    std::string to;
    if (dot.text.compare(at, 2, "->") == 0) {
      at += 2;
      while (at < dot.text.size() && dot.text[at] == ' ') ++at;
      to = node_name(dot.text, at);
    }
    const std::size_t open = dot.text.find('[', at), close = dot.text.find("];", at);
    if (open == std::string::npos || close == std::string::npos) continue;
    const auto list = attributes(dot.text.substr(open + 1, close - open - 1));
    if (to.empty()) {
      dot.nodes[from].attributes = list;
    } else {
      dot.edges.emplace_back(from, to);
      dot.edge_classes.push_back(list.count("class") ? list.at("class") : "");
      dot.edge_penwidth.push_back(list.count("penwidth") ? list.at("penwidth") : "");
    }
  }
  if (layout_out != nullptr) *layout_out = layout;
  return dot;
}

trace::Trace typed(bool instructions = false) {
  return test_support::read_written([&](const std::string& p) { test_support::write_typed_send_trace(p, instructions); },
                                    instructions ? "typed_ins" : "typed");
}

TEST(Ucc, OneNodePerUnitAndPerGroup) {
  const trace::Trace trace = typed();
  const Dot dot = draw(trace, {});
  std::set<std::string> expected;
  for (const trace::Unit& unit : trace.units) expected.insert("u" + std::to_string(unit.record.unit));
  for (const auto& group : trace.groups) expected.insert("g" + std::to_string(group.id));
  std::set<std::string> drawn;
  for (const auto& [name, node] : dot.nodes) drawn.insert(name);
  EXPECT_EQ(drawn, expected);
  EXPECT_EQ(dot.nodes.at("u1").attributes.at("shape"), "circle");
  EXPECT_EQ(dot.nodes.at("g1").attributes.at("shape"), "diamond");
}

TEST(Ucc, GroupLinesAreItsSourcesAndSinks) {
  for (const std::string& file : {std::string("typed"), std::string("singleton_counters")}) {
    const trace::Trace trace =
        file == "typed" ? typed()
                        : trace::read_trace(std::string(MOIRAI_SOURCE_DIR) + "/tests/fuzz/corpus/trace_reader/" + file + ".mtrace");
    ASSERT_FALSE(trace.groups.empty()) << file;
    const Dot dot = draw(trace, {});
    for (const auto& group : trace.groups) {
      const std::string g = "g" + std::to_string(group.id);
      std::multiset<std::string> sources, sinks, in, out;
      for (const auto& m : trace.group_members) {
        if (m.record.group != group.id) continue;
        // A receiving call constrains its VP's next unit: the line out goes there.
        std::uint64_t unit = m.record.unit;
        const trace::Unit* member = nullptr;
        for (const trace::Unit& u : trace.units) {
          if (u.record.unit == unit) member = &u;
        }
        ASSERT_NE(member, nullptr);
        const std::string ended = trace.construct_name(member->record.ended_by);
        if (m.record.role == 2 && ended.rfind("receive_of_type", 0) == 0) {
          const trace::Unit* next = nullptr;
          for (const trace::Unit& u : trace.units) {
            if (u.record.vp == member->record.vp && u.record.begin > member->record.begin &&
                (next == nullptr || u.record.begin < next->record.begin)) {
              next = &u;
            }
          }
          if (next != nullptr) unit = next->record.unit;
        }
        (m.record.role == 1 ? sources : sinks).insert("u" + std::to_string(unit));
      }
      for (const auto& [from, to] : dot.edges) {
        if (to == g) in.insert(from);
        if (from == g) out.insert(to);
      }
      EXPECT_EQ(in, sources) << file << " " << g;
      EXPECT_EQ(out, sinks) << file << " " << g;
    }
  }
}

TEST(Ucc, SimpleConstraintsAndVpOrderAreLines) {
  const Dot dot = draw(typed(), {});
  std::map<std::string, int> classes;
  for (const std::string& c : dot.edge_classes) ++classes[c];
  // The typed sends and receives go through the group; creation is drawn line by line; the
  // critical path's typed send u4 -> u9 is drawn too, so the path is unbroken.
  EXPECT_EQ(classes, (std::map<std::string, int>{{"uccconstraint create_vp", 2}, {"uccvp", 6}, {"uccgroupin", 2},
                                                 {"uccgroupout", 2}, {"ucccritical send_of_type_to", 1}}));
}

TEST(Ucc, RowsFollowDepthWithoutOverlap) {
  const Dot dot = draw(typed(), {});
  const std::map<std::string, int> row = {{"u1", 0}, {"u2", 1}, {"u3", 1}, {"u4", 2}, {"u5", 2},
                                          {"u6", 3}, {"u7", 3}, {"u8", 4}, {"u9", 4}};
  // The group's diamond sits between its deepest source u4 (row 2) and the units it constrains:
  // u7 and u9, which wait for the messages that the receives u5 and u7 asked for.
  EXPECT_GT(dot.y("u4"), dot.y("g1"));
  EXPECT_GT(dot.y("g1"), dot.y("u7"));
  for (const auto& [a, ra] : row) {
    for (const auto& [b, rb] : row) {
      if (ra < rb) {  // Graphviz's y grows upward
        EXPECT_GT(dot.y(a), dot.y(b)) << a << " above " << b;
      }
      if (ra == rb) {
        EXPECT_DOUBLE_EQ(dot.y(a), dot.y(b)) << a << " and " << b;
      }
      if (ra == rb && a != b) {
        EXPECT_GE(std::abs(dot.x(a) - dot.x(b)), 28.0) << a << " overlaps " << b;
      }
    }
  }
  // The critical path u1 u3 u4 u9 has a red rim.
  for (const char* unit : {"u1", "u3", "u4", "u9"}) EXPECT_EQ(dot.nodes.at(unit).attributes.at("color"), "red3") << unit;
  EXPECT_EQ(dot.nodes.at("u2").attributes.at("color"), "black");
  // Its arcs are bold: u1 -> u3 (same VP), u3 -> u4 (create), u4 -> u9 (typed send).
  std::set<std::pair<std::string, std::string>> bold;
  for (std::size_t i = 0; i < dot.edges.size(); ++i) {
    if (dot.edge_penwidth[i] == "2.2") bold.insert(dot.edges[i]);
  }
  EXPECT_EQ(bold, (std::set<std::pair<std::string, std::string>>{{"u1", "u3"}, {"u3", "u4"}, {"u4", "u9"}}));
}

TEST(Ucc, WeightedHeightsAreProportionalToInstructions) {
  for (bool instructions : {false, true}) {
    const trace::Trace trace = typed(instructions);
    visualize::UccLayout layout;
    const Dot dot = draw(trace, {.weighted = true}, &layout);
    EXPECT_NE(dot.text.find(instructions ? "instructions (PAPI_TOT_INS)" : "no instruction counter"), std::string::npos);
    for (const trace::Unit& unit : trace.units) {
      const std::string name = "u" + std::to_string(unit.record.unit);
      EXPECT_EQ(dot.nodes.at(name).attributes.at("shape"), "box");
      const double work = static_cast<double>(unit.record.end - unit.record.begin);
      const double weight = instructions ? 7 * work + 1 : work;
      EXPECT_NEAR(dot.height_points(name), weight / layout.weight_per_point, 1.0) << name;
    }
    // Boxes stack along every dependency: each below the bottom of the one constraining it.
    const auto top = [&](const std::string& n) { return -dot.y(n) - dot.height_points(n) / 2; };
    const auto bottom = [&](const std::string& n) { return -dot.y(n) + dot.height_points(n) / 2; };
    for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
             {"u1", "u3"}, {"u3", "u4"}, {"u4", "u9"}, {"u2", "u7"}, {"u7", "u8"}, {"u1", "u2"}}) {
      EXPECT_GE(top(to), bottom(from) - 0.01) << from << " -> " << to;
    }
  }
}

TEST(Ucc, FullRowsMergeAndTheLegendSaysSo) {
  const trace::Trace trace = test_support::read_written(
      [](const std::string& p) {
        test_support::TraceBuilder b(1);
        b.site(1, "wide.cpp", 1);
        b.unit(0, 1, 1, 0, 1, 2, 3, 1, 1);  // creates 100 VPs at once
        for (std::uint64_t k = 0; k < 100; ++k) {
          b.constraint(0, 1, 1, 2 + k, 2);
          b.unit(0, 2 + k, 2 + k, 3 + 3 * k, 4 + 3 * k, 5 + 3 * k, 6 + 3 * k, 0, 1);
        }
        b.write(p);
      },
      "wide");
  visualize::UccLayout layout;
  const Dot dot = draw(trace, {}, &layout);
  EXPECT_EQ(layout.merged_units, 100u - 47u);
  EXPECT_EQ(dot.nodes.size(), 1u + 47u + 1u);
  ASSERT_EQ(dot.nodes.count("m1"), 1u);
  EXPECT_EQ(dot.edges.size(), 47u + 1u);  // one line to the merged node, not 53
  EXPECT_NE(dot.text.find("53 units merged"), std::string::npos);
}

TEST(Ucc, EmptyTraceIsAValidEmptyGraphWithANote) {
  const trace::Trace trace = test_support::read_written([](const std::string& p) { test_support::TraceBuilder(2).write(p); }, "none");
  const Dot dot = draw(trace, {});
  EXPECT_TRUE(dot.nodes.empty());
  EXPECT_NE(dot.text.find("the trace has no units"), std::string::npos);
  EXPECT_EQ(dot.text.rfind("digraph", 0), 0u);
}

// every_arc_points_down checks that each line of a UCC goes from a node to one drawn lower:
// plain, centre below centre; weighted, the head's top at or below the tail's bottom.
void every_arc_points_down(const Dot& dot, bool weighted, const std::string& what) {
  ASSERT_FALSE(dot.edges.empty()) << what;
  for (const auto& [from, to] : dot.edges) {
    if (weighted) {
      const double bottom = -dot.y(from) + dot.height_points(from) / 2, top = -dot.y(to) - dot.height_points(to) / 2;
      EXPECT_GE(top, bottom - 0.01) << what << ": " << from << " -> " << to;
    } else {
      EXPECT_GT(dot.y(from), dot.y(to)) << what << ": " << from << " -> " << to;
    }
  }
}

trace::Trace singleton_trace() {
  return test_support::read_written([](const std::string& p) { test_support::write_singleton_trace(p); }, "singleton");
}

inline const ssr::MessageType<int> kGo{"go"};

// record_wavefront records a real SSR program on the simulated machine sim:4: `size` VPs each
// take a singleton 'setup', then work through `size` cells, each cell of VP j waiting for VP
// j-1's message (send_from_to) and passing one on to VP j+1; the main VP hands out the go.
trace::Trace record_wavefront(int size) {
  const std::string path = ::testing::TempDir() + "moirai_ucc_wavefront_" + std::to_string(::getpid()) + ".mtrace";
  {
    instrument::TraceRecorder recorder({path, {}, "ucc_test wavefront", 4096});
    proto::SimMachine machine(proto::SimConfig{.topology = {1, 4}});
    ssr::run(
        machine,
        [size](ssr::Context& ctx) {
          static ssr::Singleton setup{"setup"};
          auto refs = std::make_shared<std::vector<ssr::VpRef>>(static_cast<std::size_t>(size));
          const ssr::VpRef main = ctx.self();
          for (int j = 0; j < size; ++j) {
            (*refs)[static_cast<std::size_t>(j)] = ctx.create_vp(
                [j, size, refs, main](ssr::Context& me) {
                  (void)me.receive_of_type_to(kGo);  // every VP's reference is known from here on
                  me.singleton(setup, [&] { me.charge_work(5000); });
                  for (int cell = 0; cell < size; ++cell) {
                    if (j > 0) (void)me.receive_from_to<int>((*refs)[static_cast<std::size_t>(j - 1)]);
                    me.charge_work(1000);
                    if (j + 1 < size) me.send_from_to((*refs)[static_cast<std::size_t>(j + 1)], cell);
                  }
                  (void)main;
                },
                {.name = "column"});
          }
          for (int j = 0; j < size; ++j) ctx.send_of_type_to(kGo, (*refs)[static_cast<std::size_t>(j)], 1);
        },
        {.observer = &recorder});
  }
  trace::Trace trace = trace::read_trace(path);
  std::remove(path.c_str());
  return trace;
}

TEST(Ucc, EverySimpleConstraintOfARecordedWavefrontWithASingletonIsALine) {
  const trace::Trace trace = record_wavefront(16);
  ASSERT_FALSE(trace.groups.empty());
  std::map<std::string, int> recorded;
  for (const trace::ConstraintRecord& c : trace.constraints) ++recorded[trace.construct_name(c.construct)];
  // 15 columns pass on 16 cells each: 240 rendezvous, both crossing dependencies recorded.
  ASSERT_EQ(recorded["send_from_to"], 240);
  ASSERT_EQ(recorded["receive_from_to"], 240);
  ASSERT_EQ(recorded["create_vp"], 16);
  for (bool weighted : {false, true}) {
    const Dot dot = draw(trace, {.weighted = weighted});
    std::map<std::string, int> lines;
    for (const std::string& c : dot.edge_classes) ++lines[c];
    for (const char* kind : {"send_from_to", "receive_from_to", "create_vp"}) {
      EXPECT_EQ(lines[std::string("uccconstraint ") + kind], recorded[kind]) << kind << (weighted ? " (weighted)" : "");
    }
    every_arc_points_down(dot, weighted, weighted ? "wavefront, weighted" : "wavefront");
  }
}

TEST(Ucc, EveryArcPointsDown) {
  for (bool weighted : {false, true}) {
    every_arc_points_down(draw(typed(), {.weighted = weighted}), weighted, "typed sends");
    every_arc_points_down(draw(singleton_trace(), {.weighted = weighted}), weighted, "singleton");
  }
}

TEST(Ucc, ASingletonsDiamondSitsBetweenItsSourcesAndItsSinks) {
  const trace::Trace trace = singleton_trace();
  const Dot dot = draw(trace, {});
  // Rows of known_traces.h: u1, u4, u6 0; u2 1; u3, u5, u7 2; the diamond above row 1.
  for (const char* top : {"u1", "u4", "u6"}) {
    EXPECT_DOUBLE_EQ(dot.y(top), dot.y("u1")) << top;
    EXPECT_GT(dot.y(top), dot.y("g1")) << top;
  }
  EXPECT_GT(dot.y("g1"), dot.y("u2"));
  for (const char* sink : {"u3", "u5", "u7"}) EXPECT_GT(dot.y("u2"), dot.y(sink)) << sink;
  // The singleton's grant and end go through the diamond: no line of theirs one by one, except the
  // critical path's (u6 -> u7 is its VP's order, so none here).
  std::map<std::string, int> classes;
  for (const std::string& c : dot.edge_classes) ++classes[c];
  EXPECT_EQ(classes, (std::map<std::string, int>{{"uccvp", 4}, {"uccgroupin", 3}, {"uccgroupout", 3}}));
}

// Control characters and invalid UTF-8 in the names reach the UCC's labels and tooltips as
// U+FFFD: the SVG stays well-formed XML.
TEST(Ucc, HostileNamesStillMakeWellFormedXml) {
  const trace::Trace trace = test_support::read_written(test_support::write_hostile_names_trace, "ucc_hostile");
  for (const bool weighted : {false, true}) {
    visualize::UccOptions options;
    options.weighted = weighted;
    const std::string path = ::testing::TempDir() + "moirai_ucc_hostile_" + std::to_string(::getpid()) + ".svg";
    visualize::render_ucc(visualize::layout_ucc(trace, options), "svg", path);
    EXPECT_EQ(test_support::xml_problems(XMLLINT, path), "") << path;
    std::remove(path.c_str());
  }
}

TEST(Ucc, AMissingFolderIsAnError) {
  const trace::Trace trace = test_support::read_written(test_support::write_rendezvous_trace, "ucc_missing");
  EXPECT_THROW(visualize::render_ucc(visualize::layout_ucc(trace, {}), "svg", ::testing::TempDir() + "moirai_no_such_folder/x.svg"),
               std::runtime_error);
}

}  // namespace

// The exporters against known traces and recorded runs, each output read back by the real
// reader of its format: otf2-print for OTF2, nlohmann::json for Perfetto's JSON, SQLite for the
// database (running the example queries of docs/export.md).
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <csignal>

#include <cstdio>
#include <filesystem>
#include <functional>
#include <iostream>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "moirai/trace/reader.h"
#include "moirai/visualize/export/export.h"
#include "moirai/visualize/analyses/report.h"
#include "moirai/visualize/output/output_file.h"
#include "support/command_output.h"
#include "support/known_traces.h"
#include "support/perfetto_trace_reader.h"
#include "support/trace_builder.h"

namespace {

using namespace moirai;
namespace fs = std::filesystem;

std::string scratch(const std::string& name) {
  return ::testing::TempDir() + "moirai_export_" + name + "_" + std::to_string(::getpid());
}

std::string corpus(const std::string& name) { return std::string(MOIRAI_SOURCE_DIR) + "/tests/fuzz/corpus/trace_reader/" + name; }

// Expected is what a trace holds, counted here without the exporters' code.
struct Expected {
  std::uint64_t units = 0, segments = 0, constraints = 0, cross_core = 0, counters = 0;
};

Expected expected_of(const trace::Trace& trace) {
  Expected e;
  std::unordered_map<std::uint64_t, std::uint32_t> core_of;
  for (const trace::Unit& unit : trace.units) {
    core_of[unit.record.unit] = unit.core;
    ++e.units;
    // decision, work, communication, constraint update; lock wait inside communication when any
    e.segments += 4 + (unit.record.locked > unit.record.end ? 1 : 0);
  }
  e.segments += trace.chores.size();  // a region (slice) each, inside a decision or idle span
  for (const trace::ConstraintRecord& c : trace.constraints) {
    if (!core_of.count(c.from) || !core_of.count(c.to)) continue;
    ++e.constraints;
    e.cross_core += core_of[c.from] != core_of[c.to];
  }
  e.counters = trace.counters.size();
  return e;
}

// A trace with everything an exporter maps: the known rendezvous run (known_traces.h) with a lock
// wait in u4, two counters, a VP definition, an application phase inside u2's work, a VP shell
// made in core 0's idle and a wake-up in u4's decision.
std::string write_full_trace(const std::string& path) {
  test_support::TraceBuilder b(2, {"PAPI_TOT_INS", "PAPI_L2_TCM"});
  b.site(1, "known.cpp", 10, "main");
  b.vp(1, "main \"seed\"", 0, 1);
  b.vp(2, "worker", 1, 1);
  b.unit(0, 1, 1, 0, 10, 110, 120, 1, 1, {1000, 10});
  b.constraint(0, 1, 1, 3, 115);
  b.unit(0, 2, 1, 120, 130, 330, 340, 3, 1, {2000, 20});
  b.user_event(0, 1, "phase one", 2, 150, true);
  b.user_event(0, 1, "phase one", 2, 250, false);
  b.idle(0, 340, 450);
  b.chore(0, Chore::vp_shell, 340, 360);
  trace::UnitRecord u4{};
  u4.kind = static_cast<std::uint16_t>(trace::RecordKind::unit);
  u4.ended_by = 0;
  u4.site = 1;
  u4.unit = 4;
  u4.vp = 1;
  u4.assign = 450;
  u4.begin = 455;
  u4.end = 505;
  u4.locked = 508;
  u4.handler = 510;
  u4.handler_end = 520;
  const std::uint64_t u4_counters[] = {500, 5};
  b.unit(0, u4, u4_counters);
  b.lock_handoff(0, 1, 505, 508);
  b.chore(0, Chore::wake_up, 451, 454, 1);
  b.idle(1, 0, 120);
  b.unit(1, 3, 2, 120, 130, 430, 440, 2, 1, {3000, 30});
  b.constraint(1, 3, 2, 5, 435, 1);
  b.constraint(1, 2, 3, 4, 435, 1);
  b.unit(1, 5, 2, 440, 450, 460, 510, 0, 1, {100, 1});
  b.idle(1, 510, 520);
  b.write(path);
  return path;
}

// ---- OTF2 ------------------------------------------------------------------------------------

using test_support::command_output;

std::map<std::string, std::uint64_t> record_counts(const std::string& printed) {
  std::map<std::string, std::uint64_t> counts;
  std::istringstream lines(printed);
  for (std::string line; std::getline(lines, line);) {
    const std::string word = line.substr(0, line.find(' '));
    ++counts[word];
  }
  return counts;
}

void check_otf2(const std::string& trace_path, const std::string& name) {
  const trace::Trace trace = trace::read_trace(trace_path);
  const Expected e = expected_of(trace);
  const std::string out = scratch("otf2_" + name);
  fs::remove_all(out);
  const visualize::ExportCounts counts = visualize::export_otf2(trace, out);
  EXPECT_EQ(counts.units, e.units);
  EXPECT_EQ(counts.arcs, e.cross_core);
  const auto records = record_counts(command_output(std::string(OTF2_PRINT) + " " + out + "/traces.otf2"));
  EXPECT_EQ(records.count("ENTER") ? records.at("ENTER") : 0, e.segments) << name;
  EXPECT_EQ(records.count("LEAVE") ? records.at("LEAVE") : 0, e.segments) << name;
  EXPECT_EQ(records.count("MPI_SEND") ? records.at("MPI_SEND") : 0, e.cross_core) << name;
  EXPECT_EQ(records.count("MPI_RECV") ? records.at("MPI_RECV") : 0, e.cross_core) << name;
  EXPECT_EQ(records.count("METRIC") ? records.at("METRIC") : 0, e.counters ? 2 * e.units : 0) << name;
  // The definitions: a location per core, regions named by construct and call site.
  const std::string defs = command_output(std::string(OTF2_PRINT) + " -G " + out + "/traces.otf2");
  for (std::uint32_t core = 0; core < trace.core_count; ++core) {
    EXPECT_NE(defs.find("\"core " + std::to_string(core) + "\""), std::string::npos) << name;
  }
  fs::remove_all(out);
}

TEST(ExportOtf2, KnownTraceCountsMatchWhatOtf2PrintReads) {
  const std::string path = write_full_trace(scratch("full") + ".mtrace");
  check_otf2(path, "full");
  const trace::Trace trace = trace::read_trace(path);
  const std::string out = scratch("otf2_defs");
  fs::remove_all(out);
  visualize::export_otf2(trace, out);
  const std::string defs = command_output(std::string(OTF2_PRINT) + " -G " + out + "/traces.otf2");
  EXPECT_NE(defs.find("\"work: send_from_to at known.cpp:10\""), std::string::npos) << defs;
  EXPECT_NE(defs.find("\"lock wait: end_vp at known.cpp:10\""), std::string::npos) << defs;
  EXPECT_NE(defs.find("\"PAPI_TOT_INS\""), std::string::npos);
  // Timer in nanoseconds: the 1 GHz test clock's ticks are nanoseconds, the run 520 long.
  EXPECT_NE(defs.find("1000000000"), std::string::npos);
  const std::string markers = command_output("otf2-marker " + out + "/traces.otf2");
  EXPECT_NE(markers.find("begin phase one"), std::string::npos) << markers;
  EXPECT_NE(markers.find("end phase one"), std::string::npos) << markers;
  fs::remove_all(out);
  std::remove(path.c_str());
}

TEST(ExportOtf2, RecordedRunsCountsMatchWhatOtf2PrintReads) {
  check_otf2(corpus("ping_pong.mtrace"), "ping_pong");
  check_otf2(corpus("singleton_counters.mtrace"), "singleton_counters");
  check_otf2(corpus("deadlock.mtrace"), "deadlock");
  check_otf2(corpus("chores_real2.mtrace"), "chores_real2");  // wake-ups and VP shells (format 3.2)
}

TEST(ExportOtf2, AnEmptyDirectoryIsReplacedByTheArchive) {
  const trace::Trace trace = trace::read_trace(corpus("ping_pong.mtrace"));
  const std::string out = scratch("otf2_empty_dir");
  fs::remove_all(out);
  fs::create_directories(out);
  visualize::export_otf2(trace, out);
  EXPECT_TRUE(fs::exists(out + "/traces.otf2"));
  fs::remove_all(out);
}

TEST(ExportOtf2, RefusesADirectoryWithFiles) {
  const trace::Trace trace = trace::read_trace(corpus("ping_pong.mtrace"));
  const std::string out = scratch("otf2_full_dir");
  fs::create_directories(out);
  std::ofstream(out + "/old.txt") << "x";
  EXPECT_THROW(visualize::export_otf2(trace, out), visualize::ExportError);
  fs::remove_all(out);
}

// ---- Perfetto --------------------------------------------------------------------------------

std::int64_t ns_of(const nlohmann::json& value) { return std::llround(value.get<double>() * 1000); }

// check_perfetto parses the JSON and checks its shape: slices nest per track, times never go back
// per track, every flow's start and end are bound to unit slices as Chrome DevTools binds them
// (the slice with the same ts, pid, tid and cat; the Trace Event Format's enclosing slice, "bp":"e"
// for the end), and the counts match the trace.
void check_perfetto(const std::string& trace_path, const std::string& name) {
  const trace::Trace trace = trace::read_trace(trace_path);
  const Expected e = expected_of(trace);
  const std::string out = scratch("perfetto_" + name) + ".json";
  const visualize::ExportCounts counts = visualize::export_perfetto(trace, out);
  std::ifstream file(out);
  const nlohmann::json json = nlohmann::json::parse(file);  // throws on malformed JSON
  ASSERT_TRUE(json.contains("traceEvents")) << name;
  using Track = std::pair<std::int64_t, std::string>;  // pid, tid (or counter name)
  std::map<Track, std::int64_t> last;
  std::map<Track, std::vector<std::int64_t>> open;  // ends of the slices enclosing the current time
  using Binding = std::tuple<std::int64_t, std::int64_t, std::int64_t, std::string>;  // ts, pid, tid, cat
  std::set<Binding> unit_starts;
  struct Flow { int starts = 0, ends = 0; std::int64_t start_tid = -1, end_tid = -1; };
  std::map<std::int64_t, Flow> flows;
  std::vector<std::pair<Binding, std::string>> flow_bindings;
  std::uint64_t unit_slices = 0, vp_slices = 0, instants = 0, counter_events = 0;
  for (const nlohmann::json& event : json["traceEvents"]) {
    const std::string phase = event.at("ph");
    if (phase == "M") continue;
    const std::int64_t ts = ns_of(event.at("ts"));
    const std::int64_t pid = event.at("pid").get<std::int64_t>();
    if (phase == "s" || phase == "f") {  // written after the slices, each start before its end
      const std::int64_t tid = event.at("tid").get<std::int64_t>();
      flow_bindings.push_back({{ts, pid, tid, event.at("cat")}, event.dump()});
      Flow& flow = flows[event.at("id").get<std::int64_t>()];
      if (phase == "s") {
        EXPECT_EQ(flow.ends, 0) << name << ": a flow's end before its start: " << event.dump();
      }
      (phase == "s" ? flow.starts : flow.ends) += 1;
      (phase == "s" ? flow.start_tid : flow.end_tid) = tid;
      if (phase == "f") {
        EXPECT_EQ(event.value("bp", ""), "e") << name << ": a flow end binds to its enclosing slice";
      }
      continue;
    }
    const Track track{pid, phase == "C" ? event.at("name").get<std::string>() : std::to_string(event.at("tid").get<std::int64_t>())};
    EXPECT_GE(ts, last[track]) << name << ": time goes back on track " << track.second << " at " << event.dump();
    last[track] = ts;
    auto& stack = open[track];
    if (phase == "X") {
      const std::int64_t end = ts + ns_of(event.at("dur"));
      while (!stack.empty() && stack.back() <= ts) stack.pop_back();
      EXPECT_TRUE(stack.empty() || end <= stack.back()) << name << ": slice does not nest: " << event.dump();
      stack.push_back(end);
      if (event.value("cat", "") == "unit") {
        ++unit_slices;
        EXPECT_TRUE(unit_starts.insert({ts, pid, event.at("tid").get<std::int64_t>(), "unit"}).second)
            << name << ": two unit slices share a flow binding: " << event.dump();
      }
      if (event.at("pid") == 2) ++vp_slices;
    } else if (phase == "i") {
      ++instants;
    } else if (phase == "C") {
      ++counter_events;
    }
  }
  for (const auto& [binding, text] : flow_bindings) EXPECT_TRUE(unit_starts.count(binding)) << name << ": flow event bound to no unit slice: " << text;
  std::uint64_t cross = 0;
  for (const auto& [id, flow] : flows) {
    EXPECT_EQ(flow.starts, 1) << name << ": flow " << id;
    EXPECT_EQ(flow.ends, 1) << name << ": flow " << id;
    cross += flow.start_tid != flow.end_tid;
  }
  EXPECT_EQ(unit_slices, e.units) << name;
  EXPECT_EQ(vp_slices, e.units) << name;
  EXPECT_EQ(flows.size(), e.constraints) << name;
  EXPECT_EQ(counts.arcs, e.constraints) << name;
  EXPECT_EQ(cross, e.cross_core) << name;
  EXPECT_EQ(counts.cross_core, e.cross_core) << name;
  EXPECT_EQ(instants, trace.user_events.size()) << name;
  EXPECT_EQ(counter_events, e.counters ? 2 * e.units : 0) << name;
  std::remove(out.c_str());
}

TEST(ExportPerfetto, KnownTraceIsWellFormedWithAFlowPerConstraint) {
  const std::string path = write_full_trace(scratch("full_p") + ".mtrace");
  check_perfetto(path, "full");
  // The args of u4: its unit, VP, call sites and counter deltas; the VP name escaped.
  const trace::Trace trace = trace::read_trace(path);
  const std::string out = scratch("perfetto_args") + ".json";
  visualize::export_perfetto(trace, out);
  std::ifstream file(out);
  const nlohmann::json json = nlohmann::json::parse(file);
  bool found = false;
  for (const nlohmann::json& event : json["traceEvents"]) {
    if (event["ph"] != "X" || event.value("cat", "") != "unit" || event["args"]["unit"] != 4) continue;
    found = true;
    EXPECT_EQ(event["name"], "main \"seed\" #1");
    EXPECT_EQ(event["args"]["vp"], 1);
    EXPECT_EQ(event["args"]["ended_by"], "end_vp at known.cpp:10");
    EXPECT_EQ(event["args"]["began_by"], "receive_from_to at known.cpp:10");
    EXPECT_EQ(event["args"]["counters"]["PAPI_TOT_INS"], 500);
    EXPECT_DOUBLE_EQ(event["ts"].get<double>(), 0.450);  // 450 ticks of a 1 GHz clock, in us
    EXPECT_DOUBLE_EQ(event["dur"].get<double>(), 0.070);
  }
  EXPECT_TRUE(found);
  std::remove(out.c_str());
  std::remove(path.c_str());
}

// The recorded runs both Perfetto exports are checked on (tests/fuzz/corpus/trace_reader/NAME.mtrace).
constexpr const char* kPerfettoRecordedRuns[] = {"ping_pong", "singleton_counters", "deadlock", "cut", "chores_real2"};

TEST(ExportPerfetto, RecordedRunsAreWellFormed) {
  for (const char* run : kPerfettoRecordedRuns) check_perfetto(corpus(std::string(run) + ".mtrace"), run);
}

TEST(ExportPerfetto, UnwritableOutputIsAnExportError) {
  const trace::Trace trace = trace::read_trace(corpus("ping_pong.mtrace"));
  EXPECT_THROW(visualize::export_perfetto(trace, "/nonexistent/dir/x.json"), visualize::ExportError);
  EXPECT_THROW(visualize::export_perfetto_proto(trace, "/nonexistent/dir/x.pftrace"), visualize::ExportError);
}

// ---- Perfetto protobuf -------------------------------------------------------------------------

std::string file_bytes(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
}

// check_perfetto_proto reads the protobuf export back with the strict reader
// (support/perfetto_trace_reader.h) and checks it against the trace: no error the trace processor
// would meet, a unit slice per unit on its core's track, every life-line segment and chore, a flow
// per constraint from the freeing unit's slice to the freed unit's work slice (binds_units), the user
// events, two counter values per unit and counter.
test_support::PerfettoTrace check_perfetto_proto(const trace::Trace& trace, const std::string& name) {
  const Expected e = expected_of(trace);
  const std::string out = scratch("perfetto_proto_" + name) + ".pftrace";
  const visualize::ExportCounts counts = visualize::export_perfetto_proto(trace, out);
  const std::string bytes = file_bytes(out);
  std::remove(out.c_str());
  EXPECT_EQ(counts.bytes, bytes.size()) << name;
  test_support::PerfettoTrace read = test_support::read_perfetto_trace(bytes);
  for (const std::string& error : read.errors) ADD_FAILURE() << name << ": " << error;
  std::map<std::uint64_t, std::uint32_t> core_of_track;
  for (std::uint32_t core = 0; core < trace.core_count; ++core) {
    for (const auto& [uuid, track] : read.tracks) {
      if (track == "core " + std::to_string(core) && !read.counter_tracks[uuid]) core_of_track[uuid] = core;
    }
  }
  EXPECT_EQ(core_of_track.size(), trace.core_count) << name << ": a track per core";
  const std::set<std::string> segments = {"decision to animate", "work", "communication", "lock wait", "constraint update", "wake-up", "VP shell"};
  std::uint64_t units = 0, segment_slices = 0, idle = 0;
  std::set<std::string> unit_ids;
  for (const test_support::PerfettoSlice& slice : read.slices) {
    EXPECT_TRUE(core_of_track.count(slice.track)) << name << ": slice " << slice.name << " off the core tracks";
    EXPECT_GE(slice.end, slice.begin) << name << ": " << slice.name;
    if (slice.category == "unit") {
      ++units;
      EXPECT_EQ(slice.depth, 0u) << name;
      EXPECT_TRUE(unit_ids.insert(slice.args.count("unit") ? slice.args.at("unit") : "").second) << name << ": unit args";
    }
    segment_slices += segments.count(slice.name);
    idle += slice.name == "idle";
  }
  EXPECT_EQ(units, e.units) << name;
  EXPECT_EQ(counts.units, e.units) << name;
  EXPECT_EQ(segment_slices, e.segments) << name;
  EXPECT_EQ(idle, trace.idle.size()) << name;
  std::uint64_t cross = 0;
  for (const auto& [id, flow] : read.flows) {
    if (flow.from == SIZE_MAX || flow.to == SIZE_MAX) continue;  // an error above already
    const test_support::PerfettoSlice &from = read.slices[flow.from], &to = read.slices[flow.to];
    EXPECT_TRUE(test_support::binds_units(read, flow)) << name << ": flow " << id << " from " << from.name << " to " << to.name;
    EXPECT_LT(from.begin, to.begin) << name << ": flow " << id << ": the freeing unit's slice begins before the freed unit's work";
    cross += from.track != to.track;
  }
  EXPECT_EQ(read.flows.size(), e.constraints) << name;
  EXPECT_EQ(counts.arcs, e.constraints) << name;
  EXPECT_EQ(cross, e.cross_core) << name;
  EXPECT_EQ(counts.cross_core, e.cross_core) << name;
  std::uint64_t user_events = 0;
  for (const test_support::PerfettoInstant& instant : read.instants) user_events += instant.args.count("phase");
  EXPECT_EQ(user_events, trace.user_events.size()) << name;
  std::uint64_t counter_values = 0;
  for (const auto& [track, values] : read.counter_values) counter_values += values.size();
  EXPECT_EQ(counter_values, 2 * e.units * e.counters) << name;
  return read;
}

TEST(ExportPerfettoProto, KnownTraceReadsBackWhole) {
  const std::string path = write_full_trace(scratch("full_pp") + ".mtrace");
  const test_support::PerfettoTrace read = check_perfetto_proto(trace::read_trace(path), "full");
  std::remove(path.c_str());
  // u4 on core 0: its slice from 450 to 520 ns (1 GHz), named by its VP, with its details; its
  // lock wait nested in its communication; the wake-up in its decision; the freeing u3's flow.
  const test_support::PerfettoSlice* u4 = nullptr;
  for (const test_support::PerfettoSlice& slice : read.slices) {
    if (slice.category == "unit" && slice.args.count("unit") && slice.args.at("unit") == "4") u4 = &slice;
  }
  ASSERT_NE(u4, nullptr);
  EXPECT_EQ(u4->name, "main \"seed\" #1");
  EXPECT_EQ(u4->begin, 450);
  EXPECT_EQ(u4->end, 520);
  EXPECT_EQ(u4->args.at("ended_by"), "end_vp at known.cpp:10");
  std::map<std::string, std::pair<std::int64_t, std::int64_t>> inside;  // name -> {begin, end} within u4
  for (const test_support::PerfettoSlice& slice : read.slices) {
    if (slice.track == u4->track && slice.depth > 0 && slice.begin >= u4->begin && slice.end <= u4->end) inside[slice.name] = {slice.begin, slice.end};
  }
  EXPECT_EQ(inside["decision to animate"], std::make_pair(std::int64_t{450}, std::int64_t{455}));
  EXPECT_EQ(inside["wake-up"], std::make_pair(std::int64_t{451}, std::int64_t{454}));
  EXPECT_EQ(inside["work"], std::make_pair(std::int64_t{455}, std::int64_t{505}));
  EXPECT_EQ(inside["lock wait"], std::make_pair(std::int64_t{505}, std::int64_t{508}));
  EXPECT_EQ(inside["communication"], std::make_pair(std::int64_t{505}, std::int64_t{510}));
  EXPECT_EQ(inside["constraint update"], std::make_pair(std::int64_t{510}, std::int64_t{520}));
  bool freed_by_u3 = false;
  for (const auto& [id, flow] : read.flows) {
    freed_by_u3 |= read.slices[flow.to].parent != SIZE_MAX && &read.slices[read.slices[flow.to].parent] == u4 &&
                   read.slices[flow.from].args.at("unit") == "3";
  }
  EXPECT_TRUE(freed_by_u3);
  // u4's counter deltas at its work's start, back to 0 at its end.
  std::vector<std::int64_t> instructions;
  for (const auto& [uuid, name] : read.tracks) {
    if (name == "core 0 PAPI_TOT_INS") instructions = read.counter_values.at(uuid);
  }
  ASSERT_EQ(instructions.size(), 6u);  // three units on core 0
  EXPECT_EQ(instructions[4], 500);
  EXPECT_EQ(instructions[5], 0);
  // The application phase inside u2's work.
  std::vector<std::string> phases;
  for (const test_support::PerfettoInstant& instant : read.instants) {
    if (instant.args.count("phase")) phases.push_back(instant.name + " " + instant.args.at("phase") + " " + std::to_string(instant.time));
  }
  EXPECT_EQ(phases, (std::vector<std::string>{"phase one begin 150", "phase one end 250"}));
}

TEST(ExportPerfettoProto, RecordedRunsReadBackWhole) {
  for (const char* run : kPerfettoRecordedRuns) check_perfetto_proto(trace::read_trace(corpus(std::string(run) + ".mtrace")), run);
}

// A core that began its decision to animate while the freeing unit on the other core had not yet
// begun (it waited for the runtime lock meanwhile, as a loaded machine makes it): the flow still
// begins before it ends in the trace processor's time order, so it is kept, not dropped.
TEST(ExportPerfettoProto, FlowEndsOnWorkWhenTheDecisionBeganFirst) {
  test_support::TraceBuilder b(2, {});
  b.site(1, "known.cpp", 10, "main");
  b.vp(1, "freeing", 0, 1);
  b.vp(2, "freed", 1, 1);
  b.unit(0, 1, 1, 100, 105, 150, 160, 1, 1);  // decision from 100, work 105..150
  b.constraint(0, 1, 1, 2, 158);
  b.idle(1, 0, 50);
  b.unit(1, 2, 2, 50, 165, 200, 210, 0, 1);  // decision from 50, before unit 1's slice began
  const std::string path = scratch("decision_first_pp") + ".mtrace";
  b.write(path);
  const trace::Trace trace = trace::read_trace(path);
  std::remove(path.c_str());
  const test_support::PerfettoTrace read = check_perfetto_proto(trace, "decision_first");
  ASSERT_EQ(read.flows.size(), 1u);
  const test_support::PerfettoFlow& flow = read.flows.begin()->second;
  ASSERT_TRUE(test_support::binds_units(read, flow));
  EXPECT_EQ(read.slices[flow.from].args.at("unit"), "1");
  EXPECT_EQ(read.slices[read.slices[flow.to].parent].args.at("unit"), "2");
  EXPECT_EQ(read.slices[flow.to].begin, 165);
  EXPECT_EQ(read.slices[read.slices[flow.to].parent].begin, 50);
}

// A trace with no units is a trace with its tracks; a damaged one (a unit assigned before the
// previous one ended, a chore past its span) still a trace the trace processor reads whole: the
// sequence's clock is never set back, so no delta is negative and no slice ends before it began.
TEST(ExportPerfettoProto, EmptyAndOverlappingTracesStayReadable) {
  const std::string path = scratch("empty_pp") + ".mtrace";
  test_support::TraceBuilder(2).write(path);
  check_perfetto_proto(trace::read_trace(path), "empty");
  std::remove(path.c_str());
  trace::Trace damaged = trace::read_trace(write_full_trace(scratch("damaged_pp") + ".mtrace"));
  std::remove((scratch("damaged_pp") + ".mtrace").c_str());
  for (trace::Unit& unit : damaged.units) {
    if (unit.record.unit == 2) unit.record.assign = 50;  // u1 on core 0 runs to 120
  }
  for (trace::Trace::ChoreSpan& chore : damaged.chores) chore.record.end += 200;
  check_perfetto_proto(damaged, "damaged");
}

// ---- SQLite ----------------------------------------------------------------------------------

// query runs SQL and renders its rows as "a|b|c" lines, as the sqlite3 shell prints them.
std::string query(sqlite3* db, const std::string& sql) {
  sqlite3_stmt* statement = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &statement, nullptr), SQLITE_OK) << sqlite3_errmsg(db) << "\n" << sql;
  std::string rows;
  while (statement != nullptr && sqlite3_step(statement) == SQLITE_ROW) {
    for (int c = 0; c < sqlite3_column_count(statement); ++c) {
      const unsigned char* text = sqlite3_column_text(statement, c);
      rows += (c ? "|" : "") + std::string(text != nullptr ? reinterpret_cast<const char*>(text) : "");
    }
    rows += '\n';
  }
  sqlite3_finalize(statement);
  return rows;
}

// documented_queries are the ```sql blocks of docs/export.md that begin with "-- query".
std::vector<std::string> documented_queries() {
  std::ifstream file(std::string(MOIRAI_SOURCE_DIR) + "/docs/export.md");
  std::vector<std::string> queries;
  std::string line, block;
  bool inside = false;
  while (std::getline(file, line)) {
    if (!inside && line == "```sql") {
      inside = true;
      block.clear();
    } else if (inside && line == "```") {
      inside = false;
      if (block.starts_with("-- query")) queries.push_back(block);
    } else if (inside) {
      block += line + "\n";
    }
  }
  return queries;
}

struct Db {
  sqlite3* handle = nullptr;
  explicit Db(const std::string& path) { EXPECT_EQ(sqlite3_open_v2(path.c_str(), &handle, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK); }
  ~Db() { sqlite3_close(handle); }
};

TEST(ExportSqlite, TheFiveDocumentedQueriesGiveTheKnownAnswers) {
  const std::string trace_path = scratch("rendezvous") + ".mtrace";
  test_support::write_rendezvous_trace(trace_path);
  const trace::Trace trace = trace::read_trace(trace_path);
  const std::string out = scratch("sqlite") + ".db";
  visualize::export_sqlite(trace, out);
  Db db(out);
  const std::vector<std::string> queries = documented_queries();
  ASSERT_EQ(queries.size(), 5u);
  // The answers worked out by hand from the trace's comment in known_traces.h (1 GHz: ticks are ns).
  const std::vector<std::string> answers = {
      // 1: idle by the call site whose constraint ended it
      "create_vp|known.cpp:10|120|1\nsend_from_to|known.cpp:10|110|1\nnothing left to run (end of run)||10|1\n",
      // 2: the critical path u1 -> u3 -> u4
      "1|0|1|100\n3|1|2|300\n4|0|1|50\n",
      // 3: overhead by construct per core
      "0|create_vp|1|20\n0|end_vp|1|20\n0|receive_from_to|1|20\n1|end_vp|1|60\n1|send_from_to|1|20\n",
      // 4: cross-core constraints by construct, from the freeing call to the freed unit's start
      "create_vp|1|20.0\nreceive_from_to|1|120.0\nsend_from_to|1|25.0\n",
      // 5: each core's time as shares of the makespan (520)
      "0|3|67.3|11.5|21.2\n1|2|59.6|15.4|25.0\n",
  };
  for (std::size_t q = 0; q < queries.size(); ++q) EXPECT_EQ(query(db.handle, queries[q]), answers[q]) << queries[q];
  EXPECT_EQ(query(db.handle, "SELECT count(*) FROM units"), "5\n");
  EXPECT_EQ(query(db.handle, "SELECT count(*), sum(cross_core) FROM constraints WHERE resolved"), "3|3\n");
  EXPECT_EQ(query(db.handle, "SELECT value FROM metadata WHERE key = 'makespan_ns'"), "520\n");
  // Exported again over the old file: replaced, not appended to.
  visualize::export_sqlite(trace, out);
  Db again(out);
  EXPECT_EQ(query(again.handle, "SELECT count(*) FROM units"), "5\n");
  std::remove(out.c_str());
  std::remove(trace_path.c_str());
}

TEST(ExportSqlite, CountersUserEventsAndLockWaitOfTheFullTrace) {
  const std::string path = write_full_trace(scratch("full_s") + ".mtrace");
  const trace::Trace trace = trace::read_trace(path);
  const std::string out = scratch("sqlite_full") + ".db";
  visualize::export_sqlite(trace, out);
  Db db(out);
  EXPECT_EQ(query(db.handle, "SELECT c.name, sum(d.delta) FROM unit_counters d JOIN counters c USING (counter) GROUP BY c.name ORDER BY c.name"),
            "PAPI_L2_TCM|66\nPAPI_TOT_INS|6600\n");
  EXPECT_EQ(query(db.handle, "SELECT unit, lock_wait_ns, communication_ns FROM units WHERE lock_wait_ns > 0"), "4|3|2\n");
  EXPECT_EQ(query(db.handle, "SELECT name, phase, time_ns, unit FROM user_events ORDER BY time_ns"),
            "phase one|begin|150|2\nphase one|end|250|2\n");
  EXPECT_EQ(query(db.handle, "SELECT name, home_core FROM vps ORDER BY vp"), "main \"seed\"|0\nworker|1\n");
  EXPECT_EQ(query(db.handle, "SELECT count(*) FROM units WHERE began_by_site IS NULL"), "2\n");  // each VP's first unit
  EXPECT_EQ(query(db.handle, "SELECT core, chore, cores, begin_ns, end_ns FROM chores ORDER BY begin_ns"),
            "0|VP shell|1|340|360\n0|wake-up|1|451|454\n");
  // Taken out of core 0's decision (10 + 10 + 5 ticks, 3 of them the wake-up) and idle (110, 20 the shell).
  EXPECT_EQ(query(db.handle, "SELECT decision_ns, wake_up_ns, vp_shell_ns, idle_ns FROM cores WHERE core = 0"), "22|3|20|90\n");
  std::remove(out.c_str());
  std::remove(path.c_str());
}

// What the OS took from a unit's work span (trace::Unit::taken, from a trace's os_taken record)
// is its own column and arg, and left out of the work, as `moirai stats` counts it.
TEST(ExportSqliteAndPerfetto, WhatTheOsTookIsLeftOutOfWork) {
  const std::string path = write_full_trace(scratch("full_os") + ".mtrace");
  trace::Trace trace = trace::read_trace(path);
  for (trace::Unit& unit : trace.units) {
    if (unit.record.unit != 2) continue;  // u2 works [130, 330) on core 0
    unit.taken = 40;
    unit.switches = 2;
    unit.migrations = 1;
  }
  const std::string db_path = scratch("sqlite_os") + ".db";
  visualize::export_sqlite(trace, db_path);
  {
    Db db(db_path);
    EXPECT_EQ(query(db.handle, "SELECT unit, work_ns, os_taken_ns, switches, migrations FROM units WHERE os_taken_ns > 0"), "2|160|40|2|1\n");
    EXPECT_EQ(query(db.handle, "SELECT core, work_ns, os_taken_ns FROM cores ORDER BY core"), "0|310|40\n1|310|0\n");
    EXPECT_EQ(query(db.handle, "SELECT c.work_ns = sum(u.work_ns) FROM cores c JOIN units u USING (core) GROUP BY c.core"), "1\n1\n");
  }
  const std::string json_path = scratch("perfetto_os") + ".json";
  visualize::export_perfetto(trace, json_path);
  std::ifstream file(json_path);
  const nlohmann::json json = nlohmann::json::parse(file);
  std::uint64_t with_taken = 0;
  for (const nlohmann::json& event : json["traceEvents"]) {
    if (event["ph"] != "X" || event.value("cat", "") != "unit" || !event["args"].contains("os_taken_ns")) continue;
    ++with_taken;
    EXPECT_EQ(event["args"]["unit"], 2);
    EXPECT_EQ(event["args"]["os_taken_ns"], 40);
    EXPECT_EQ(event["args"]["switches"], 2);
    EXPECT_EQ(event["args"]["migrations"], 1);
  }
  EXPECT_EQ(with_taken, 1u);
  std::remove(db_path.c_str());
  std::remove(json_path.c_str());
  std::remove(path.c_str());
}

TEST(ExportSqlite, ADirectoryAsOutputIsAnExportError) {
  const trace::Trace trace = trace::read_trace(corpus("ping_pong.mtrace"));
  EXPECT_THROW(visualize::export_sqlite(trace, ::testing::TempDir()), visualize::ExportError);
  EXPECT_THROW(visualize::export_sqlite(trace, "/nonexistent/dir/x.db"), visualize::ExportError);
}

// The idle table holds every idle period the report counts: a core's time before its first record
// and after its last too (they were missing, so the table disagreed with idle_causes and the
// report). write_late_and_early_trace: core 0 idles [240, 300) with a VP shell [250, 260) in it,
// then records nothing until the run ends at 400; core 1 records nothing before 130.
TEST(ExportSqlite, TheIdleTableHoldsEveryIdlePeriodTheReportCounts) {
  const std::string path = scratch("idle_kinds") + ".mtrace";
  test_support::write_late_and_early_trace(path);
  const trace::Trace trace = trace::read_trace(path);
  const std::string out = scratch("sqlite_idle") + ".db";
  visualize::export_sqlite(trace, out);
  Db db(out);
  EXPECT_EQ(query(db.handle, "SELECT kind, core, begin_ns, end_ns, idle_ns, cause IS NULL FROM idle ORDER BY core, begin_ns"),
            "end of run|0|240|300|50|0\nend of run|0|300|400|100|0\nstart of run|1|0|130|130|1\n");
  // Per cause, the rows add up to idle_causes; per kind, to the report's lost time of that kind.
  EXPECT_EQ(query(db.handle, "SELECT count(*) FROM idle_causes c WHERE c.idle_ns != (SELECT sum(idle_ns) FROM idle i WHERE i.cause = c.cause)"), "0\n");
  const visualize::Report report = visualize::build_report(trace);
  std::string causes;
  for (const visualize::IdleCause& cause : report.idle_causes) causes += cause.construct + "|" + std::to_string(cause.ticks) + "\n";
  EXPECT_EQ(query(db.handle, "SELECT construct, idle_ns FROM idle_causes ORDER BY cause"), causes);  // 1 GHz: ticks are ns
  EXPECT_EQ(query(db.handle, "SELECT sum(idle_ns) FROM idle WHERE kind = 'start of run'"),
            std::to_string(report.lost.by_kind.at("start of the run")) + "\n");
  EXPECT_EQ(query(db.handle, "SELECT sum(idle_ns) FROM idle WHERE kind = 'end of run'"),
            std::to_string(report.lost.by_kind.at("nothing left to run (end of run)")) + "\n");
  // Each core's idle rows, segments and chores fill the makespan (no lock wait, no gap here).
  EXPECT_EQ(query(db.handle,
                  "SELECT c.core, c.work_ns + c.os_taken_ns + c.decision_ns + c.communication_ns + c.constraint_update_ns"
                  " + c.wake_up_ns + c.vp_shell_ns + (SELECT sum(idle_ns) FROM idle i WHERE i.core = c.core)"
                  " FROM cores c ORDER BY c.core"),
            "0|400\n1|400\n");
  std::remove(out.c_str());
  std::remove(path.c_str());
}

// ---- Outputs that never lie (output_file.h) ---------------------------------------------------

std::string contents(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(file), {});
}

// names_in lists a directory's entries (temporaries are hidden files: they must not stay).
std::set<std::string> names_in(const std::string& directory) {
  std::set<std::string> names;
  for (const auto& entry : fs::directory_iterator(directory)) names.insert(entry.path().filename().string());
  return names;
}

// fails_under_file_size_limit runs `write` in a child process whose files may not grow past 1 KiB
// (RLIMIT_FSIZE, SIGXFSZ ignored so a write fails with EFBIG instead of killing it); true when
// `write` threw an ExportError there. It works as root, which a read-only folder would not.
bool fails_under_file_size_limit(const std::function<void()>& write) {
  const pid_t child = ::fork();
  if (child == 0) {
    std::signal(SIGXFSZ, SIG_IGN);
    const rlimit limit{1024, 1024};
    ::setrlimit(RLIMIT_FSIZE, &limit);
    try {
      write();
    } catch (const visualize::ExportError&) {
      ::_exit(0);
    } catch (...) {
      ::_exit(2);
    }
    ::_exit(1);  // written whole: the limit did not bite
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

TEST(OutputFile, AnExistingFileIsLeftWholeWhenTheWriteFails) {
  const trace::Trace trace = trace::read_trace(corpus("chores_real2.mtrace"));
  const std::string directory = scratch("keep");
  fs::remove_all(directory);
  fs::create_directories(directory);
  const std::string old_text(4000, 'o');
  for (const std::string name : {"t.db", "t.json", "plain.txt"}) std::ofstream(directory + "/" + name) << old_text;
  const auto before = names_in(directory);
  EXPECT_TRUE(fails_under_file_size_limit([&] { visualize::export_sqlite(trace, directory + "/t.db"); }));
  EXPECT_TRUE(fails_under_file_size_limit([&] { visualize::export_perfetto(trace, directory + "/t.json"); }));
  EXPECT_TRUE(fails_under_file_size_limit([&] { visualize::write_output_file(directory + "/plain.txt", std::string(5000, 'n')); }));
  EXPECT_TRUE(fails_under_file_size_limit([&] { visualize::export_otf2(trace, directory + "/archive"); }));
  for (const std::string name : {"t.db", "t.json", "plain.txt"}) EXPECT_EQ(contents(directory + "/" + name), old_text) << name;
  EXPECT_EQ(names_in(directory), before) << "a temporary or a cut archive was left behind";
  // Written whole, the same outputs replace the old files.
  visualize::export_sqlite(trace, directory + "/t.db");
  visualize::write_output_file(directory + "/plain.txt", "new");
  EXPECT_EQ(contents(directory + "/plain.txt"), "new");
  EXPECT_EQ(contents(directory + "/t.db").substr(0, 15), "SQLite format 3");
  EXPECT_EQ(names_in(directory), before);
  fs::remove_all(directory);
}

TEST(OutputFile, ANewFileTakesTheUmasksModeAReplacedOneKeepsItsOwn) {
  const std::string path = scratch("mode") + ".txt";
  const mode_t old = ::umask(027);
  visualize::write_output_file(path, "x");
  ::umask(old);
  struct stat info {};
  ASSERT_EQ(::stat(path.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0640u);
  // A file replaced keeps its own mode.
  ::chmod(path.c_str(), 0600);
  visualize::write_output_file(path, "y");
  ASSERT_EQ(::stat(path.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u);
  std::remove(path.c_str());
}

// A device or a directory named as the output is refused before anything is written, and left
// as it was. The device is a node made here (a copy of /dev/full: char 1,7), so a regression
// cannot remove the machine's own.
TEST(OutputFile, ADeviceOrADirectoryAsTargetIsRefusedAndUntouched) {
  const trace::Trace trace = trace::read_trace(corpus("ping_pong.mtrace"));
  const std::string directory = scratch("devices");
  fs::remove_all(directory);
  fs::create_directories(directory + "/sub");
  std::ofstream(directory + "/sub/inside") << "x";
  std::vector<std::string> targets = {directory + "/sub", directory + "/fifo"};
  ASSERT_EQ(::mkfifo((directory + "/fifo").c_str(), 0666), 0);
  if (::mknod((directory + "/full").c_str(), S_IFCHR | 0666, ::makedev(1, 7)) == 0) targets.push_back(directory + "/full");
  for (const std::string& target : targets) {
    struct stat before {};
    ASSERT_EQ(::stat(target.c_str(), &before), 0);
    EXPECT_THROW(visualize::export_sqlite(trace, target), visualize::ExportError) << target;
    EXPECT_THROW(visualize::export_perfetto(trace, target), visualize::ExportError) << target;
    EXPECT_THROW(visualize::write_output_file(target, "x"), visualize::ExportError) << target;
    EXPECT_THROW(visualize::check_output_target(target), visualize::ExportError) << target;
    struct stat after {};
    ASSERT_EQ(::stat(target.c_str(), &after), 0) << target << " was removed";
    EXPECT_EQ(after.st_mode, before.st_mode) << target;
    EXPECT_EQ(after.st_ino, before.st_ino) << target << " was replaced";
    EXPECT_EQ(after.st_rdev, before.st_rdev) << target;
  }
  EXPECT_EQ(contents(directory + "/sub/inside"), "x");
  try {
    visualize::export_sqlite(trace, directory + "/fifo");
  } catch (const visualize::ExportError& error) {
    EXPECT_NE(std::string(error.what()).find("not a regular file"), std::string::npos) << error.what();
  }
  EXPECT_EQ(names_in(directory), (std::set<std::string>(targets.size() == 3 ? std::set<std::string>{"sub", "fifo", "full"}
                                                                            : std::set<std::string>{"sub", "fifo"})));
  fs::remove_all(directory);
}

TEST(OutputFile, AMissingFolderIsAnErrorNamingIt) {
  const trace::Trace trace = trace::read_trace(corpus("ping_pong.mtrace"));
  const std::string missing = scratch("missing_folder") + "/sub";
  for (const auto& write : std::vector<std::function<void()>>{
           [&] { visualize::export_sqlite(trace, missing + "/t.db"); },
           [&] { visualize::export_perfetto(trace, missing + "/t.json"); },
           [&] { visualize::export_otf2(trace, missing + "/archive"); },
           [&] { visualize::check_output_target(missing + "/t.db"); },
       }) {
    try {
      write();
      ADD_FAILURE() << "no error for an output in a missing folder";
    } catch (const visualize::ExportError& error) {
      EXPECT_NE(std::string(error.what()).find("does not exist"), std::string::npos) << error.what();
    }
  }
  EXPECT_FALSE(fs::exists(scratch("missing_folder")));
}

TEST(OutputFile, SameFileComparesDeviceAndInode) {
  const std::string path = scratch("same") + ".txt";
  std::ofstream(path) << "x";
  const std::string link = path + ".link";
  fs::remove(link);
  fs::create_symlink(path, link);
  EXPECT_TRUE(visualize::same_file(path, link));
  EXPECT_TRUE(visualize::same_file(path, fs::path(path).parent_path().string() + "/./" + fs::path(path).filename().string()));
  EXPECT_FALSE(visualize::same_file(path, corpus("ping_pong.mtrace")));
  EXPECT_FALSE(visualize::same_file(path, path + ".missing"));
  // Writing through the link replaces the file it names and keeps the link.
  visualize::write_output_file(link, "new");
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(contents(path), "new");
  std::remove(link.c_str());
  std::remove(path.c_str());
}

// ---- OTF2 of tiny, empty and sparse traces ----------------------------------------------------

TEST(ExportOtf2, ATraceWithNoRecordsIsAnArchiveOtf2PrintReads) {
  // Cut right after its header (no chunk, no core) and cut after its definitions (cores, no units).
  const std::string whole = contents(corpus("ping_pong.mtrace"));
  for (const std::size_t length : {std::size_t{16}, std::size_t{512}}) {
    const std::string path = scratch("cut_" + std::to_string(length)) + ".mtrace";
    std::ofstream(path, std::ios::binary) << whole.substr(0, length);
    const trace::Trace trace = trace::read_trace(path);
    ASSERT_TRUE(trace.units.empty());
    const std::string out = scratch("otf2_empty_" + std::to_string(length));
    fs::remove_all(out);
    visualize::export_otf2(trace, out);
    command_output(std::string(OTF2_PRINT) + " " + out + "/traces.otf2 2>&1");
    command_output(std::string(OTF2_PRINT) + " -G " + out + "/traces.otf2 2>&1");
    fs::remove_all(out);
    std::remove(path.c_str());
  }
}

TEST(ExportOtf2, ATraceClaimingManyCoresGetsALocationPerCoreWithEvents) {
  test_support::TraceBuilder b(65534);
  b.site(1, "many.cpp", 1, "main");
  b.unit(0, 1, 1, 0, 10, 110, 120, 1, 1);
  b.constraint(0, 1, 1, 2, 115);
  b.unit(65533, 2, 2, 130, 140, 240, 250, 0, 1);
  const std::string path = scratch("many_cores") + ".mtrace";
  b.write(path);
  const trace::Trace trace = trace::read_trace(path);
  const std::string out = scratch("otf2_many");
  fs::remove_all(out);
  const auto start = std::chrono::steady_clock::now();
  const visualize::ExportCounts counts = visualize::export_otf2(trace, out);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::uint64_t files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(out)) files += entry.is_regular_file();
  EXPECT_LE(files, 8u) << "anchor, definitions, markers and one event and definition file per core with events";
  EXPECT_LT(counts.bytes, 64u * 1024);
  EXPECT_EQ(counts.arcs, 1u);
  const std::string defs = command_output(std::string(OTF2_PRINT) + " -G " + out + "/traces.otf2");
  EXPECT_NE(defs.find("\"core 65533\""), std::string::npos);
  EXPECT_EQ(defs.find("\"core 1\""), std::string::npos);
  const auto records = record_counts(command_output(std::string(OTF2_PRINT) + " " + out + "/traces.otf2"));
  EXPECT_EQ(records.count("MPI_SEND") ? records.at("MPI_SEND") : 0, 1u);
  EXPECT_EQ(records.count("MPI_RECV") ? records.at("MPI_RECV") : 0, 1u);
  std::cout << "65,534 cores claimed, 2 used: " << files << " files, " << counts.bytes << " bytes, " << seconds << " s\n";
  fs::remove_all(out);
  std::remove(path.c_str());
}

// ---- What every export says of a trace's losses -------------------------------------------------

// A trace cut short and one the reader left parts out of: each export carries the same notes
// (where the trace ends, what was left out), the ones `moirai report` puts before its figures.
TEST(ExportIntegrity, EveryExportCarriesTheTracesDataLossNotes) {
  for (const char* run_name : {"cut", "overlapping_unit"}) {
    const trace::Trace trace = trace::read_trace(corpus(std::string(run_name) + ".mtrace"));
    std::map<std::string, std::string> notes;
    if (!trace.complete) notes["cut"] = trace.cut;
    if (!trace.integrity.sound()) notes["integrity"] = trace.integrity.summary();
    ASSERT_EQ(notes.size(), 1u) << run_name;
    const auto& [name, text] = *notes.begin();

    const std::string db_path = scratch(std::string("notes_") + run_name) + ".db";
    visualize::export_sqlite(trace, db_path);
    {
      Db db(db_path);
      EXPECT_EQ(query(db.handle, "SELECT value FROM metadata WHERE key = '" + name + "'"), text + "\n") << run_name;
    }
    std::remove(db_path.c_str());

    const std::string json_path = scratch(std::string("notes_") + run_name) + ".json";
    visualize::export_perfetto(trace, json_path);
    std::ifstream file(json_path);
    const nlohmann::json json = nlohmann::json::parse(file);
    EXPECT_EQ(json["otherData"].value(name, ""), text) << run_name;
    std::remove(json_path.c_str());

    const std::string proto_path = scratch(std::string("notes_") + run_name) + ".pftrace";
    visualize::export_perfetto_proto(trace, proto_path);
    std::ifstream proto_file(proto_path, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(proto_file)), std::istreambuf_iterator<char>());
    const test_support::PerfettoTrace perfetto = test_support::read_perfetto_trace(bytes);
    const auto metadata = std::find_if(perfetto.instants.begin(), perfetto.instants.end(),
                                       [](const test_support::PerfettoInstant& i) { return i.name == "trace metadata"; });
    ASSERT_NE(metadata, perfetto.instants.end()) << run_name;
    EXPECT_EQ(metadata->args.count(name) != 0 ? metadata->args.at(name) : "(none)", text) << run_name;
    std::remove(proto_path.c_str());

    const std::string otf2_path = scratch(std::string("notes_") + run_name);
    visualize::export_otf2(trace, otf2_path);
    const std::string anchor = command_output(std::string(OTF2_PRINT) + " -A " + otf2_path + "/traces.otf2");
    std::string property = "MOIRAI::" + name;
    for (char& c : property) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    EXPECT_NE(anchor.find(property), std::string::npos) << run_name << "\n" << anchor;
    fs::remove_all(otf2_path);
  }
}

}  // namespace

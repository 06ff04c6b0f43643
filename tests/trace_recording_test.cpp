// Recording a real SSR run and reading it back: the life-line segments tile each core, every
// unit and constraint is there, freeing precedes freed, PAPI software counters are real, and
// cut or corrupt files are answered as the format promises.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <source_location>
#include <string>
#include <thread>
#include <vector>

#include "moirai/instrument/trace_recorder.h"
#include "moirai/proto_runtime/sim_machine.h"
#include "moirai/ssr/ssr.h"
#include "support/fork_join.h"
#include "support/test_support.h"
#include "moirai/trace/builder.h"
#include "moirai/trace/reader.h"
#include "moirai/trace/ssr_constructs.h"

namespace {

using namespace moirai;
using test::kSimulatedCores;

inline const ssr::MessageType<int> kPartial{"partial"};
inline const ssr::MessageType<int> kWork{"work"};

// A small program that uses every construct: creation, send_from_to, send_of_type_to,
// send_of_type and a singleton. kWorkers workers; returns nothing, all checked via the trace.
constexpr int kWorkers = 6;
constexpr int kRounds = 5;

void program(ssr::Context& ctx) {
  static ssr::Singleton once{"table"};
  const ssr::VpRef main = ctx.self();
  for (int w = 0; w < kWorkers; ++w) {
    ctx.create_vp(
        [main](ssr::Context& me) {
          me.singleton(once, [] {});
          const int job = me.receive_of_type(kWork);
          me.send_of_type_to(kPartial, main, job * 2);
        },
        {.name = "worker", .core = static_cast<CoreId>(w % ctx.core_count())});
  }
  for (int w = 0; w < kWorkers; ++w) ctx.send_of_type(kWork, w);
  int sum = 0;
  for (int w = 0; w < kWorkers; ++w) sum += ctx.receive_of_type_to(kPartial);
  const ssr::VpRef echo = ctx.create_vp([main](ssr::Context& me) {
    for (int i = 0; i < kRounds; ++i) me.send_from_to(main, me.receive_from_to<int>(main) + 1);
  });
  for (int i = 0; i < kRounds; ++i) {
    ctx.send_from_to(echo, sum);
    sum = ctx.receive_from_to<int>(echo);
  }
}

std::string temp_path(const std::string& name) {
  return ::testing::TempDir() + "moirai_" + name + "_" + std::to_string(::getpid()) + ".mtrace";
}

struct Recorded {
  proto::RunStats stats;
  trace::Trace trace;
  std::vector<unsigned char> bytes;
};

Recorded record(std::size_t cores, std::vector<std::string> counters = {}) {
  const std::string path = temp_path("run" + std::to_string(cores));
  Recorded out;
  {
    instrument::TraceRecorder recorder({path, std::move(counters), "trace_recording_test", 4096});
    if (cores == kSimulatedCores) {
      proto::SimMachine machine(proto::SimConfig{.topology = {1, cores}});
      out.stats = ssr::run(machine, program, {.observer = &recorder});
    } else {
      out.stats = ssr::run(program, {.cores = cores, .observer = &recorder});
    }
    const instrument::RecorderStats written = recorder.finish();
    EXPECT_EQ(written.dropped, 0u);
  }
  out.trace = trace::read_trace(path);
  std::ifstream file(path, std::ios::binary);
  out.bytes.assign(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
  std::remove(path.c_str());
  return out;
}

class TraceRecording : public ::testing::TestWithParam<std::size_t> {};

TEST_P(TraceRecording, HoldsEveryUnitVpAndConstraint) {
  const Recorded run = record(GetParam());
  const trace::Trace& t = run.trace;
  ASSERT_TRUE(t.complete) << t.cut;
  EXPECT_EQ(t.core_count, GetParam());
  EXPECT_EQ(t.units.size(), run.stats.units_animated);
  EXPECT_EQ(t.vps.size(), run.stats.vps_created);
  EXPECT_EQ(t.end.dropped, 0u);
  std::map<std::string, int> by_kind;
  for (const trace::ConstraintRecord& c : t.constraints) ++by_kind[t.construct_name(c.construct)];
  EXPECT_EQ(by_kind["create_vp"], kWorkers + 1);
  EXPECT_EQ(by_kind["send_of_type"] + by_kind["receive_of_type"], 2 * kWorkers);
  EXPECT_EQ(by_kind["send_of_type_to"] + by_kind["receive_of_type_to"], 2 * kWorkers);
  EXPECT_EQ(by_kind["send_from_to"] + by_kind["receive_from_to"], 2 * 2 * kRounds);
  EXPECT_EQ(by_kind["singleton"], 1);  // the first predecessor enabled the block
  // Every worker passed the singleton: as a predecessor (source), and continued (sink).
  std::map<std::uint64_t, std::pair<int, int>> roles;
  for (const auto& member : t.group_members) {
    (member.record.role == kGroupSource ? roles[member.record.group].first
                                        : roles[member.record.group].second)++;
  }
  bool singleton_seen = false;
  for (const trace::Trace::Group& group : t.groups) {
    if (group.name == "singleton 'table'") {
      singleton_seen = true;
      EXPECT_EQ(roles[group.id].first, kWorkers);
      EXPECT_EQ(roles[group.id].second, kWorkers);
    }
  }
  EXPECT_TRUE(singleton_seen);
  // Every unit names a defined call site.
  for (const trace::Unit& unit : t.units) EXPECT_NE(t.site_name(unit.record.site), "?");
}

// The paper's SCG accounts for every cycle: per core, decision, work, communication, constraint
// update and idle follow each other without gap or overlap (adjacent segments share a reading).
TEST_P(TraceRecording, SegmentsTileEachCore) {
  const Recorded run = record(GetParam());
  std::map<std::uint32_t, std::vector<std::pair<std::uint64_t, std::uint64_t>>> spans;
  for (const trace::Unit& unit : run.trace.units) {
    spans[unit.core].push_back({unit.record.assign, unit.record.handler_end});
  }
  for (const trace::Span& idle : run.trace.idle) spans[idle.core].push_back({idle.begin, idle.end});
  ASSERT_FALSE(spans.empty());
  for (auto& [core, list] : spans) {
    std::sort(list.begin(), list.end());
    for (std::size_t i = 1; i < list.size(); ++i) {
      EXPECT_EQ(list[i].first, list[i - 1].second)
          << "core " << core << ": segment " << i << " does not start where the previous ended";
    }
  }
}

// Readings on different cores are comparable: a freeing action never follows the start of the
// unit it freed.
TEST_P(TraceRecording, FreeingPrecedesTheFreedUnit) {
  const Recorded run = record(GetParam());
  std::map<std::uint64_t, const trace::UnitRecord*> units;
  for (const trace::Unit& unit : run.trace.units) units[unit.record.unit] = &unit.record;
  ASSERT_FALSE(run.trace.constraints.empty());
  for (const trace::ConstraintRecord& c : run.trace.constraints) {
    ASSERT_TRUE(units.count(c.from)) << "constraint from unknown unit " << c.from;
    ASSERT_TRUE(units.count(c.to)) << "constraint to unknown unit " << c.to;
    EXPECT_LE(units[c.from]->end, units[c.to]->begin)
        << run.trace.construct_name(c.construct) << " from unit " << c.from << " to " << c.to;
    EXPECT_LE(c.time, units[c.to]->begin);
  }
}

// A chore (waking cores, making a VP shell) happens after the lock and before the core's next unit
// or inside its idle: it lies inside a decision or idle span of its core. Real cores make a shell
// after a creation; the simulated machine's waker pays nothing, so it records no chore.
TEST_P(TraceRecording, ChoresLieInsideADecisionOrIdleSpan) {
  const Recorded run = record(GetParam());
  const trace::Trace& t = run.trace;
  if (GetParam() == kSimulatedCores) {
    EXPECT_TRUE(t.chores.empty()) << t.chores.size() << " chores on a simulated machine";
    return;
  }
  std::size_t shells = 0;
  for (const trace::Trace::ChoreSpan& chore : t.chores) {
    const trace::ChoreRecord& c = chore.record;
    EXPECT_LT(c.begin, c.end) << "a chore of no time is not recorded";
    shells += c.chore == static_cast<std::uint16_t>(Chore::vp_shell);
    if (c.chore == static_cast<std::uint16_t>(Chore::wake_up)) {
      EXPECT_GE(c.cores, 1u);
      EXPECT_LE(c.cores, t.core_count);
    }
    const bool in_decision = std::any_of(t.units.begin(), t.units.end(), [&](const trace::Unit& u) {
      return u.core == chore.core && u.record.assign <= c.begin && c.end <= u.record.begin;
    });
    const bool in_idle = std::any_of(t.idle.begin(), t.idle.end(), [&](const trace::Span& idle) {
      return idle.core == chore.core && idle.begin <= c.begin && c.end <= idle.end;
    });
    EXPECT_TRUE(in_decision || in_idle) << chore_name(static_cast<Chore>(c.chore)) << " chore on core " << chore.core
                                        << " at [" << c.begin << ", " << c.end << ") lies in no decision or idle span";
  }
  EXPECT_GE(shells, 1u) << "the main VP's creations made no VP shell after the lock";
}

INSTANTIATE_TEST_SUITE_P(CoreCounts, TraceRecording, ::testing::Values(std::size_t{1}, std::size_t{2}, kSimulatedCores),
                         ::moirai::test::core_count_name);

// Named application phases land in the unit that marked them, at times inside its work.
TEST(TraceUserEvents, PhasesLandInTheirUnit) {
  const std::string path = temp_path("phases");
  {
    instrument::TraceRecorder recorder({path, {}, "phases", 4096});
    ssr::run(
        [](ssr::Context& ctx) {
          ctx.phase_begin("load");
          volatile int sink = 0;
          for (int i = 0; i < 1000; ++i) sink = sink + i;
          ctx.phase_end("load");
        },
        {.cores = 1, .observer = &recorder});
  }
  const trace::Trace t = trace::read_trace(path);
  std::remove(path.c_str());
  ASSERT_EQ(t.user_events.size(), 2u);
  const trace::UserEventRecord& begin = t.user_events[0].record;
  const trace::UserEventRecord& end = t.user_events[1].record;
  EXPECT_EQ(begin.phase, 1);
  EXPECT_EQ(end.phase, 2);
  EXPECT_EQ(t.user_event_names.at(begin.name), "load");
  EXPECT_EQ(begin.name, end.name);
  EXPECT_EQ(begin.unit, end.unit);
  const auto unit = std::find_if(t.units.begin(), t.units.end(),
                                 [&](const trace::Unit& u) { return u.record.unit == begin.unit; });
  ASSERT_NE(unit, t.units.end());
  EXPECT_LE(unit->record.begin, begin.time);
  EXPECT_LE(begin.time, end.time);
  EXPECT_LE(end.time, unit->record.end);
}

// Pausing takes effect at unit boundaries: the units recorded are whole, the span not recorded
// is marked on each core, and recorded and paused spans still tile every core.
TEST(TracePause, TakesEffectAtUnitBoundaries) {
  const std::string path = temp_path("pause");
  proto::RunStats stats;
  {
    instrument::TraceRecorder recorder({path, {}, "pause", 4096});
    instrument::TraceRecorder* handle = &recorder;
    stats = ssr::run(
        [handle](ssr::Context& ctx) {
          const ssr::VpRef main = ctx.self();
          const ssr::VpRef echo = ctx.create_vp([main](ssr::Context& me) {
            for (int i = 0; i < 30; ++i) me.send_from_to(main, me.receive_from_to<int>(main));
          });
          for (int i = 0; i < 30; ++i) {
            if (i == 10) handle->pause();
            if (i == 20) handle->resume();
            ctx.send_from_to(echo, i);
            EXPECT_EQ(ctx.receive_from_to<int>(echo), i);
          }
        },
        {.cores = 2, .observer = &recorder});
  }
  const trace::Trace t = trace::read_trace(path);
  std::remove(path.c_str());
  ASSERT_TRUE(t.complete) << t.cut;
  EXPECT_LT(t.units.size(), stats.units_animated);
  EXPECT_GT(t.units.size(), stats.units_animated / 3);
  ASSERT_FALSE(t.paused.empty());
  std::map<std::uint32_t, std::vector<std::pair<std::uint64_t, std::uint64_t>>> spans;
  for (const trace::Unit& unit : t.units) spans[unit.core].push_back({unit.record.assign, unit.record.handler_end});
  for (const trace::Span& idle : t.idle) spans[idle.core].push_back({idle.begin, idle.end});
  for (const trace::Span& gap : t.paused) spans[gap.core].push_back({gap.begin, gap.end});
  for (auto& [core, list] : spans) {
    std::sort(list.begin(), list.end());
    for (std::size_t i = 1; i < list.size(); ++i) {
      EXPECT_EQ(list[i].first, list[i - 1].second) << "core " << core << ", segment " << i;
    }
  }
}

// Runtime-internal causality: when a core waited for the runtime lock, the trace names the core
// whose release let it in. Senders and receivers on both cores keep both taking the lock.
TEST(TraceLockHandoff, NamesTheReleasingCore) {
  // Contention needs both cores running at once, which another busy process on the machine can
  // prevent for a whole run; so up to 5 runs may be tried, and every record must be right.
  std::size_t handoffs = 0;
  for (int attempt = 0; attempt < 5 && handoffs == 0; ++attempt) {
    const std::string path = temp_path("handoff" + std::to_string(attempt));
    {
      instrument::TraceRecorder recorder({path, {}, "handoff", 64 * 1024});
      ssr::run(
          [](ssr::Context& ctx) {
            for (CoreId core = 0; core < 2; ++core) {
              ctx.create_vp([](ssr::Context& me) { for (int i = 0; i < 3000; ++i) me.send_of_type(kWork, i); },
                            {.name = "sender", .core = core});
              ctx.create_vp([](ssr::Context& me) { for (int i = 0; i < 3000; ++i) me.receive_of_type(kWork); },
                            {.name = "receiver", .core = static_cast<CoreId>(1 - core)});
            }
          },
          {.cores = 2, .observer = &recorder});
    }
    const trace::Trace t = trace::read_trace(path);
    std::remove(path.c_str());
    for (const trace::Trace::LockHandoff& handoff : t.lock_handoffs) {
      EXPECT_NE(handoff.record.from, handoff.core) << "a core cannot wait for its own release";
      EXPECT_LE(handoff.record.waited, handoff.record.acquired);
    }
    handoffs = t.lock_handoffs.size();
  }
  EXPECT_GT(handoffs, 0u) << "5 runs of 12,000 cross-core constructs never contended for the lock";
}

// A run that is killed leaves every complete chunk readable; the reader says where it was cut.
TEST(TraceReader, ReadsACutTraceUpToTheCut) {
  const Recorded run = record(2);
  std::mt19937 random(7);
  std::uniform_int_distribution<std::size_t> offset(sizeof(trace::FileHeader), run.bytes.size() - 1);
  for (int i = 0; i < 10; ++i) {
    const std::size_t cut = offset(random);
    const trace::Trace partial = trace::parse_trace(run.bytes.data(), cut);
    EXPECT_FALSE(partial.complete) << "cut at " << cut;
    EXPECT_NE(partial.cut.find("trace cut at byte"), std::string::npos) << partial.cut;
    EXPECT_EQ(partial.cut.rfind("partial trace, ends at ", 0), 0u) << partial.cut;
    EXPECT_LE(partial.latest, run.trace.latest);
    EXPECT_LE(partial.units.size(), run.trace.units.size());
  }
}

TEST(TraceReader, RejectsCorruptFilesWithOffsetAndReason) {
  const Recorded run = record(1);
  auto expect_error = [](std::vector<unsigned char> bytes, const std::string& reason) {
    try {
      trace::parse_trace(bytes.data(), bytes.size());
      ADD_FAILURE() << "accepted a file with " << reason;
    } catch (const trace::TraceError& error) {
      EXPECT_NE(std::string(error.what()).find(reason), std::string::npos) << error.what();
      EXPECT_NE(std::string(error.what()).find("at byte "), std::string::npos) << error.what();
    }
  };
  std::vector<unsigned char> bad_magic = run.bytes;
  bad_magic[0] = 'X';
  expect_error(bad_magic, "wrong magic");
  std::vector<unsigned char> future = run.bytes;
  future[8] = 9;
  expect_error(future, "not supported");
  std::vector<unsigned char> flipped = run.bytes;
  flipped[run.bytes.size() / 2] ^= 0x5A;
  expect_error(flipped, "checksum");
  expect_error(std::vector<unsigned char>(run.bytes.begin(), run.bytes.begin() + 5), "too short");
}

// --- Flush by time: the writer writes what a core appended without the core's help ---------

void whole_unit(instrument::TraceRecorder& recorder, CoreId core, VpId vp, UnitId unit) {
  static constexpr CallSite kSite{"trace_recording_test.cpp", 1, "whole_unit"};
  recorder.unit_begin(core, vp, unit);
  recorder.unit_end(core, vp, unit, 1, kSite);
  recorder.handler_enter(core, 1, unit);
  recorder.handler_exit(core, 1, unit);
}

// os_taken_records counts the os_taken records a real-core trace holds: one follows each unit
// the OS took time from (or moved), so a count of records must add them.
std::size_t os_taken_records(const trace::Trace& t) {
  return static_cast<std::size_t>(std::count_if(t.units.begin(), t.units.end(), [](const trace::Unit& unit) {
    return unit.taken > 0 || unit.migrations > 0;
  }));
}

// A front-end that learns at a unit's start that the idle before it was the runtime handing
// over queued work ends it with dispatch_end: no idle span, and the unit's decision to animate
// begins where the idle began. An idle ended by idle_end stays an idle span.
TEST(TraceRecorderDispatch, AnIdleThatWasAHandOverBecomesTheNextUnitsDecision) {
  const std::string path = temp_path("dispatch");
  instrument::TraceRecorder recorder(instrument::RecorderOptions{path, {}, "dispatch test", 4096});
  recorder.run_start({"test", {{"end VP", ConstructRole::end, ""}, {"step", ConstructRole::other, ""}}, {}}, 1);
  recorder.core_start(0);
  recorder.vp_created(0, 1, "worker", {"trace_recording_test.cpp", 2, "test"}, 0);
  whole_unit(recorder, 0, 1, 1);
  recorder.idle_begin(0);
  recorder.idle_end(0);  // a wait: kept
  whole_unit(recorder, 0, 1, 2);
  recorder.idle_begin(0);
  recorder.dispatch_end(0);  // a hand-over: the next unit's decision
  whole_unit(recorder, 0, 1, 3);
  recorder.core_stop(0);
  recorder.finish();
  const trace::Trace t = trace::read_trace(path);
  std::remove(path.c_str());
  ASSERT_TRUE(t.complete) << t.cut;
  ASSERT_EQ(t.units.size(), 3u);
  ASSERT_EQ(t.idle.size(), 1u);
  EXPECT_GE(t.idle[0].begin, t.units[0].record.handler_end);
  EXPECT_LE(t.idle[0].end, t.units[1].record.assign);
  // Unit 3's decision began where unit 2's constraint update ended: the hand-over is in it.
  EXPECT_EQ(t.units[2].record.assign, t.units[1].record.handler_end);
  EXPECT_LE(t.units[2].record.assign, t.units[2].record.begin);
}

// StepClock is a clock the test sets before each instrumentation point (a simulated machine's,
// so the recorder measures no OS time).
class StepClock final : public TimeSource {
 public:
  std::uint64_t now(CoreId) const noexcept override { return time; }
  double hz() const noexcept override { return 1e9; }
  std::string source() const override { return "virtual"; }
  std::vector<std::pair<std::string, std::string>> header() const override { return {{"machine", "sim:1"}}; }
  std::uint64_t time = 1;
};

// A front-end's estimate of the runtime's work at a unit's start (runtime_work_estimated) moves
// the unit's begin on by it, never past its end, under an `estimated` chore: the unit's life-line
// keeps its span, and the closing chunk counts what was booked and clamped.
TEST(TraceRecorderEstimate, BooksTheEstimateOutOfTheUnitsWorkAtMostAllOfIt) {
  const std::string path = temp_path("estimate");
  StepClock clock;
  instrument::TraceRecorder recorder(instrument::RecorderOptions{path, {}, "estimate test", 4096});
  recorder.use_time_source(clock);
  recorder.run_start({"test", {{"end VP", ConstructRole::end, ""}, {"step", ConstructRole::other, ""}}, {}}, 1);
  recorder.core_start(0);
  recorder.vp_created(0, 1, "worker", {"trace_recording_test.cpp", 2, "test"}, 0);
  static constexpr CallSite kSite{"trace_recording_test.cpp", 3, "test"};
  // unit_of runs one unit: begins at `begin` with `estimates` booked, ends at `end`.
  const auto unit_of = [&](UnitId unit, std::uint64_t begin, std::vector<std::uint64_t> estimates, std::uint64_t end) {
    clock.time = begin;
    recorder.unit_begin(0, 1, unit);
    for (std::uint64_t ticks : estimates) recorder.runtime_work_estimated(0, ticks);
    clock.time = end;
    recorder.unit_end(0, 1, unit, 1, kSite);
    recorder.handler_enter(0, 1, unit);
    clock.time = end + 5;
    recorder.handler_exit(0, 1, unit);
  };
  unit_of(1, 10, {30}, 100);      // 90 ticks of work give 30
  unit_of(2, 110, {50, 50}, 150); // estimates add up: 100 asked, 40 given (clamped)
  unit_of(3, 160, {}, 170);       // no estimate: untouched
  unit_of(4, 180, {7}, 180);      // no work to give: clamped, no chore
  recorder.core_stop(0);
  recorder.finish();
  const trace::Trace t = trace::read_trace(path);
  std::remove(path.c_str());
  ASSERT_TRUE(t.complete) << t.cut;
  ASSERT_EQ(t.units.size(), 4u);
  const auto& u = t.units;
  EXPECT_EQ(u[0].record.begin, 40u);
  EXPECT_EQ(u[0].record.end, 100u);
  EXPECT_EQ(u[1].record.begin, 150u);
  EXPECT_EQ(u[1].record.end, 150u);
  EXPECT_EQ(u[2].record.begin, 160u);
  EXPECT_EQ(u[3].record.begin, 180u);
  ASSERT_EQ(t.chores.size(), 2u);
  for (const trace::Trace::ChoreSpan& chore : t.chores) EXPECT_EQ(chore.record.chore, static_cast<std::uint16_t>(Chore::estimated));
  EXPECT_EQ(t.chores[0].record.begin, 10u);
  EXPECT_EQ(t.chores[0].record.end, 40u);
  EXPECT_EQ(t.chores[1].record.begin, 110u);
  EXPECT_EQ(t.chores[1].record.end, 150u);
  EXPECT_EQ(t.metadata.at("estimated_runtime_work"), "units=2,ticks=70,clamped=2");
}

// A core that stays inside one long unit, and a core parked idle, reach no unit boundary: their
// earlier records still reach the file, with the names they need, while the run goes on. The
// loop below waits for that as a tool reading a running program's trace would; its limit only
// turns a write that never comes into a failure, it asserts no speed.
TEST(TraceFlushByTime, ACoreInALongUnitHasItsEarlierRecordsWritten) {
  const std::string path = temp_path("flush");
  instrument::RecorderOptions options{path, {}, "flush test", 4096};
  options.flush_interval = std::chrono::milliseconds(50);
  instrument::TraceRecorder recorder(options);
  recorder.run_start({"test", {{"end VP", ConstructRole::end, ""}, {"step", ConstructRole::other, ""}}, {}}, 2);
  recorder.core_start(0);
  recorder.core_start(1);
  recorder.vp_created(0, 1, "long runner", {"trace_recording_test.cpp", 2, "test"}, 0);
  for (UnitId unit = 1; unit <= 3; ++unit) whole_unit(recorder, 0, 1, unit);
  recorder.unit_begin(0, 1, 4);  // and stays in it
  recorder.idle_begin(1);
  trace::Trace seen;
  for (const auto limit = std::chrono::steady_clock::now() + std::chrono::seconds(60);
       std::chrono::steady_clock::now() < limit && seen.units.size() < 3;
       std::this_thread::sleep_for(std::chrono::milliseconds(10))) {
    seen = trace::read_trace(path);
  }
  ASSERT_EQ(seen.units.size(), 3u) << "the records before the long unit never reached the file; " << seen.cut;
  EXPECT_FALSE(seen.complete);
  EXPECT_EQ(seen.cut.rfind("partial trace, ends at ", 0), 0u) << seen.cut;
  ASSERT_EQ(seen.vps.size(), 1u);
  EXPECT_EQ(seen.vps[0].name, "long runner");
  EXPECT_EQ(seen.latest, seen.units[2].record.handler_end);

  // The core goes on and fills its 4 KiB buffer many times over: what was written early must
  // not be written again, nor anything lost at the seams.
  recorder.unit_end(0, 1, 4, 1, {"trace_recording_test.cpp", 3, "test"});
  recorder.handler_enter(0, 1, 4);
  recorder.handler_exit(0, 1, 4);
  for (UnitId unit = 5; unit <= 400; ++unit) whole_unit(recorder, 0, 1, unit);
  recorder.idle_end(1);
  recorder.core_stop(0);
  recorder.core_stop(1);
  const instrument::RecorderStats written = recorder.finish();
  const trace::Trace t = trace::read_trace(path);
  std::remove(path.c_str());
  ASSERT_TRUE(t.complete) << t.cut;
  ASSERT_EQ(t.units.size(), 400u);
  for (std::size_t i = 0; i < t.units.size(); ++i) ASSERT_EQ(t.units[i].record.unit, i + 1) << "at " << i;
  EXPECT_EQ(t.idle.size(), 1u);
  // The core fills buffers faster than a file takes them, so it may have waited for the writer.
  EXPECT_EQ(t.end.records, 401u + t.writer_waits.size() + os_taken_records(t));
  EXPECT_EQ(written.records, t.end.records);
  EXPECT_EQ(t.metadata.at("interrupted"), "no");
  EXPECT_TRUE(t.interrupted.empty());
  EXPECT_FALSE(t.metadata.at("end_reason").empty());
}

// Two cores append as fast as they can into small buffers while the writer writes parts of
// them every half millisecond: every record must be in the file once, each core's in order.
TEST(TraceFlushByTime, WritesEveryRecordOnceAndInOrderWhileCoresAppend) {
  constexpr UnitId kUnits = 50000;
  const std::string path = temp_path("flush_stress");
  instrument::RecorderOptions options{path, {}, "flush stress", 4096};
  options.flush_interval = std::chrono::milliseconds(1);
  {
    instrument::TraceRecorder recorder(options);
    recorder.run_start({"test", {{"end VP", ConstructRole::end, ""}, {"step", ConstructRole::other, ""}}, {}}, 2);
    std::vector<std::thread> cores;
    for (CoreId core = 0; core < 2; ++core) {
      cores.emplace_back([&recorder, core] {
        recorder.core_start(core);
        for (UnitId unit = 1; unit <= kUnits; ++unit) whole_unit(recorder, core, core + 1, core * kUnits + unit);
        recorder.core_stop(core);
      });
    }
    for (std::thread& core : cores) core.join();
    recorder.finish();
  }
  const trace::Trace t = trace::read_trace(path);
  std::remove(path.c_str());
  ASSERT_TRUE(t.complete) << t.cut;
  ASSERT_EQ(t.units.size(), 2 * kUnits);
  UnitId next[2] = {1, kUnits + 1};
  for (const trace::Unit& unit : t.units) {
    ASSERT_LT(unit.core, 2u);
    ASSERT_EQ(unit.record.unit, next[unit.core]) << "core " << unit.core;
    ++next[unit.core];
  }
  EXPECT_EQ(t.end.records, 2 * kUnits + t.writer_waits.size() + os_taken_records(t));
}

void application_handler(int) {}

// The recorder catches SIGINT and SIGTERM only where the application left the default action,
// and gives it back when it finishes.
TEST(TraceStopSignals, CatchesOnlyDefaultActionsAndGivesThemBack) {
  struct sigaction app {}, dfl {}, saved_int {}, saved_term {}, now {};
  app.sa_handler = application_handler;
  sigemptyset(&app.sa_mask);
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  ASSERT_EQ(::sigaction(SIGINT, &dfl, &saved_int), 0);
  ASSERT_EQ(::sigaction(SIGTERM, &app, &saved_term), 0);
  const std::string path = temp_path("signals");
  {
    instrument::TraceRecorder recorder({path, {}, "signals", 4096});
    recorder.run_start({"test", {{"end VP", ConstructRole::end, ""}}, {}}, 1);
    ::sigaction(SIGINT, nullptr, &now);
    EXPECT_NE(now.sa_handler, SIG_DFL) << "SIGINT is not caught while the run records";
    ::sigaction(SIGTERM, nullptr, &now);
    EXPECT_EQ(now.sa_handler, &application_handler) << "the application's SIGTERM handler was replaced";
    recorder.finish();
    ::sigaction(SIGINT, nullptr, &now);
    EXPECT_EQ(now.sa_handler, SIG_DFL) << "SIGINT's default action was not given back";
    ::sigaction(SIGTERM, nullptr, &now);
    EXPECT_EQ(now.sa_handler, &application_handler);
  }
  std::remove(path.c_str());
  ::sigaction(SIGINT, &saved_int, nullptr);
  ::sigaction(SIGTERM, &saved_term, nullptr);
}

}  // namespace

// The views find constructs by role: an SSR run records each construct's name, role and colour
// as SSR's table says, which is what the reader's table gives a trace of format 2 (names only).
TEST(TraceConstructRoles, AnSsrRunRecordsItsConstructTable) {
  const Recorded run = record(kSimulatedCores);
  const trace::Trace& t = run.trace;
  ASSERT_EQ(t.constructs.size(), trace::kFormat2SsrConstructs.size());
  for (std::size_t kind = 0; kind < trace::kFormat2SsrConstructs.size(); ++kind) {
    EXPECT_EQ(t.constructs[kind], trace::kFormat2SsrConstructs[kind].name) << kind;
    EXPECT_EQ(t.construct_roles[kind], trace::kFormat2SsrConstructs[kind].role) << kind;
    EXPECT_EQ(t.construct_colours[kind], trace::kFormat2SsrConstructs[kind].colour) << kind;
  }
  EXPECT_EQ(t.constructs_of(ConstructRole::create), (std::vector<std::uint32_t>{1}));
  EXPECT_EQ(t.constructs_of(ConstructRole::exclusive_end), (std::vector<std::uint32_t>{9}));
  // Its choices too, which are what the format history gives an SSR trace from before them.
  EXPECT_EQ(t.language_choices.placement, LanguagePlacement::last_core);
  EXPECT_TRUE(t.language_choices.words.empty()) << "SSR speaks the paper's words, the report's own";
}

TEST(TraceConstructRoles, AFormatTwoSsrTraceGetsSsrsRoles) {
  const std::string path = std::string(MOIRAI_SOURCE_DIR) + "/tests/golden/matmul_sim4.mtrace";
  std::ifstream file(path, std::ios::binary);
  trace::FileHeader header{};
  file.read(reinterpret_cast<char*>(&header), sizeof header);
  ASSERT_EQ(header.version_major, 2) << "the fixture is meant to predate construct roles";
  const trace::Trace t = trace::read_trace(path);
  EXPECT_EQ(t.version, (std::pair<std::uint16_t, std::uint16_t>{2, header.version_minor}));
  ASSERT_EQ(t.constructs.size(), trace::kFormat2SsrConstructs.size());
  for (std::size_t kind = 0; kind < trace::kFormat2SsrConstructs.size(); ++kind) {
    EXPECT_EQ(t.construct_roles[kind], trace::kFormat2SsrConstructs[kind].role) << t.constructs[kind];
    EXPECT_EQ(t.construct_colours[kind], trace::kFormat2SsrConstructs[kind].colour) << t.constructs[kind];
  }
  EXPECT_EQ(t.language_choices.placement, LanguagePlacement::last_core);
  EXPECT_TRUE(t.language_choices.words.empty());
}

// A language of the kit records as SSR does, with nothing in the recorder or the reader for
// it: the test-only fork/join's table reaches the trace, and its constraints read back under
// its names (docs/adding-a-language.md).
TEST(TraceConstructRoles, ALanguageOfTheKitRecordsItsTable) {
  const std::string path = temp_path("fork_join");
  {
    instrument::TraceRecorder recorder({path, {}, "fork_join", 4096});
    proto::SimMachine machine(proto::SimConfig{.topology = {1, 2}});
    proto::run<test::fj::ForkJoin>(
        machine,
        [](proto::VirtualProcessor& self) {
          // Each child works long enough (declared) that the join waits for the last of them.
          for (int i = 0; i < 3; ++i) {
            test::fj::fork(self, [](proto::VirtualProcessor& child) { child.charge_work(1'000'000); });
          }
          test::fj::join(self);
        },
        {.observer = &recorder}, CallSite::from(std::source_location::current()));
    EXPECT_EQ(recorder.finish().dropped, 0u);
  }
  const trace::Trace t = trace::read_trace(path);
  std::remove(path.c_str());
  EXPECT_EQ(t.metadata.at("language"), "fork/join");
  const proto::LanguageTable& table = test::fj::language_table();
  ASSERT_EQ(t.constructs.size(), table.constructs.size());
  for (std::size_t kind = 0; kind < table.constructs.size(); ++kind) {
    EXPECT_EQ(t.constructs[kind], table.constructs[kind].name) << kind;
    EXPECT_EQ(t.construct_roles[kind], table.constructs[kind].role) << kind;
    EXPECT_EQ(t.construct_colours[kind], table.constructs[kind].colour) << kind;
  }
  EXPECT_EQ(t.language_choices.placement, table.choices.placement);
  EXPECT_EQ(t.language_choices.words, table.choices.words);
  std::map<std::string, int> by_name;
  for (const trace::ConstraintRecord& c : t.constraints) ++by_name[t.construct_name(c.construct)];
  EXPECT_EQ(by_name, (std::map<std::string, int>{{"fork", 3}, {"join", 1}}));
}

TEST(TraceConstructRoles, AnotherLanguagesConstructsKeepTheirOwnRoles) {
  const std::string path = temp_path("roles");
  trace::BuilderOptions options;
  options.language = "VSs";
  options.constructs = {{"end task", ConstructRole::end, ""}, {"submit", ConstructRole::create, "firebrick"},
                        {"dep RAW", ConstructRole::dependence, ""}};
  {
    trace::TraceBuilder builder(path, options);
    builder.finish();
  }
  const trace::Trace t = trace::read_trace(path);
  std::remove(path.c_str());
  EXPECT_EQ(t.constructs, (std::vector<std::string>{"end task", "submit", "dep RAW"}));
  EXPECT_EQ(t.construct_roles, (std::vector<ConstructRole>{ConstructRole::end, ConstructRole::create, ConstructRole::dependence}));
  EXPECT_EQ(t.construct_colours, (std::vector<std::string>{"", "firebrick", ""}));
  // The reader says which format it read: what a file may hold depends on it (since 3.1, a unit
  // without a declared-work record declared none).
  EXPECT_EQ(t.version, (std::pair<std::uint16_t, std::uint16_t>{trace::kVersionMajor, trace::kVersionMinor}));
}

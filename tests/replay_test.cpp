// Replay: a recorded run's units and constraints run again on a simulated machine. Each recorded
// language (SSR on the reference machine's real cores, VSs, the test-only fork/join) replays to a
// run with the same units and constraints, no unit before what freed it and no core running two
// units at once; replayed on its own machine it takes the recorded time.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <set>
#include <source_location>
#include <string>

#include "cholesky.h"
#include "moirai/instrument/trace_recorder.h"
#include "moirai/proto_runtime/sim_machine.h"
#include "moirai/replay/replay.h"
#include "moirai/trace/reader.h"
#include "support/fork_join.h"
#include "support/replay_checks.h"
#include "support/test_support.h"
#include "support/trace_builder.h"

namespace moirai::test {
namespace {

const std::string kReference = MOIRAI_REFERENCE_TRACES;

replay::ReplayOptions on(const std::string& machine, replay::Placement placement = replay::Placement::language) {
  replay::ReplayOptions options;
  options.machine = proto::SimTopology::parse(machine);
  options.placement = placement;
  return options;
}

// record_sim runs `body` with a recorder on `path` and returns the trace.
template <class Body>
trace::Trace record(const std::string& name, Body&& body) {
  const std::string path = ::testing::TempDir() + "moirai_replay_src_" + name + "_" + std::to_string(::getpid()) + ".mtrace";
  {
    instrument::TraceRecorder recorder({path, {}, "replay_test " + name, 64 * 1024});
    body(recorder);
    recorder.finish();
  }
  trace::Trace trace = trace::read_trace(path);
  std::remove(path.c_str());
  return trace;
}

// The reference machine's real runs (1 to 16 cores), replayed on as many simulated cores with
// the cost model fitted there: the recorded makespan within 5 % (issue 28, acceptance 1).
class ReplayReference : public ::testing::TestWithParam<const char*> {};

TEST_P(ReplayReference, OnItsOwnMachineTakesTheRecordedTime) {
  const trace::Trace recorded = trace::read_trace(kReference + "/" + GetParam() + ".mtrace");
  replay::ReplayOptions options = on("sim:" + std::to_string(recorded.core_count));
  options.costs = proto::CostModel::load(kReference + "/cost-model-16core.txt");
  replay::ReplayResult result;
  const trace::Trace replayed = replay_recorded(recorded, options, GetParam(), &result);
  expect_faithful_replay(recorded, replayed);
  EXPECT_EQ(replayed.core_count, recorded.core_count);
  EXPECT_EQ(result.pinning, replay::Pinning::keep);
  EXPECT_NEAR(result.makespan_seconds / result.recorded_seconds, 1.0, 0.05)
      << "replayed " << result.makespan_seconds << " s against " << result.recorded_seconds << " s recorded";
}

INSTANTIATE_TEST_SUITE_P(Xeon16, ReplayReference,
                         ::testing::Values("c1-p64", "c2-p64", "c4-p64", "c8-p64", "c16-p16", "c16-p64", "c16-p256",
                                           "c1-s3840-p16"),
                         [](const ::testing::TestParamInfo<const char*>& param) {
                           std::string name = param.param;
                           for (char& c : name) c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
                           return name;
                         });

// A 2-core run replayed on 16 cores: the pinned workers are dealt over all 16, and the run is shorter.
TEST(Replay, SpreadsARunOverMoreCores) {
  const trace::Trace recorded = trace::read_trace(kReference + "/c2-p64.mtrace");
  replay::ReplayResult result;
  const trace::Trace replayed = replay_recorded(recorded, on("sim:16"), "spread", &result);
  expect_faithful_replay(recorded, replayed);
  EXPECT_EQ(result.pinning, replay::Pinning::spread);
  EXPECT_EQ(result.placement, replay::Placement::last_core);  // SSR's assigner
  std::set<std::uint32_t> cores;
  for (const trace::Unit& unit : replayed.units) cores.insert(unit.core);
  EXPECT_EQ(cores.size(), 16u);
  EXPECT_LT(result.makespan_seconds, result.recorded_seconds / 3);

  // Kept on their two recorded cores, the same units take the recorded time.
  replay::ReplayOptions kept = on("sim:16");
  kept.pinning = replay::Pinning::keep;
  replay::ReplayResult pinned;
  const trace::Trace same = replay_recorded(recorded, kept, "keep", &pinned);
  cores.clear();
  for (const trace::Unit& unit : same.units) cores.insert(unit.core);
  EXPECT_EQ(cores, (std::set<std::uint32_t>{0, 1}));
  EXPECT_GT(pinned.makespan_seconds, result.makespan_seconds * 3);
}

// VSs: tiled Cholesky recorded on sim:4, replayed on its own machine and on 16 cores.
TEST(Replay, ReplaysAVssTaskGraph) {
  const trace::Trace recorded = record("vss", [](instrument::TraceRecorder& recorder) {
    cholesky::CholeskyConfig config;
    config.tiles = 6;
    config.tile_size = 4;
    config.observer = &recorder;
    config.uniform_work = 1'000'000;
    proto::SimMachine machine(proto::SimConfig{.topology = {1, 4}});
    (void)cholesky::run_cholesky(machine, config);
  });
  ASSERT_EQ(recorded.metadata.at("language"), "VSs");
  // The machine that recorded it is causal too: it once let an assignment held through from a
  // handler take what a later handler freed, while that handler waited for the lock.
  expect_causal(recorded);
  expect_faithful_replay(recorded, recorded);
  replay::ReplayResult own;
  expect_faithful_replay(recorded, replay_recorded(recorded, on("sim:4", replay::Placement::recorded), "vss4", &own));
  EXPECT_NEAR(own.makespan_seconds / own.recorded_seconds, 1.0, 0.05);
  replay::ReplayResult wide;
  expect_faithful_replay(recorded, replay_recorded(recorded, on("sim:16"), "vss16", &wide));
  EXPECT_EQ(wide.placement, replay::Placement::any_core);
  EXPECT_LT(wide.makespan_seconds, own.makespan_seconds);
}

// The test-only language: replay needs nothing of a language but its trace.
TEST(Replay, ReplaysALanguageItDoesNotKnow) {
  const trace::Trace recorded = record("fork_join", [](instrument::TraceRecorder& recorder) {
    proto::SimMachine machine(proto::SimConfig{.topology = {1, 3}});
    proto::RunOptions options;
    options.observer = &recorder;
    proto::run<fj::ForkJoin>(
        machine,
        proto::VpFunction([](proto::VirtualProcessor& self) {
          for (int i = 0; i < 4; ++i) {
            fj::fork(self, [](proto::VirtualProcessor& child) {
              child.charge_work(50'000);
              fj::fork(child, [](proto::VirtualProcessor& leaf) { leaf.charge_work(20'000); });
              fj::join(child);
            });
          }
          fj::join(self);
        }),
        options, CallSite::from(std::source_location::current()));
  });
  ASSERT_EQ(recorded.metadata.at("language"), "fork/join");
  replay::ReplayResult a, b;
  const trace::Trace replayed = replay_recorded(recorded, on("sim:2"), "fj", &a);
  expect_faithful_replay(recorded, replayed);
  EXPECT_EQ(replayed.construct_name(1), "fork");
  (void)replay_recorded(recorded, on("sim:2"), "fj_again", &b);
  EXPECT_EQ(a.makespan_ticks, b.makespan_ticks) << "a replay is deterministic";
}

// Work recorded beside another busy core is taken as slowed by the model's stretch: alone it is
// shorter, and beside another core again it is as long as recorded.
TEST(Replay, TakesOutTheSlowdownOfTheCoresThatWorkedBeside) {
  const std::string path = ::testing::TempDir() + "moirai_replay_beside_" + std::to_string(::getpid()) + ".mtrace";
  test_support::TraceBuilder b(2);
  b.site(1, "beside.cpp", 3);
  b.unit(0, 1, 1, 0, 0, 10, 20, 1, 1);  // creates VP 2
  b.constraint(0, 1, 1, 3, 15);
  b.unit(0, 2, 1, 20, 20, 150'020, 150'030, 0, 1);  // 150,000 ticks beside unit 3
  b.unit(1, 3, 2, 20, 20, 150'020, 150'030, 0, 1);
  b.write(path);
  const trace::Trace recorded = trace::read_trace(path);
  std::remove(path.c_str());
  const double ticks = 1e9 / recorded.clock_hz;  // virtual ticks per recorded tick

  replay::ReplayOptions plain = on("sim:1");
  replay::ReplayOptions stretched = plain;
  stretched.costs.work.stretch_socket = 0.5;  // a unit lasts 1.5 times as long beside another
  replay::ReplayResult as_recorded, alone, beside;
  (void)replay_recorded(recorded, plain, "beside_plain", &as_recorded);
  (void)replay_recorded(recorded, stretched, "beside_alone", &alone);
  // On one core the two units run one after the other, each a third shorter: 100,000 ticks saved.
  EXPECT_NEAR(static_cast<double>(as_recorded.makespan_ticks - alone.makespan_ticks), 100'000 * ticks, 1'000 * ticks);
  // On two they run side by side again, each as long as recorded.
  stretched.machine = proto::SimTopology::parse("sim:2");
  (void)replay_recorded(recorded, stretched, "beside_two", &beside);
  EXPECT_NEAR(static_cast<double>(beside.makespan_ticks), 150'030 * ticks, 2'000 * ticks);
}

// A handler costs what the recording measured, in seconds, whatever the model's clock.
TEST(Replay, MeasuredHandlersKeepTheirTimeOnAnyClock) {
  const std::string path = ::testing::TempDir() + "moirai_replay_clock_" + std::to_string(::getpid()) + ".mtrace";
  test_support::TraceBuilder b(1);
  b.site(1, "clock.cpp", 3);
  b.unit(0, 1, 1, 0, 0, 10, 100'010, 1, 1);  // its handler spans about 50,000 ticks
  b.constraint(0, 1, 1, 2, 60'000);
  b.unit(0, 2, 2, 100'010, 100'010, 100'020, 100'030, 0, 1);
  b.write(path);
  const trace::Trace recorded = trace::read_trace(path);
  std::remove(path.c_str());
  const auto quiet = [](double clock_hz) {  // no runtime step costs anything but the handlers
    replay::ReplayOptions options = on("sim:1");
    proto::CostModel& c = options.costs;
    c.clock_hz = clock_hz;
    c.switch_ticks = c.communication = c.lock = c.lock_handoff = c.lock_contended = c.assigner = 0;
    c.wake = c.wake_parked = c.handler = 0;
    return options;
  };
  replay::ReplayResult slow, fast;
  (void)replay_recorded(recorded, quiet(1e9), "clock_1", &slow);
  (void)replay_recorded(recorded, quiet(4e9), "clock_4", &fast);
  EXPECT_NEAR(fast.makespan_seconds, slow.makespan_seconds, 0.01 * slow.makespan_seconds);
  EXPECT_GT(slow.makespan_seconds, 0.9 * 50'000 / recorded.clock_hz);
}

// A constraint the recording holds backwards in time is left out, and said.
TEST(Replay, LeavesOutAConstraintBackInTimeAndSaysSo) {
  const std::string path = ::testing::TempDir() + "moirai_replay_back_" + std::to_string(::getpid()) + ".mtrace";
  test_support::TraceBuilder b(2);
  b.site(1, "back.cpp", 3);
  b.unit(0, 1, 1, 0, 10, 110, 120, 1, 1);
  b.constraint(0, 1, 1, 3, 115);
  b.unit(0, 2, 1, 120, 130, 230, 240, 0, 1);
  b.unit(1, 3, 2, 120, 130, 200, 210, 0, 1);
  b.constraint(1, 2, 2, 3, 235);  // unit 2 freeing unit 3, which began before unit 2 ended
  b.write(path);
  const trace::Trace recorded = trace::read_trace(path);
  std::remove(path.c_str());
  replay::ReplayResult result;
  const trace::Trace replayed = replay_recorded(recorded, on("sim:2"), "back", &result);
  EXPECT_EQ(replayed.units.size(), 3u);
  ASSERT_EQ(result.notes.size(), 1u);
  EXPECT_NE(result.notes[0].find("1 constraint(s) free a unit that began before the freeing unit ended"), std::string::npos)
      << result.notes[0];
}

// even: a late arrival's work shared with the unit that waited for it (the cure of a late sender):
// the receiver's wait is gone, and the run is shorter by half the difference of their work.
TEST(Replay, EvenSharesALateArrivalsWorkWithTheUnitsThatWaited) {
  const replay::RemovedCause parsed = replay::parse_cause("even:1,5");
  EXPECT_EQ(parsed.cause, replay::Cause::even);
  EXPECT_EQ(parsed.units, (std::vector<std::uint64_t>{1, 5}));
  EXPECT_EQ(replay::cause_text(parsed), "even:1,5");
  EXPECT_THROW(replay::parse_cause("even"), std::invalid_argument);
  EXPECT_THROW(replay::parse_cause("even:x"), std::invalid_argument);
  EXPECT_EQ(replay::cause_for_rule("idle-cause", "a.cpp:1", {1}).cause, replay::Cause::even);
  EXPECT_EQ(replay::cause_for_rule("idle-cause", "a.cpp:1", {}).cause, replay::Cause::none);

  const std::string path = ::testing::TempDir() + "moirai_replay_even_" + std::to_string(::getpid()) + ".mtrace";
  // A language of plain messages (MPI's ranks: a VP of its own per core), nothing of SSR's rendezvous.
  trace::BuilderOptions messages;
  messages.cores = 2;
  messages.language = "messages";
  messages.constructs = {{"end", ConstructRole::other, ""}, {"send", ConstructRole::other, ""}, {"receive", ConstructRole::other, ""}};
  messages.choices = LanguageChoices{.placement = LanguagePlacement::last_core, .words = {}};
  test_support::TraceBuilder b(messages);
  b.site(1, "even.cpp", 3);
  b.site(2, "even.cpp", 7);
  b.vp(1, "late", 0, 1);
  b.vp(2, "waits", 1, 1);
  // The first rank's call at the start (replay starts the other VPs there), then its late send.
  b.unit(0, 5, 1, 0, 0, 10, 10, 2, 1);
  b.unit(0, 1, 1, 10, 10, 300'010, 300'020, 1, 1);  // 300,000 ticks of work, then the send
  b.constraint(0, 1, 1, 4, 300'015);
  b.unit(0, 2, 1, 300'020, 300'020, 400'020, 400'030, 0, 1);
  b.unit(1, 3, 2, 10, 10, 100'010, 100'020, 2, 2);  // 100,000 ticks, then the receive waits
  b.idle(1, 100'020, 300'015);
  b.unit(1, 4, 2, 300'020, 300'020, 400'020, 400'030, 0, 2);
  b.write(path);
  const trace::Trace recorded = trace::read_trace(path);
  std::remove(path.c_str());
  replay::ReplayOptions options = on("sim:2", replay::Placement::recorded);
  // Work as recorded, beside others or not, and no cost to wake the waiting core: the gain is the work's.
  options.costs.work.stretch_machine = options.costs.work.stretch_socket = 0;
  options.costs.wake = options.costs.wake_parked = 0;
  const double as_is = replay::replay(recorded, options).makespan_seconds;
  options.removed = replay::parse_cause("even:1");
  const double evened = replay::replay(recorded, options).makespan_seconds;
  // Units 1 and 3 do 200 us each: the run is 100 us shorter, the receiver's wait gone.
  EXPECT_NEAR(as_is - evened, 100e-6, 2e-6);
  options.removed.units = {UINT64_MAX};
  EXPECT_THROW(replay::replay(recorded, options), replay::ReplayError);
}

TEST(Replay, RefusesWhatItCannotReplay) {
  const std::string path = ::testing::TempDir() + "moirai_replay_empty_" + std::to_string(::getpid()) + ".mtrace";
  test_support::TraceBuilder empty(1);
  empty.write(path);
  const trace::Trace nothing = trace::read_trace(path);
  std::remove(path.c_str());
  EXPECT_THROW(replay::replay(nothing, on("sim:1")), replay::ReplayError);
  const trace::Trace recorded = trace::read_trace(kReference + "/c1-p64.mtrace");
  replay::ReplayOptions options = on("sim:1");
  options.work_scale = 0;
  EXPECT_THROW(replay::replay(recorded, options), replay::ReplayError);
  EXPECT_THROW(replay::parse_placement("nearest"), std::invalid_argument);
  EXPECT_THROW(replay::parse_pinning("sometimes"), std::invalid_argument);
  EXPECT_EQ(replay::parse_placement(replay::placement_name(replay::Placement::any_core)), replay::Placement::any_core);
}

// work-of takes the named units' work away and nothing else (split shares it out over the cores): on a one-core run the makespan
// falls by about their work; what a critical-path hint names is what its what-if removes.
TEST(Replay, WorkOfTakesAwayTheNamedUnitsWork) {
  const replay::RemovedCause parsed = replay::parse_cause("work-of:7,10");
  EXPECT_EQ(parsed.cause, replay::Cause::work_of);
  EXPECT_EQ(parsed.units, (std::vector<std::uint64_t>{7, 10}));
  EXPECT_EQ(replay::cause_text(parsed), "work-of:7,10");
  EXPECT_THROW(replay::parse_cause("work-of:"), std::invalid_argument);
  EXPECT_THROW(replay::parse_cause("work-of:7,"), std::invalid_argument);
  EXPECT_THROW(replay::parse_cause("work-of"), std::invalid_argument);
  EXPECT_EQ(replay::cause_for_rule("critical-path", "a.cpp:1", {7}).cause, replay::Cause::split);
  EXPECT_EQ(replay::cause_for_rule("long-serial", "a.cpp:1", {7}).cause, replay::Cause::split);
  EXPECT_EQ(replay::cause_for_rule("long-serial", "a.cpp:1", {}).cause, replay::Cause::work_at);
  EXPECT_EQ(replay::cause_text(replay::parse_cause("split:3")), "split:3");
  EXPECT_THROW(replay::parse_cause("split"), std::invalid_argument);
  EXPECT_EQ(replay::cause_text(replay::parse_cause("balance:a.cpp:12")), "balance:a.cpp:12");
  EXPECT_THROW(replay::parse_cause("balance:a.cpp"), std::invalid_argument);
  EXPECT_THROW(replay::parse_cause("balance"), std::invalid_argument);
  EXPECT_EQ(replay::cause_for_rule("idle-tail", "a.cpp:1", {}).cause, replay::Cause::balance);
  EXPECT_EQ(replay::cause_for_rule("exclusive-late", "a.cpp:1", {}).cause, replay::Cause::exclusive_first);
  EXPECT_EQ(replay::parse_cause("exclusive-first").cause, replay::Cause::exclusive_first);
  EXPECT_EQ(replay::cause_text(replay::parse_cause("unchain:send_of_type_to")), "unchain:send_of_type_to");
  EXPECT_THROW(replay::parse_cause("unchain"), std::invalid_argument);
  EXPECT_EQ(replay::cause_for_rule("critical-path", "a.cpp:1", {7}, "send_of_type_to").cause, replay::Cause::unchain);
  const replay::RemovedCause behind = replay::parse_cause("balance:17");
  EXPECT_EQ(behind.units, (std::vector<std::uint64_t>{17}));
  EXPECT_EQ(replay::cause_text(behind), "balance:17");
  EXPECT_EQ(replay::cause_for_rule("idle-band", "a.cpp:1", {17}).units, (std::vector<std::uint64_t>{17}));
  EXPECT_EQ(replay::cause_for_rule("critical-path", "a.cpp:1", {}).cause, replay::Cause::none);

  const trace::Trace recorded = trace::read_trace(kReference + "/c1-p64.mtrace");
  const trace::Unit* longest = &recorded.units.front();
  for (const trace::Unit& unit : recorded.units) longest = unit.work() > longest->work() ? &unit : longest;
  replay::ReplayOptions options = on("sim:1");
  const double as_is = replay::replay(recorded, options).makespan_seconds;
  options.removed = {replay::Cause::work_of, {}, {longest->record.unit}};
  const double without = replay::replay(recorded, options).makespan_seconds;
  const double work = static_cast<double>(longest->work()) / recorded.clock_hz;
  EXPECT_NEAR(as_is - without, work, 0.05 * work);
  // split leaves 1/N of the unit's work: on one core, all of it.
  options.removed = {replay::Cause::split, {}, {longest->record.unit}};
  EXPECT_NEAR(replay::replay(recorded, options).makespan_seconds, as_is, 1e-6 * as_is);
  options.removed.units = {UINT64_MAX};
  EXPECT_THROW(replay::replay(recorded, options), replay::ReplayError);
}

}  // namespace
}  // namespace moirai::test

// What every replayed run must show against the run it replays: the same units and constraints,
// no unit before what freed it, no core running two units at once.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "moirai/instrument/trace_recorder.h"
#include "moirai/replay/replay.h"
#include "moirai/trace/reader.h"

namespace moirai::test {

// replay_recorded replays `recorded` with `options`, records the replay and returns its trace.
inline trace::Trace replay_recorded(const trace::Trace& recorded, replay::ReplayOptions options, const std::string& name,
                                    replay::ReplayResult* result = nullptr) {
  const std::string path = ::testing::TempDir() + "moirai_replay_" + name + "_" + std::to_string(::getpid()) + ".mtrace";
  replay::ReplayResult done;
  {
    instrument::TraceRecorder recorder({path, {}, "replay_test " + name, 64 * 1024});
    options.observer = &recorder;
    done = replay::replay(recorded, options);
    recorder.finish();
  }
  trace::Trace replayed = trace::read_trace(path);
  std::remove(path.c_str());
  if (result != nullptr) *result = done;
  return replayed;
}

// expect_causal checks a run on a simulated machine: no unit begins before the handler of a unit
// that freed it ran or before its VP's previous unit was handled, and each core runs its units
// one after another.
inline void expect_causal(const trace::Trace& replayed) {
  std::unordered_map<std::uint64_t, const trace::Unit*> by_id;
  for (const trace::Unit& unit : replayed.units) by_id[unit.record.unit] = &unit;
  std::size_t early = 0;
  for (const auto& c : replayed.constraints) {
    const trace::Unit* from = by_id.at(c.from);
    const trace::Unit* to = by_id.at(c.to);
    if (to->record.begin < from->record.handler) {
      if (++early <= 3) ADD_FAILURE() << replayed.construct_name(c.construct) << ": unit " << c.to << " began at " << to->record.begin << ", before unit " << c.from
                                      << " freed it at " << from->record.handler;
    }
  }
  EXPECT_EQ(early, 0u) << "units that began before a constraint on them was satisfied";

  std::map<std::uint64_t, std::vector<const trace::Unit*>> by_vp;
  std::vector<std::vector<const trace::Unit*>> by_core(replayed.core_count);
  for (const trace::Unit& unit : replayed.units) {
    by_vp[unit.record.vp].push_back(&unit);
    by_core.at(unit.core).push_back(&unit);
  }
  const auto by_begin = [](const trace::Unit* a, const trace::Unit* b) { return a->record.begin < b->record.begin; };
  for (auto& [vp, units] : by_vp) {
    std::sort(units.begin(), units.end(), by_begin);
    for (std::size_t k = 1; k < units.size(); ++k) {
      EXPECT_GE(units[k]->record.begin, units[k - 1]->record.handler) << "VP " << vp << "'s unit " << units[k]->record.unit;
    }
  }
  std::size_t overlaps = 0;
  for (auto& units : by_core) {
    std::sort(units.begin(), units.end(), by_begin);
    for (std::size_t k = 1; k < units.size(); ++k) {
      if (units[k]->record.assign < units[k - 1]->record.handler_end) ++overlaps;
    }
  }
  EXPECT_EQ(overlaps, 0u) << "units that overlap another on their core";
}

// expect_faithful_replay checks `replayed` against `recorded`: every recorded unit replayed once
// (plus at most one closing unit per VP whose end was not recorded), the constraints of each
// construct in the same number, and the replayed run causal (expect_causal).
inline void expect_faithful_replay(const trace::Trace& recorded, const trace::Trace& replayed) {
  ASSERT_TRUE(replayed.complete) << replayed.cut;
  EXPECT_GE(replayed.units.size(), recorded.units.size());
  EXPECT_LE(replayed.units.size(), recorded.units.size() + recorded.vps.size());
  std::map<std::string, std::size_t> recorded_kinds, replayed_kinds;
  for (const auto& c : recorded.constraints) ++recorded_kinds[recorded.construct_name(c.construct)];
  for (const auto& c : replayed.constraints) ++replayed_kinds[replayed.construct_name(c.construct)];
  EXPECT_EQ(replayed_kinds, recorded_kinds);
  EXPECT_EQ(replayed.metadata.at("language"), recorded.metadata.at("language"));
  expect_causal(replayed);
}

}  // namespace moirai::test

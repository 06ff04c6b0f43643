// An OpenMP run recorded through OMPT replays like any other trace: the same units and
// constraints on a simulated machine of the recorded cores and of more.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "moirai/replay/replay.h"
#include "support/openmp_run.h"
#include "support/replay_checks.h"

namespace moirai::test {
namespace {

TEST(OmptReplay, ReplaysAnOpenMpTaskGraph) {
  const trace::Trace recorded = record_openmp({MOIRAI_OMP_CHOLESKY, "--tiles", "4", "--tile-size", "32"}, "replay");
  ASSERT_EQ(recorded.metadata.at("language"), "OpenMP");
  for (const char* machine : {"sim:2", "sim:8"}) {
    replay::ReplayOptions options;
    options.machine = proto::SimTopology::parse(machine);
    replay::ReplayResult result;
    const trace::Trace replayed = replay_recorded(recorded, options, std::string("omp_") + machine[4], &result);
    SCOPED_TRACE(machine);
    expect_faithful_replay(recorded, replayed);
    EXPECT_EQ(result.placement, replay::Placement::any_core);
    EXPECT_GT(result.makespan_seconds, 0);
  }
}

// share (creator-starvation's what-if where cores already take from one queue) keeps the work
// split drops: the creator keeps 1/N of each named unit, and the tasks it created do the rest.
TEST(OmptReplay, ShareMovesTheCreatorsWorkIntoItsTasks) {
  const trace::Trace recorded =
      record_openmp({MOIRAI_OMP_SCENARIOS, "--scenario", "producer", "--scale", "0.05"}, "share");
  std::vector<std::uint64_t> creator_units;  // the units that ended creating a task, with work
  for (const trace::Unit& unit : recorded.units) {
    if (recorded.construct_role(unit.record.ended_by) == ConstructRole::create && unit.work() > 0) creator_units.push_back(unit.record.unit);
  }
  ASSERT_FALSE(creator_units.empty());
  const auto total_work = [&](replay::Cause cause, const std::string& name) {
    replay::ReplayOptions options;
    options.machine = proto::SimTopology::parse("sim:2");
    if (cause != replay::Cause::none) options.removed = replay::RemovedCause{cause, {}, creator_units};
    const trace::Trace replayed = replay_recorded(recorded, options, name);
    double work = 0;
    for (const trace::Unit& unit : replayed.units) work += static_cast<double>(unit.work());
    return work;
  };
  const double as_is = total_work(replay::Cause::none, "share_as_is");
  const double shared = total_work(replay::Cause::share, "share_share");
  const double split = total_work(replay::Cause::split, "share_split");
  EXPECT_NEAR(shared, as_is, 0.01 * as_is) << "share keeps the work";
  EXPECT_LT(split, 0.9 * as_is) << "split drops half of the creator's work";
  EXPECT_EQ(replay::cause_text(replay::parse_cause("share:3,4")), "share:3,4");
  EXPECT_THROW(replay::parse_cause("share"), std::invalid_argument);
}

}  // namespace
}  // namespace moirai::test

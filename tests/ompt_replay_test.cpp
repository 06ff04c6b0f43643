// An OpenMP run recorded through OMPT replays like any other trace: the same units and
// constraints on a simulated machine of the recorded cores and of more.
#include <gtest/gtest.h>

#include <string>

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

}  // namespace
}  // namespace moirai::test

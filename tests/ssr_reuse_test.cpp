// A VP that ended lends its fiber and stack (a hull) to a VP created later. The new VP must start
// as if from nothing: its own identity, the assigner's placement of a new VP (not the core the
// hull's VP ran on last); a body's captures go when its VP ends; a deadlock report names the
// blocked VPs only, never a hull.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "moirai/proto_runtime/errors.h"
#include "moirai/ssr/ssr.h"
#include "support/ssr_support.h"
#include "support/test_support.h"

namespace moirai::test {
namespace {

using ssr::Context;
using ssr::VpRef;

class SsrReuse : public CoreCountTest {};

// create_one_by_one creates `count` children, each after the one before has sent to the seed
// (pinned to `core`, or placed by the assigner); each child records itself and its core.
void create_one_by_one(Context& ctx, int count, CoreId core, std::vector<VpRef>& created,
                       std::vector<VpRef>& seen, std::set<CoreId>& cores_used) {
  const VpRef seed = ctx.self();
  for (int i = 0; i < count; ++i) {
    created.push_back(ctx.create_vp(
        [&seen, &cores_used, seed](Context& me) {
          seen.push_back(me.self());
          cores_used.insert(me.core());
          me.send_from_to(seed, 1);
        },
        ssr::CreateOptions{.name = "child", .core = core}));
    EXPECT_EQ(ctx.receive_from_to<int>(created.back()), 1);
  }
}

// Unpinned children, one at a time: each is placed round robin like any new VP, so together they
// visit every core, however few hulls they ran in.
TEST_P(SsrReuse, AVpCreatedIntoAHullIsPlacedAndNamedAsANewVp) {
  constexpr int kChildren = 64;
  std::vector<VpRef> created;
  std::vector<VpRef> seen;
  std::set<CoreId> cores_used;
  const proto::RunStats stats = run_ssr(cores(), [&](Context& ctx) {
    create_one_by_one(ctx, kChildren, kAnyCore, created, seen, cores_used);
  });
  EXPECT_EQ(seen, created);  // each child is the VP its creation named
  EXPECT_EQ(std::set<VpRef>(seen.begin(), seen.end()).size(), static_cast<std::size_t>(kChildren));
  EXPECT_EQ(cores_used.size(), std::min<std::size_t>(cores(), kChildren));
  EXPECT_EQ(stats.vps_created, kChildren + 1u);
  EXPECT_LE(stats.vps_reused, kChildren - 1u);
}

// Children on the seed's core: a child that sent runs on (first in the core's queue) to its end
// before the seed goes on, so each child after the first runs in the hull of the one before.
TEST_P(SsrReuse, EachChildAfterTheFirstRunsInTheHullOfTheOneBefore) {
  constexpr int kChildren = 32;
  std::vector<VpRef> created;
  std::vector<VpRef> seen;
  std::set<CoreId> cores_used;
  const proto::RunStats stats = run_ssr(
      cores(), [&](Context& ctx) { create_one_by_one(ctx, kChildren, 0, created, seen, cores_used); },
      ssr::RunOptions{.seed_core = 0});
  EXPECT_EQ(seen, created);
  EXPECT_EQ(cores_used, std::set<CoreId>{0});
  EXPECT_EQ(stats.vps_reused, kChildren - 1u);
}

// A body's captures are destroyed when its VP ends, not when its hull is used again.
TEST_P(SsrReuse, ABodysCapturesGoWhenItsVpEnds) {
  auto token = std::make_shared<int>(7);
  long owners_after_end = 0;
  run_ssr(
      cores(),
      [&](Context& ctx) {
        const VpRef seed = ctx.self();
        const VpRef child = ctx.create_vp(
            [seed, held = token](Context& me) { me.send_from_to(seed, *held); },
            ssr::CreateOptions{.name = "holder", .core = 0});
        EXPECT_EQ(ctx.receive_from_to<int>(child), 7);
        // The child, first in core 0's queue after the match, has ended by now.
        owners_after_end = token.use_count();
      },
      ssr::RunOptions{.seed_core = 0});
  EXPECT_EQ(owners_after_end, 1);
}

// VPs that ended leave hulls behind; a deadlock after them names the two blocked VPs alone.
TEST_P(SsrReuse, ADeadlockReportNamesNoHull) {
  std::vector<proto::BlockedVp> blocked;
  try {
    run_ssr(
        cores(),
        [&](Context& ctx) {
          std::vector<VpRef> created;
          std::vector<VpRef> seen;
          std::set<CoreId> cores_used;
          create_one_by_one(ctx, 8, 0, created, seen, cores_used);
          const VpRef seed = ctx.self();
          const VpRef stuck = ctx.create_vp([seed](Context& me) { (void)me.receive_from_to<int>(seed); },
                                            ssr::CreateOptions{.name = "stuck"});
          (void)ctx.receive_from_to<int>(stuck);
        },
        ssr::RunOptions{.seed_core = 0});
    ADD_FAILURE() << "the run ended without a deadlock";
  } catch (const proto::DeadlockError& error) {
    blocked = error.blocked();
  }
  ASSERT_EQ(blocked.size(), 2u);
  EXPECT_EQ(blocked[0].name, "main");
  EXPECT_EQ(blocked[1].name, "stuck");
  EXPECT_EQ(blocked[1].construct, "receive_from_to");
}

MOIRAI_INSTANTIATE_MACHINES(SsrReuse);

}  // namespace
}  // namespace moirai::test

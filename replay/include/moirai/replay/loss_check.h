// A claimed loss held to its gain: what replay saves when the cause a hint blames is taken away.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "moirai/proto_runtime/cost_model.h"
#include "moirai/replay/replay.h"
#include "moirai/trace/reader.h"

namespace moirai::replay {

// kLossAgreement is how far a claimed loss may lie from the replayed gain and still agree.
inline constexpr double kLossAgreement = 0.15;

// ClaimedLoss is what a report's hint blames and claims, in the report's words (its rule, call
// site, units and binding construct), so that replay needs no view to check it.
struct ClaimedLoss {
  std::string rule;
  std::string site;
  std::vector<std::uint64_t> units;
  std::string construct;
  std::uint64_t lost = 0;  // core-ticks of the trace's clock
};

// LossCheck is one claimed loss beside the gain replay measures without its cause.
struct LossCheck {
  RemovedCause cause;     // none: no what-if for the rule yet
  double claimed_ms = 0;  // core time
  double gained_ms = 0;   // core time: (replayed - replayed without the cause) x cores
  // agrees says whether the claim and the gain lie within kLossAgreement of each other.
  bool agrees() const;
};

// what_if_for is the cause replay takes away to check `claim` on `trace`: cause_for_rule, except
// that a creator's own work is shared out into its tasks (share) where the trace's language
// already lets every core take from one queue, which leaves a placement nothing to change.
RemovedCause what_if_for(const trace::Trace& trace, const ClaimedLoss& claim);

// check_losses replays `trace` on a simulated machine of its cores (recorded placement and
// pinning, the runtime's steps at `costs`), then once per claim without its cause. Throws
// ReplayError for a trace that cannot be replayed.
std::vector<LossCheck> check_losses(const trace::Trace& trace, const std::vector<ClaimedLoss>& claims,
                                    const proto::CostModel& costs = proto::CostModel::default_model());

}  // namespace moirai::replay

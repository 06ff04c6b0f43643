// Each claimed loss against replay's gain without its cause (moirai report --check-losses, the
// OpenMP scenario test).
#include "moirai/replay/loss_check.h"

#include <algorithm>
#include <cmath>

namespace moirai::replay {

bool LossCheck::agrees() const {
  return std::abs(claimed_ms - gained_ms) <= kLossAgreement * std::max(gained_ms, claimed_ms);
}

RemovedCause what_if_for(const trace::Trace& trace, const ClaimedLoss& claim) {
  RemovedCause cause = cause_for_rule(claim.rule, claim.site, claim.units, claim.construct);
  if (cause.cause == Cause::placement && !claim.units.empty() && language_placement(trace) == Placement::any_core) {
    return {Cause::share, {}, claim.units};
  }
  return cause;
}

std::vector<LossCheck> check_losses(const trace::Trace& trace, const std::vector<ClaimedLoss>& claims, const proto::CostModel& costs) {
  ReplayOptions options;
  options.machine = proto::SimTopology{1, trace.core_count};
  options.placement = Placement::recorded;
  options.pinning = Pinning::keep;
  options.costs = costs;
  const auto replayed_ms = [&](const RemovedCause& cause) {
    ReplayOptions with = options;
    with.removed = cause;
    return replay(trace, with).makespan_seconds * 1e3;
  };
  const double as_is = replayed_ms({});
  std::vector<LossCheck> checks;
  for (const ClaimedLoss& claim : claims) {
    LossCheck& check = checks.emplace_back();
    check.cause = what_if_for(trace, claim);
    check.claimed_ms = static_cast<double>(claim.lost) / trace.clock_hz * 1e3;
    if (check.cause.cause == Cause::none) continue;
    check.gained_ms = (as_is - replayed_ms(check.cause)) * static_cast<double>(trace.core_count);
  }
  return checks;
}

}  // namespace moirai::replay

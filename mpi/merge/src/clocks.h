// Clocks: every rank's times put on rank 0's clock (the offsets measured at MPI_Init and
// MPI_Finalize, interpolated linearly between them), then checked against the matching (a
// receive cannot end before its send began, no member leaves a collective before the arrival
// that freed it) and what is still out of order corrected by moving whole ranks forward.
#pragma once

#include <cstdint>
#include <vector>

#include "matching.h"
#include "rank_files.h"

namespace moirai::mpi {

// apply_offsets moves each rank's call times onto rank 0's clock: t - offset(t), the offset
// linear in t between the init and finalize measurements (constant when only one was taken, 0
// when none: a rank on rank 0's host reads rank 0's clock).
void apply_offsets(const std::vector<RankLog>& logs, Matching& matching);

// count_violations is the number of messages and collective instances among `arcs` whose freed
// call returned before the freeing call began.
std::uint64_t count_violations(const Matching& matching, const std::vector<Arc>& arcs);

// ClockCorrection is what correct_clocks did.
struct ClockCorrection {
  std::uint64_t violations = 0;  // before correction
  std::uint64_t left = 0;        // after
  std::vector<std::int64_t> shift;  // ns each rank was moved forward
  std::vector<Arc> collective_arcs;  // the collectives' arcs on the corrected clocks
};

// correct_clocks counts the violations, then moves ranks forward by the least amounts that put
// every arc in order (a longest-path relaxation over the ranks: each rank keeps its own
// intervals, which a per-event correction would stretch), recomputing the collectives' last
// arrivals on the moved clocks; what a cycle of contradictions leaves is counted in `left`.
ClockCorrection correct_clocks(Matching& matching);

}  // namespace moirai::mpi

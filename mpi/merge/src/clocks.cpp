#include "clocks.h"

#include <algorithm>
#include <limits>
#include <set>

namespace moirai::mpi {

namespace {

// kTrustedTripRatio: an offset measured with a round trip this many times the other's is dropped.
constexpr std::uint64_t kTrustedTripRatio = 4;

std::uint64_t moved(std::uint64_t t, std::int64_t by) {
  const auto signed_t = static_cast<std::int64_t>(t) + by;
  return signed_t < 0 ? 0 : static_cast<std::uint64_t>(signed_t);
}

}  // namespace

void apply_offsets(const std::vector<RankLog>& logs, Matching& matching) {
  for (const RankLog& log : logs) {
    auto& calls = matching.calls[log.rank];
    if (!log.offset_init || calls.empty()) continue;
    const double t0 = static_cast<double>(calls.front().exit);
    double o0 = static_cast<double>(log.offset_init->offset);
    double slope = 0;
    if (log.offset_finalize && log.ended && log.finalize_time > calls.front().exit) {
      // A ping-pong's offset is off by up to half its round trip. On a loaded machine one of the
      // two can take a hundred times the other's (a rank that waited for a core): drawing a line
      // through it would tilt the whole rank, so the far better one alone stands for the run.
      const std::uint64_t init_trip = log.offset_init->round_trip, final_trip = log.offset_finalize->round_trip;
      if (init_trip > kTrustedTripRatio * std::max<std::uint64_t>(final_trip, 1)) {
        o0 = static_cast<double>(log.offset_finalize->offset);
      } else if (final_trip <= kTrustedTripRatio * std::max<std::uint64_t>(init_trip, 1)) {
        slope = (static_cast<double>(log.offset_finalize->offset) - o0) / (static_cast<double>(log.finalize_time) - t0);
      }
    }
    const auto offset = [&](std::uint64_t t) { return static_cast<std::int64_t>(o0 + slope * (static_cast<double>(t) - t0)); };
    for (Call& call : calls) {
      call.enter = moved(call.enter, -offset(call.enter));
      call.exit = moved(call.exit, -offset(call.exit));
    }
  }
}

std::uint64_t count_violations(const Matching& matching, const std::vector<Arc>& arcs) {
  std::set<std::uint64_t> messages, instances;
  for (const Arc& arc : arcs) {
    if (matching.calls[arc.to_rank][arc.to_call].exit >= matching.calls[arc.from_rank][arc.from_call].enter) continue;
    (arc.instance != 0 ? instances : messages).insert(arc.instance != 0 ? arc.instance : arc.match);
  }
  return messages.size() + instances.size();
}

ClockCorrection correct_clocks(Matching& matching) {
  const std::size_t ranks = matching.calls.size();
  ClockCorrection result;
  result.shift.assign(ranks, 0);
  result.collective_arcs = arcs_of(matching);
  const auto all_arcs = [&] {
    std::vector<Arc> arcs = matching.messages;
    arcs.insert(arcs.end(), result.collective_arcs.begin(), result.collective_arcs.end());
    return arcs;
  };
  result.violations = count_violations(matching, all_arcs());
  result.left = result.violations;
  constexpr std::int64_t kNoEdge = std::numeric_limits<std::int64_t>::min();
  // Moving a rank changes which member of a collective arrived last: a few rounds settle it.
  for (int round = 0; round < 4 && result.left > 0; ++round) {
    // need[from][to]: rank `to` must be moved at least this much more than rank `from`.
    std::vector<std::int64_t> need(ranks * ranks, kNoEdge);
    for (const Arc& arc : all_arcs()) {
      if (arc.from_rank == arc.to_rank) continue;
      const std::int64_t gap = static_cast<std::int64_t>(matching.calls[arc.from_rank][arc.from_call].enter) -
                               static_cast<std::int64_t>(matching.calls[arc.to_rank][arc.to_call].exit);
      auto& edge = need[arc.from_rank * ranks + arc.to_rank];
      edge = std::max(edge, gap);
    }
    std::vector<std::int64_t> shift(ranks, 0);
    bool changed = true;
    for (std::size_t pass = 0; pass <= ranks && changed; ++pass) {
      changed = false;
      for (std::size_t from = 0; from < ranks; ++from) {
        for (std::size_t to = 0; to < ranks; ++to) {
          const std::int64_t edge = need[from * ranks + to];
          if (edge != kNoEdge && shift[from] + edge > shift[to]) {
            shift[to] = shift[from] + edge;
            changed = true;
          }
        }
      }
    }
    // Still moving after a pass per rank: the arcs ask two ranks each to move past the other
    // (messages both ways between ranks whose offset is off by more than a message's latency),
    // which no shift of whole ranks satisfies; the offsets are left as measured.
    if (changed) break;
    const auto move_all = [&](std::int64_t sign) {
      for (std::size_t r = 0; r < ranks; ++r) {
        if (shift[r] == 0) continue;
        result.shift[r] += sign * shift[r];
        for (Call& call : matching.calls[r]) {
          call.enter = moved(call.enter, sign * shift[r]);
          call.exit = moved(call.exit, sign * shift[r]);
        }
      }
      result.collective_arcs = arcs_of(matching);
      return count_violations(matching, all_arcs());
    };
    const std::uint64_t left = move_all(1);
    // A move that leaves more out of order than it found (a collective's last arrival changed) is
    // taken back: a correction never makes the clocks worse.
    if (left >= result.left) {
      move_all(-1);
      break;
    }
    result.left = left;
  }
  return result;
}

}  // namespace moirai::mpi

#include "trace_writing.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "moirai/trace/builder.h"
#include "moirai/trace/number_text.h"
#include "mpi_language.h"

namespace moirai::mpi {

namespace {

// GlobalSites gives each distinct (file, line, function) of any rank one site id of the trace.
struct GlobalSites {
  std::map<std::tuple<std::string, std::uint32_t, std::string>, std::uint32_t> ids;
  std::vector<std::map<std::uint32_t, std::uint32_t>> of_rank;

  explicit GlobalSites(const std::vector<RankLog>& logs) : of_rank(logs.size()) {
    for (const RankLog& log : logs) {
      for (const auto& [local, site] : log.sites) {
        const auto [at, added] = ids.try_emplace({site.file, site.line, site.function}, static_cast<std::uint32_t>(ids.size() + 1));
        of_rank[log.rank][local] = at->second;
      }
    }
  }
  std::uint32_t of(std::uint32_t rank, std::uint32_t local) const {
    const auto found = of_rank[rank].find(local);
    return found == of_rank[rank].end() ? 0 : found->second;
  }
};

// Span is the trace's span: from the first rank's return from MPI_Init to the last rank's entry
// into MPI_Finalize (a rank cut short: its last call's return). The library's start-up and
// teardown are no unit's overhead and no rank's idle time; `outside` says what they took.
struct Span {
  std::uint64_t start = 0, end = 0;
  std::string outside;
};

Span span_of(const std::vector<std::vector<Call>>& calls) {
  std::uint64_t start = UINT64_MAX, end = 0, init = 0, finalize = 0;
  std::uint32_t init_rank = 0, finalize_rank = 0;
  for (std::uint32_t r = 0; r < calls.size(); ++r) {
    if (calls[r].empty()) continue;
    const Call &first = calls[r].front(), &last = calls[r].back();
    start = std::min(start, first.construct == kInit ? first.exit : first.enter);
    end = std::max(end, last.construct == kFinalize && calls[r].size() > 1 ? last.enter : last.exit);
    if (first.construct == kInit && first.exit - first.enter > init) init = first.exit - first.enter, init_rank = r;
    if (last.construct == kFinalize && last.exit - last.enter > finalize) finalize = last.exit - last.enter, finalize_rank = r;
  }
  if (start == UINT64_MAX) return {};
  const auto ms = [](std::uint64_t ns) { return trace::fixed(static_cast<double>(ns) / 1e6, 3) + " ms"; };
  return {start, std::max(start, end),
          "MPI_Init before the first unit (longest " + ms(init) + ", rank " + std::to_string(init_rank) +
              ") and MPI_Finalize after the last (longest " + ms(finalize) + ", rank " + std::to_string(finalize_rank) + ")"};
}

// Envelopes writes each message's envelope and each collective call's bytes as the trace's message
// records, and defines the communicators they name.
class Envelopes {
 public:
  Envelopes(const Communicators& comms, const Matching& matching)
      : comms_(comms), envelopes_(matching.envelopes), written_(matching.envelopes.size(), false),
        collective_calls_(matching.calls.size()) {
    for (const Instance& in : matching.collectives) {
      if (in.construct == kCommCreate || in.construct == kCommFree) continue;  // its value is a communicator, not bytes
      for (const Member& m : in.members) collective_calls_[m.rank][m.post] = {m.bytes, in.comm};
    }
  }

  // after_unit writes the bytes of the collective call `call` of `rank`, which ended `unit`.
  void after_unit(trace::TraceBuilder& builder, std::uint32_t rank, std::uint32_t call, std::uint64_t unit) {
    const auto found = collective_calls_[rank].find(call);
    if (found == collective_calls_[rank].end()) return;
    builder.collective_call(rank, unit, found->second.first, define(builder, found->second.second));
  }

  // after_constraint writes, on `rank`, the envelope of message `match`, the first time it is named.
  void after_constraint(trace::TraceBuilder& builder, std::uint32_t rank, std::uint64_t match) {
    if (match == 0 || match > envelopes_.size() || written_[match - 1]) return;
    written_[match - 1] = true;
    const Envelope& e = envelopes_[match - 1];
    const std::uint16_t flags = (e.any_source ? trace::kMessageAnySource : 0) | (e.any_tag ? trace::kMessageAnyTag : 0);
    builder.message(rank, match, e.bytes, e.tag, define(builder, e.comm), flags);
  }

 private:
  std::uint32_t define(trace::TraceBuilder& builder, std::uint32_t comm) {
    if (defined_.insert(comm).second) builder.communicator(comm, comms_.members[comm].size(), comms_.names[comm]);
    return comm;
  }

  const Communicators& comms_;
  const std::vector<Envelope>& envelopes_;
  std::vector<bool> written_;  // by match number - 1
  std::vector<std::unordered_map<std::uint32_t, std::pair<std::uint64_t, std::uint32_t>>> collective_calls_;  // rank: call -> bytes, comm
  std::unordered_set<std::uint32_t> defined_;
};

}  // namespace

std::uint64_t write_trace(const std::vector<RankLog>& logs, const Communicators& comms, const Matching& matching,
                          const std::vector<Arc>& arcs, const TraceContent& content) {
  const auto& calls = matching.calls;
  const std::size_t ranks = calls.size();
  // Unit c of a rank runs from call c's exit to call c+1's enter: a rank of n calls has n-1.
  std::vector<std::uint64_t> base(ranks + 1, 0);
  for (std::size_t r = 0; r < ranks; ++r) base[r + 1] = base[r] + (calls[r].empty() ? 0 : calls[r].size() - 1);
  const auto unit_id = [&](std::uint32_t rank, std::uint32_t c) { return base[rank] + c + 1; };

  // A call's constraint is satisfied by the latest of the calls that freed it.
  std::vector<std::vector<std::uint64_t>> satisfied(ranks);
  for (std::size_t r = 0; r < ranks; ++r) {
    satisfied[r].resize(calls[r].size());
    for (std::size_t c = 0; c < calls[r].size(); ++c) satisfied[r][c] = calls[r][c].enter;
    if (!calls[r].empty() && calls[r].front().construct == kInit) satisfied[r][0] = calls[r].front().exit;  // outside the span
  }
  std::vector<const Arc*> freeing;
  freeing.reserve(arcs.size());
  for (const Arc& arc : arcs) {
    const Call& to = calls[arc.to_rank][arc.to_call];
    auto& at = satisfied[arc.to_rank][arc.to_call];
    at = std::max(at, std::min(to.exit, calls[arc.from_rank][arc.from_call].enter));
    if (arc.from_call >= 1 && arc.to_call + 1 < calls[arc.to_rank].size()) freeing.push_back(&arc);
  }
  std::sort(freeing.begin(), freeing.end(), [](const Arc* a, const Arc* b) {
    return std::tie(a->from_rank, a->from_call, a->to_rank, a->to_call) < std::tie(b->from_rank, b->from_call, b->to_rank, b->to_call);
  });

  const Span span = span_of(calls);
  const std::uint64_t start = span.start, end = span.end;

  const LanguageInfo language = mpi_language();
  trace::BuilderOptions options;
  options.cores = static_cast<std::uint32_t>(ranks);
  options.clock_source = "monotonic";
  options.command_line = content.command_line;
  options.language = language.name;
  options.constructs = language.constructs;
  options.choices = language.choices;
  options.metadata = {{"start_ticks", std::to_string(start)}, {"outside_span", span.outside}};
  options.metadata.insert(options.metadata.end(), content.metadata.begin(), content.metadata.end());
  trace::TraceBuilder builder(content.path, std::move(options));

  const GlobalSites sites(logs);
  for (const auto& [key, id] : sites.ids) builder.site(id, std::get<0>(key), std::get<1>(key), std::get<2>(key));
  for (const RankLog& log : logs) {
    builder.vp(log.rank + 1, "rank " + std::to_string(log.rank) + " on " + log.host, log.rank, 0);
  }
  std::uint64_t units = 0;
  Envelopes envelopes(comms, matching);
  auto next = freeing.begin();
  for (std::uint32_t r = 0; r < ranks; ++r) {
    const auto& rc = calls[r];
    for (std::uint32_t c = 1; c < rc.size(); ++c) {
      trace::UnitRecord u{};
      u.ended_by = rc[c].construct;
      u.site = sites.of(r, rc[c].site);
      u.unit = unit_id(r, c - 1);
      u.vp = r + 1;
      u.assign = satisfied[r][c - 1];
      u.begin = rc[c - 1].exit;
      u.end = u.locked = u.handler = u.handler_end = rc[c].enter;
      builder.unit(r, u);
      envelopes.after_unit(builder, r, c, u.unit);
      ++units;
      for (; next != freeing.end() && (*next)->from_rank == r && (*next)->from_call == c; ++next) {
        const Arc& arc = **next;
        builder.constraint(r, arc.construct, u.unit, unit_id(arc.to_rank, arc.to_call), rc[c].enter, arc.match);
        envelopes.after_constraint(builder, r, arc.match);
      }
      if (satisfied[r][c] > rc[c].enter) builder.idle(r, rc[c].enter, satisfied[r][c]);
    }
  }
  builder.finish(end);
  return units;
}

}  // namespace moirai::mpi

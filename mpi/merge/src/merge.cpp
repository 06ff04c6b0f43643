// The merge stage's one entry: read, unify communicators, match, align clocks, write.
#include "moirai/mpi/merge.h"

#include <algorithm>
#include <map>
#include <set>

#include "moirai/trace/number_text.h"

#include "clocks.h"
#include "communicators.h"
#include "matching.h"
#include "record_kinds.h"
#include "rank_files.h"
#include "trace_writing.h"

namespace moirai::mpi {

namespace {

std::string joined(const std::vector<std::string>& items, const char* separator) {
  std::string text;
  for (const std::string& item : items) text += (text.empty() ? "" : separator) + item;
  return text;
}

// topology describes the job as the views print it: "4 ranks on 2 nodes: node-a 0-1, node-b 2-3".
std::string topology(const std::vector<RankLog>& logs, std::uint32_t nodes) {
  std::map<std::string, std::vector<std::int32_t>> ranks_of;
  for (const RankLog& log : logs) ranks_of[log.host].push_back(static_cast<std::int32_t>(log.rank));
  std::vector<std::string> parts;
  for (const auto& [host, ranks] : ranks_of) parts.push_back(host + " " + ranks_text(ranks));
  return std::to_string(logs.size()) + (logs.size() == 1 ? " rank" : " ranks") + " on " + std::to_string(nodes) +
         (nodes == 1 ? " node: " : " nodes: ") + joined(parts, ", ");
}

// collective_constructs is the trace's `collective_constructs`: each collective construct kind
// with the operation an export names it by (kind:operation, ...).
std::string collective_constructs() {
  const std::pair<Construct, const char*> kinds[] = {
      {kBarrier, "barrier"},     {kBcast, "bcast"},         {kReduce, "reduce"},       {kAllreduce, "allreduce"},
      {kGather, "gather"},       {kScatter, "scatter"},     {kAllgather, "allgather"}, {kAlltoall, "alltoall"},
      {kReduceScatter, "reduce_scatter"}, {kScan, "scan"}};
  std::vector<std::string> items;
  for (const auto& [kind, op] : kinds) items.push_back(std::to_string(kind) + ":" + op);
  return joined(items, ",");
}

}  // namespace

// add_run_queue_waits says what the OS took from each rank over the trace's span: the time its
// recording thread waited for a CPU (the kernel's run_delay, read at the recording's start and at
// MPI_Finalize). Per rank, not per unit: the views read it as the OS's share of each core; where a
// rank's kernel gave no reading (or a rank was cut before MPI_Finalize), none is claimed.
void add_run_queue_waits(const std::vector<RankLog>& logs, std::vector<std::pair<std::string, std::string>>& metadata) {
  std::vector<std::string> waited;
  for (const RankLog& log : logs) {
    if (!log.wait_init || !log.wait_finalize || log.wait_finalize->waited < log.wait_init->waited) {
      metadata.emplace_back("os_time", "none: the MPI tool read no OS share for rank " + std::to_string(log.rank) +
                                           " (no run queue wait at MPI_Init and MPI_Finalize: cut short, or the kernel gives none)");
      return;
    }
    waited.push_back(std::to_string(log.wait_finalize->waited - log.wait_init->waited));
  }
  metadata.emplace_back("os_time", "each rank's wait for a CPU over the trace's span (the kernel's run queue wait, "
                                   "/proc/thread-self/schedstat), per rank, not per unit");
  metadata.emplace_back("os_core_run_queue_wait_ns", joined(waited, ","));
}

MergeResult merge_rank_logs(const MergeOptions& options) {
  std::vector<RankLog> logs = read_rank_logs(options.ranks_dir);
  const Communicators comms = unify_communicators(logs);
  Matching matching = match_calls(logs, comms, EagerLimits{options.eager_limit, options.eager_limit_across_nodes});
  apply_offsets(logs, matching);
  const ClockCorrection clocks = correct_clocks(matching);

  MergeResult result;
  result.ranks = static_cast<std::uint32_t>(logs.size());
  std::set<std::string> hosts;
  std::vector<std::string> rank_hosts, cut, shifts;
  std::uint64_t start = UINT64_MAX;
  for (const auto& calls : matching.calls) {
    if (!calls.empty()) start = std::min(start, calls.front().enter);
  }
  for (const RankLog& log : logs) {
    hosts.insert(log.host);
    rank_hosts.push_back(log.host);
    result.warnings.insert(result.warnings.end(), log.warnings.begin(), log.warnings.end());
    if (clocks.shift[log.rank] != 0) shifts.push_back(std::to_string(log.rank) + ":" + std::to_string(clocks.shift[log.rank]));
    if (log.ended) continue;
    const auto& calls = matching.calls[log.rank];
    CutRank c{log.rank, calls.empty() ? 0 : calls.back().exit, log.records.size(), log.cut_why};
    cut.push_back("rank " + std::to_string(c.rank) + " (" + c.why + ", " + std::to_string(c.records) + " records, the last at " +
                  trace::fixed(static_cast<double>(c.last_time - std::min(start, c.last_time)) / 1e6, 3) + " ms)");
    result.cut.push_back(std::move(c));
  }
  result.warnings.insert(result.warnings.end(), matching.warnings.begin(), matching.warnings.end());
  result.nodes = static_cast<std::uint32_t>(hosts.size());
  result.messages = matching.message_count;
  result.collectives = matching.collectives.size();
  result.clock_violations = clocks.violations;
  result.clock_violations_left = clocks.left;

  std::vector<std::string> wildcard_ids;
  for (std::uint64_t id : matching.wildcard_ids) wildcard_ids.push_back(std::to_string(id));
  TraceContent content;
  content.path = options.trace_path;
  content.command_line = options.command_line.empty() ? (logs.front().command.empty() ? "mpi job" : logs.front().command)
                                                      : options.command_line;
  content.metadata = {
      {"mpi.ranks", std::to_string(result.ranks)},
      {"mpi.nodes", std::to_string(result.nodes)},
      {"mpi.rank_hosts", joined(rank_hosts, ",")},
      {"mpi.messages", std::to_string(result.messages)},
      {"mpi.collectives", std::to_string(result.collectives)},
      {"mpi.eager_limit", std::to_string(options.eager_limit)},
      {"mpi.eager_limit_across_nodes", std::to_string(options.eager_limit_across_nodes)},
      {"mpi.unreceived_sends", std::to_string(matching.unreceived_sends)},
      {"mpi.incomplete_collectives", std::to_string(matching.incomplete_collectives)},
      {"mpi.wildcard_matches", std::to_string(matching.wildcard_matches)},
      {"mpi.wildcard_match_ids", joined(wildcard_ids, ",")},
      {"topology", topology(logs, result.nodes)},
      // The keys every view reads for a trace of several clocks and of cores cut short
      // (docs/trace-format.md, "Metadata"); the views know nothing of MPI.
      {"clock_alignment", "offsets to rank 0 at MPI_Init and MPI_Finalize, interpolated linearly (one alone where the other's round trip was over 4 times longer)"},
      {"clock_correction", "ranks moved forward by the least amounts that order every message and collective"},
      {"clock_violations", std::to_string(result.clock_violations)},
      {"clock_violations_left", std::to_string(result.clock_violations_left)},
      {"clock_shifts_ns", joined(shifts, ",")},
      // What the views and exports read without knowing MPI (docs/trace-format.md): the node of
      // each core (rank), and the constructs whose arcs between ranks are messages (a rendezvous
      // arc runs from the receive back to its send, a collective's from its last arrival: neither is).
      {"core_nodes", joined(rank_hosts, ",")},
      {"message_constructs", std::to_string(kSend) + "," + std::to_string(kSendrecv)},
      {"collective_constructs", collective_constructs()},
  };
  if (!cut.empty()) content.metadata.emplace_back("cores_cut", joined(cut, "; "));
  add_run_queue_waits(logs, content.metadata);
  std::vector<Arc> arcs = matching.messages;
  arcs.insert(arcs.end(), clocks.collective_arcs.begin(), clocks.collective_arcs.end());
  result.units = write_trace(logs, comms, matching, arcs, content);
  return result;
}

}  // namespace moirai::mpi

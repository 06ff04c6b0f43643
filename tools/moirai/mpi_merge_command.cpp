#include "mpi_merge_command.h"

#include <iostream>
#include <string>

#include "command.h"
#include "moirai/mpi/merge.h"

namespace moirai::cli {

int mpi_merge_command(const std::vector<std::string_view>& args) {
  Command command("mpi-merge", "usage: moirai mpi-merge DIR -o TRACE [--eager-limit BYTES] [--eager-limit-across-nodes BYTES]\n\n",
                  "Merges the rank logs of one MPI job (the folder MOIRAI_MPI_RANKS_DIR named while it ran,\n"
                  "docs/mpi.md) into one trace every view reads: each rank a core, each stretch between\n"
                  "two MPI calls a unit, each message and collective the constraint that freed a unit.\n"
                  "Messages are matched in order per communicator, source, destination and tag; the\n"
                  "ranks' clocks are put on rank 0's and what is still out of order is corrected.",
                  "A rank whose log ends before MPI_Finalize is kept up to its last whole record and named.");
  command.cli.get_option("TRACE")->description("the rank folder (rank-R.defs and rank-R.events for every rank)")->type_name("DIR");
  command.output_option("the trace to write (required)");
  std::uint64_t eager_limit = 4096;
  command.cli.add_option("--eager-limit", eager_limit,
                         "a send of at most this many bytes to a rank on its node never waits for its receive (default "
                         "4096: Open MPI's shared-memory transport); a larger blocking send is constrained by the receive's post")
      ->type_name("BYTES");
  std::uint64_t eager_limit_across_nodes = 65536;
  command.cli.add_option("--eager-limit-across-nodes", eager_limit_across_nodes,
                         "the same for a send to a rank on another node (default 65536: Open MPI's TCP transport)")
      ->type_name("BYTES");
  if (!command.parse(args)) return 0;
  if (command.output.empty()) throw BadInput("no trace to write (-o TRACE)");
  mpi::MergeOptions options;
  options.ranks_dir = command.trace;
  options.trace_path = command.output;
  options.eager_limit = eager_limit;
  options.eager_limit_across_nodes = eager_limit_across_nodes;
  mpi::MergeResult result;
  try {
    result = mpi::merge_rank_logs(options);
  } catch (const mpi::MergeError& error) {
    throw BadInput(error.what());
  }
  for (const std::string& warning : result.warnings) std::cerr << "moirai: mpi-merge: warning: " << warning << '\n';
  for (const mpi::CutRank& cut : result.cut) {
    std::cerr << "moirai: mpi-merge: rank " << cut.rank << " was cut (" << cut.why << "): kept " << cut.records << " records\n";
  }
  std::cout << command.output << ": " << result.ranks << " ranks on " << result.nodes << " node(s), " << result.units << " units, "
            << result.messages << " messages, " << result.collectives << " collectives, " << result.clock_violations
            << " clock violations (" << result.clock_violations_left << " left after correction)\n";
  return 0;
}

}  // namespace moirai::cli

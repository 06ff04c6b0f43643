// split_wildcard: MPI_Comm_split makes groups of ranks (even and odd world ranks from 4 ranks on;
// one group of all below, still a communicator of its own); every step each
// group's members compute a result and send it to the group's root, which takes them with
// MPI_ANY_SOURCE receives in whatever order they come, then broadcasts the group's sum in the
// group. Planted: the last member of each group computes an extra share, so its root waits in a
// wildcard receive for a late sender (and the others in the group's broadcast). --fixed: the
// extra share is spread over the group's members: the same work, no wait.
#include <vector>

#include "mpi_app.h"

int main(int argc, char** argv) {
  CLI::App cli("split_wildcard: groups made by MPI_Comm_split, results gathered by wildcard receives", "split_wildcard");
  mpi_apps::Flags flags;
  double extra_ms = 10;
  cli.add_option("--extra-ms", extra_ms, "the extra share of each group's last member per step, milliseconds")
      ->check(CLI::Range(0.0, 10000.0))
      ->capture_default_str();
  mpi_apps::parse_or_exit(cli, flags, argc, argv);
  const mpi_apps::World world = mpi_apps::start(argc, argv, "split_wildcard", 2, 2);
  const int groups = world.size >= 4 ? 2 : 1;
  MPI_Comm group = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, world.rank % groups, world.rank, &group);
  int member = 0, members = 0;
  MPI_Comm_rank(group, &member);
  MPI_Comm_size(group, &members);
  bool ok = true;
  std::uint64_t sink = 0;
  const double started = mpi_apps::now_s();
  for (int step = 0; step < flags.steps; ++step) {
    sink += mpi_apps::spin(flags.work_ms);
    if (flags.fixed) {
      sink += mpi_apps::spin(extra_ms / members);
    } else if (member == members - 1) {
      sink += mpi_apps::spin(extra_ms);  // planted: the group's last member's extra share
    }
    long result = static_cast<long>(step) * 100 + member;
    long sum = result;
    if (member == 0) {
      for (int from = 1; from < members; ++from) {
        long got = 0;
        MPI_Status status;
        MPI_Recv(&got, 1, MPI_LONG, MPI_ANY_SOURCE, MPI_ANY_TAG, group, &status);
        ok = ok && got == static_cast<long>(step) * 100 + status.MPI_SOURCE && status.MPI_TAG == step;
        sum += got;
      }
    } else {
      MPI_Send(&result, 1, MPI_LONG, 0, step, group);
    }
    MPI_Bcast(&sum, 1, MPI_LONG, 0, group);
    ok = ok && sum == static_cast<long>(step) * 100 * members + static_cast<long>(members) * (members - 1) / 2;
  }
  MPI_Comm_free(&group);
  return mpi_apps::finish(world, "split_wildcard", flags.fixed ? "fixed" : "planted", flags, started, ok && sink != 1,
                          std::to_string(groups) + (groups == 1 ? " group, " : " groups, ") + std::to_string((world.size - groups) * flags.steps) + " wildcard receives");
}

// barrier_imbalance: every step each rank computes, then all meet in MPI_Barrier. Planted: the
// last rank computes an extra share, so the others wait at the barrier for its late arrival.
// --fixed: the extra share is spread over all ranks: the same work, no wait.
#include "mpi_app.h"

int main(int argc, char** argv) {
  CLI::App cli("barrier_imbalance: the ranks wait at a barrier for the last rank, which has more work", "barrier_imbalance");
  mpi_apps::Flags flags;
  double extra_ms = 10;
  cli.add_option("--extra-ms", extra_ms, "the last rank's extra work per step, milliseconds")
      ->check(CLI::Range(0.0, 10000.0))
      ->capture_default_str();
  mpi_apps::parse_or_exit(cli, flags, argc, argv);
  const mpi_apps::World world = mpi_apps::start(argc, argv, "barrier_imbalance", 2);
  const bool last = world.rank == world.size - 1;
  std::uint64_t sink = 0;
  const double started = mpi_apps::now_s();
  for (int step = 0; step < flags.steps; ++step) {
    sink += mpi_apps::spin(flags.work_ms);
    if (flags.fixed) {
      sink += mpi_apps::spin(extra_ms / world.size);
    } else if (last) {
      sink += mpi_apps::spin(extra_ms);  // planted: the last rank's extra share
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  return mpi_apps::finish(world, "barrier_imbalance", flags.fixed ? "fixed" : "planted", flags, started, sink != 1,
                          std::to_string(flags.steps) + " barriers");
}

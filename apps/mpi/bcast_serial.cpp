// bcast_serial: every step the root computes the step's parameter alone (a serial step) and
// broadcasts it, while the other ranks wait in MPI_Bcast; then all compute with it. Planted: the
// serial step at the root. --fixed: each rank computes its part of the parameter and
// MPI_Allreduce combines them: the same work, shared, no wait.
#include "mpi_app.h"

int main(int argc, char** argv) {
  CLI::App cli("bcast_serial: the root computes alone while the other ranks wait in a broadcast", "bcast_serial");
  mpi_apps::Flags flags;
  double serial_ms = 12;
  cli.add_option("--serial-ms", serial_ms, "the root's serial step, milliseconds")->check(CLI::Range(0.0, 10000.0))->capture_default_str();
  mpi_apps::parse_or_exit(cli, flags, argc, argv);
  const mpi_apps::World world = mpi_apps::start(argc, argv, "bcast_serial", 2);
  bool ok = true;
  std::uint64_t sink = 0;
  const double started = mpi_apps::now_s();
  for (int step = 0; step < flags.steps; ++step) {
    long parameter = 0;
    if (flags.fixed) {
      sink += mpi_apps::spin(serial_ms / world.size);
      long part = step + world.rank;
      MPI_Allreduce(&part, &parameter, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
      parameter -= static_cast<long>(world.size) * (world.size - 1) / 2;  // the parts' rank terms
      parameter = parameter / world.size;
    } else {
      if (world.rank == 0) {
        sink += mpi_apps::spin(serial_ms);  // planted: the root's serial step
        parameter = step;
      }
      MPI_Bcast(&parameter, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    }
    ok = ok && parameter == step;
    sink += mpi_apps::spin(flags.work_ms);
  }
  return mpi_apps::finish(world, "bcast_serial", flags.fixed ? "fixed" : "planted", flags, started, ok && sink != 1,
                          std::to_string(flags.steps) + (flags.fixed ? " allreduces" : " broadcasts"));
}

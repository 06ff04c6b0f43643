// halo_clean: the control. Ranks on a ring exchange a 1 KiB halo with both neighbours every step
// through MPI_Isend/MPI_Irecv and MPI_Waitall, all with the same work: nothing is planted, and a
// recorded run should show no cause of lost time beyond the library's own.
#include <array>

#include "mpi_app.h"

int main(int argc, char** argv) {
  CLI::App cli("halo_clean: a balanced halo exchange on a ring with nonblocking calls (the control: nothing planted)",
               "halo_clean");
  mpi_apps::Flags flags;
  mpi_apps::parse_or_exit(cli, flags, argc, argv, /*has_fix=*/false);
  const mpi_apps::World world = mpi_apps::start(argc, argv, "halo_clean", 2);
  const int left = (world.rank + world.size - 1) % world.size;
  const int right = (world.rank + 1) % world.size;
  std::array<int, 256> to_left{}, to_right{}, from_left{}, from_right{};
  bool ok = true;
  std::uint64_t sink = 0;
  const double started = mpi_apps::now_s();
  for (int step = 0; step < flags.steps; ++step) {
    to_left.fill(step * 1000 + world.rank);
    to_right.fill(step * 1000 + world.rank);
    std::array<MPI_Request, 4> requests{};
    // Tag 0 travels right, tag 1 left, so a 2-rank ring (left == right) still matches by direction.
    MPI_Irecv(from_left.data(), 256, MPI_INT, left, 0, MPI_COMM_WORLD, &requests[0]);
    MPI_Irecv(from_right.data(), 256, MPI_INT, right, 1, MPI_COMM_WORLD, &requests[1]);
    MPI_Isend(to_right.data(), 256, MPI_INT, right, 0, MPI_COMM_WORLD, &requests[2]);
    MPI_Isend(to_left.data(), 256, MPI_INT, left, 1, MPI_COMM_WORLD, &requests[3]);
    MPI_Waitall(4, requests.data(), MPI_STATUSES_IGNORE);
    ok = ok && from_left.front() == step * 1000 + left && from_right.back() == step * 1000 + right;
    sink += mpi_apps::spin(flags.work_ms);
  }
  return mpi_apps::finish(world, "halo_clean", "nothing planted", flags, started, ok && sink != 1,
                          std::to_string(world.size * 2 * flags.steps) + " messages");
}

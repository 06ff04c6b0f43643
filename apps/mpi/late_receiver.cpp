// late_receiver: ranks in pairs (even -> odd). Each step both compute; the even rank sends 64 KiB
// with a blocking MPI_Send (above the shared-memory transport's 4 KiB eager limit, so the send
// cannot finish before its receive is posted); the odd rank receives it. Planted: the receiver
// does a step of its own before posting the receive, so the sender waits in MPI_Send for a late
// receiver. --fixed: that step is shared between the two ranks: the same work, no wait.
#include <vector>

#include "mpi_app.h"

int main(int argc, char** argv) {
  CLI::App cli("late_receiver: a large blocking send waits for its receive, posted late (ranks in pairs, even -> odd)",
               "late_receiver");
  mpi_apps::Flags flags;
  double extra_ms = 16;
  int kib = 64;
  cli.add_option("--extra-ms", extra_ms, "the receiver's own step before its receive, milliseconds")
      ->check(CLI::Range(0.0, 10000.0))
      ->capture_default_str();
  cli.add_option("--kib", kib, "the message, KiB (above 4: no eager send)")->check(CLI::Range(8, 65536))->capture_default_str();
  mpi_apps::parse_or_exit(cli, flags, argc, argv);
  const mpi_apps::World world = mpi_apps::start(argc, argv, "late_receiver", 2, 2);
  const auto [sender, peer] = mpi_apps::pair_of(world);
  std::vector<int> message(static_cast<std::size_t>(kib) * 256);
  bool ok = true;
  std::uint64_t sink = 0;
  const double started = mpi_apps::now_s();
  for (int step = 0; step < flags.steps; ++step) {
    sink += mpi_apps::spin(flags.work_ms);
    if (sender) {
      if (flags.fixed) sink += mpi_apps::spin(extra_ms / 2);
      message.assign(message.size(), step * 1000 + world.rank);
      MPI_Send(message.data(), static_cast<int>(message.size()), MPI_INT, peer, step, MPI_COMM_WORLD);
    } else {
      sink += mpi_apps::spin(flags.fixed ? extra_ms / 2 : extra_ms);  // planted: the receiver's step before its receive
      MPI_Recv(message.data(), static_cast<int>(message.size()), MPI_INT, peer, step, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      ok = ok && message.front() == step * 1000 + peer && message.back() == message.front();
    }
  }
  return mpi_apps::finish(world, "late_receiver", flags.fixed ? "fixed" : "planted", flags, started, ok && sink != 1,
                          std::to_string(world.size / 2 * flags.steps) + " messages of " + std::to_string(kib) + " KiB");
}

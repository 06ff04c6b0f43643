// late_sender: ranks in pairs (even -> odd). Each step both compute; the even rank prepares a
// 1 KiB message (below the eager limit: its send never waits) and sends it; the odd rank receives
// it. Planted: the sender prepares the whole message before sending, so the receiver waits in
// MPI_Recv for a late sender. --fixed: the receiver prepares its half itself, while the sender
// prepares the other half: the same work, no wait.
#include <array>

#include "mpi_app.h"

int main(int argc, char** argv) {
  CLI::App cli("late_sender: a receive waits for a send that begins late (ranks in pairs, even -> odd)", "late_sender");
  mpi_apps::Flags flags;
  double prepare_ms = 16;
  cli.add_option("--prepare-ms", prepare_ms, "the message's preparation per step, milliseconds")
      ->check(CLI::Range(0.0, 10000.0))
      ->capture_default_str();
  mpi_apps::parse_or_exit(cli, flags, argc, argv);
  const mpi_apps::World world = mpi_apps::start(argc, argv, "late_sender", 2, 2);
  const auto [sender, peer] = mpi_apps::pair_of(world);
  std::array<int, 256> message{};
  bool ok = true;
  std::uint64_t sink = 0;
  const double started = mpi_apps::now_s();
  for (int step = 0; step < flags.steps; ++step) {
    sink += mpi_apps::spin(flags.work_ms);
    if (sender) {
      sink += mpi_apps::spin(flags.fixed ? prepare_ms / 2 : prepare_ms);  // planted: the whole preparation before the send
      message.fill(step * 1000 + world.rank);
      MPI_Send(message.data(), static_cast<int>(message.size()), MPI_INT, peer, step, MPI_COMM_WORLD);
    } else {
      if (flags.fixed) sink += mpi_apps::spin(prepare_ms / 2);
      MPI_Recv(message.data(), static_cast<int>(message.size()), MPI_INT, peer, step, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      ok = ok && message.front() == step * 1000 + peer && message.back() == message.front();
    }
  }
  return mpi_apps::finish(world, "late_sender", flags.fixed ? "fixed" : "planted", flags, started, ok && sink != 1,
                          std::to_string(world.size / 2 * flags.steps) + " messages");
}

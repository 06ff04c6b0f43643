// patterns: known communication patterns whose constraints are known exactly, for the tests of the
// merged trace's Unit & Constraint Collection (tests/mpi/): a ring, a 2-D halo exchange on a 2 x 2
// grid, MPI_Waitany and MPI_Waitsome completions, every collective kind (blocking and
// nonblocking), wildcard receives, and a sub-communicator made by MPI_Comm_split. Each pattern runs
// --steps times with a short spin of work between calls and prints what it did; --pattern picks one.
#include <csignal>
#include <array>
#include <map>
#include <numeric>
#include <vector>

#include "mpi_app.h"

namespace {

using mpi_apps::World;

// ring: each step every rank sends one int to rank + 1 and receives from rank - 1 (Sendrecv-free:
// even ranks send first, odd ranks receive first, so blocking calls never deadlock).
bool ring(const World& w, int steps, double work_ms) {
  const int right = (w.rank + 1) % w.size, left = (w.rank + w.size - 1) % w.size;
  bool ok = true;
  for (int step = 0; step < steps; ++step) {
    mpi_apps::spin(work_ms);
    int out = step * 100 + w.rank, in = -1;
    if (w.rank % 2 == 0) {
      MPI_Send(&out, 1, MPI_INT, right, step, MPI_COMM_WORLD);
      MPI_Recv(&in, 1, MPI_INT, left, step, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(&in, 1, MPI_INT, left, step, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(&out, 1, MPI_INT, right, step, MPI_COMM_WORLD);
    }
    ok = ok && in == step * 100 + left;
  }
  return ok;
}

// halo2d: ranks on a 2 x 2 grid (not periodic) exchange with their row and column neighbour
// through Irecv/Isend and Waitall: 2 messages out and 2 in per rank and step.
bool halo2d(const World& w, int steps, double work_ms) {
  const int row_peer = w.rank ^ 1, column_peer = w.rank ^ 2;
  bool ok = true;
  for (int step = 0; step < steps; ++step) {
    mpi_apps::spin(work_ms);
    std::array<int, 2> out{step * 100 + w.rank, step * 100 + w.rank}, in{-1, -1};
    std::array<MPI_Request, 4> requests{};
    MPI_Irecv(&in[0], 1, MPI_INT, row_peer, 1, MPI_COMM_WORLD, &requests[0]);
    MPI_Irecv(&in[1], 1, MPI_INT, column_peer, 2, MPI_COMM_WORLD, &requests[1]);
    MPI_Isend(&out[0], 1, MPI_INT, row_peer, 1, MPI_COMM_WORLD, &requests[2]);
    MPI_Isend(&out[1], 1, MPI_INT, column_peer, 2, MPI_COMM_WORLD, &requests[3]);
    MPI_Waitall(4, requests.data(), MPI_STATUSES_IGNORE);
    ok = ok && in[0] == step * 100 + row_peer && in[1] == step * 100 + column_peer;
  }
  return ok;
}

// waitany_some: rank 0 posts one Irecv from each other rank and completes them with MPI_Waitany
// (even steps) or MPI_Waitsome (odd steps); the others send to it with MPI_Send.
bool waitany_some(const World& w, int steps, double work_ms, long& completions) {
  bool ok = true;
  for (int step = 0; step < steps; ++step) {
    mpi_apps::spin(work_ms * (1 + w.rank));  // distinct arrival order
    if (w.rank != 0) {
      int out = step * 100 + w.rank;
      MPI_Send(&out, 1, MPI_INT, 0, step, MPI_COMM_WORLD);
      continue;
    }
    std::vector<int> in(static_cast<std::size_t>(w.size), -1);
    std::vector<MPI_Request> requests(static_cast<std::size_t>(w.size - 1));
    for (int from = 1; from < w.size; ++from) {
      MPI_Irecv(&in[static_cast<std::size_t>(from)], 1, MPI_INT, from, step, MPI_COMM_WORLD, &requests[static_cast<std::size_t>(from - 1)]);
    }
    for (int done = 0; done < w.size - 1;) {
      if (step % 2 == 0) {
        int index = MPI_UNDEFINED;
        MPI_Waitany(w.size - 1, requests.data(), &index, MPI_STATUS_IGNORE);
        ok = ok && index != MPI_UNDEFINED;
        ++done;
        ++completions;
      } else {
        int count = 0;
        std::vector<int> indices(requests.size());
        MPI_Waitsome(w.size - 1, requests.data(), &count, indices.data(), MPI_STATUSES_IGNORE);
        ok = ok && count > 0;
        done += count;
        completions += count;
      }
    }
    for (int from = 1; from < w.size; ++from) ok = ok && in[static_cast<std::size_t>(from)] == step * 100 + from;
  }
  return ok;
}

// collectives: every collective kind once per step, blocking then nonblocking, each checked.
bool collectives(const World& w, int steps, double work_ms, int& kinds) {
  const auto n = static_cast<std::size_t>(w.size);
  bool ok = true;
  for (int step = 0; step < steps; ++step) {
    kinds = 0;
    const auto call = [&](bool result) { ok = ok && result; ++kinds; mpi_apps::spin(work_ms); };
    const int mine = step + w.rank;
    const int rank_sum = w.size * step + w.size * (w.size - 1) / 2;
    int value = 0;
    std::vector<int> all(n, -1), counts(n, 1), displs(n);
    std::iota(displs.begin(), displs.end(), 0);
    std::vector<int> spread(n);
    for (std::size_t i = 0; i < n; ++i) spread[i] = static_cast<int>(i) + step;
    call(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
    value = w.rank == 0 ? step : -1;
    MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD);
    call(value == step);
    value = -1;
    MPI_Reduce(&mine, &value, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    call(w.rank != 0 || value == rank_sum);
    MPI_Allreduce(&mine, &value, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    call(value == rank_sum);
    MPI_Gather(&mine, 1, MPI_INT, all.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    call(w.rank != 0 || all.back() == step + w.size - 1);
    MPI_Gatherv(&mine, 1, MPI_INT, all.data(), counts.data(), displs.data(), MPI_INT, 0, MPI_COMM_WORLD);
    call(w.rank != 0 || all.front() == step);
    MPI_Scatter(spread.data(), 1, MPI_INT, &value, 1, MPI_INT, 0, MPI_COMM_WORLD);
    call(value == mine);
    MPI_Scatterv(spread.data(), counts.data(), displs.data(), MPI_INT, &value, 1, MPI_INT, 0, MPI_COMM_WORLD);
    call(value == mine);
    MPI_Allgather(&mine, 1, MPI_INT, all.data(), 1, MPI_INT, MPI_COMM_WORLD);
    call(all.back() == step + w.size - 1);
    MPI_Allgatherv(&mine, 1, MPI_INT, all.data(), counts.data(), displs.data(), MPI_INT, MPI_COMM_WORLD);
    call(all.front() == step);
    std::vector<int> to(n, mine), from(n, -1);
    MPI_Alltoall(to.data(), 1, MPI_INT, from.data(), 1, MPI_INT, MPI_COMM_WORLD);
    call(from.back() == step + w.size - 1);
    MPI_Alltoallv(to.data(), counts.data(), displs.data(), MPI_INT, from.data(), counts.data(), displs.data(), MPI_INT,
                  MPI_COMM_WORLD);
    call(from.front() == step);
    MPI_Reduce_scatter(to.data(), &value, counts.data(), MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    call(value == rank_sum);
    MPI_Scan(&mine, &value, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    call(value == (w.rank + 1) * step + w.rank * (w.rank + 1) / 2);
    // The nonblocking forms, each completed by MPI_Wait.
    MPI_Request request;
    MPI_Ibarrier(MPI_COMM_WORLD, &request);
    call(MPI_Wait(&request, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    value = w.rank == 0 ? step : -1;
    MPI_Ibcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD, &request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    call(value == step);
    MPI_Ireduce(&mine, &value, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, &request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    call(w.rank != 0 || value == rank_sum);
    MPI_Iallreduce(&mine, &value, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    call(value == rank_sum);
    MPI_Iallgather(&mine, 1, MPI_INT, all.data(), 1, MPI_INT, MPI_COMM_WORLD, &request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    call(all.back() == step + w.size - 1);
    MPI_Ialltoall(to.data(), 1, MPI_INT, from.data(), 1, MPI_INT, MPI_COMM_WORLD, &request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    call(from.back() == step + w.size - 1);
  }
  return ok;
}

// wildcard: rank 0 receives one message from every other rank per step with MPI_ANY_SOURCE and
// MPI_ANY_TAG, and checks each against the status's source and tag. A fast rank's next step may
// arrive before a slow rank's this step: messages keep their order per source only.
bool wildcard(const World& w, int steps, double work_ms) {
  bool ok = true;
  std::vector<int> received(static_cast<std::size_t>(w.size), 0);  // messages so far, by source
  for (int step = 0; step < steps; ++step) {
    mpi_apps::spin(work_ms);
    if (w.rank != 0) {
      int out = step * 100 + w.rank;
      MPI_Send(&out, 1, MPI_INT, 0, 10 + w.rank, MPI_COMM_WORLD);
      continue;
    }
    for (int i = 1; i < w.size; ++i) {
      int in = -1;
      MPI_Status status;
      MPI_Recv(&in, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &status);
      const int from = status.MPI_SOURCE;
      ok = ok && from > 0 && from < w.size && in == received[static_cast<std::size_t>(from)]++ * 100 + from &&
           status.MPI_TAG == 10 + from;
    }
  }
  return ok;
}

// split: MPI_Comm_split by rank / 2 (world ranks 0,1 and 2,3 on 4 ranks); in each group its rank 1
// sends to its rank 0 (world: 1 -> 0 and 3 -> 2), then an MPI_Allreduce in the group.
bool split(const World& w, int steps, double work_ms) {
  MPI_Comm group = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, w.rank / 2, w.rank, &group);
  int member = 0, members = 0;
  MPI_Comm_rank(group, &member);
  MPI_Comm_size(group, &members);
  bool ok = true;
  for (int step = 0; step < steps; ++step) {
    mpi_apps::spin(work_ms);
    int value = step * 100 + w.rank;
    if (members > 1 && member == 1) MPI_Send(&value, 1, MPI_INT, 0, step, group);
    if (members > 1 && member == 0) {
      int in = -1;
      MPI_Recv(&in, 1, MPI_INT, 1, step, group, MPI_STATUS_IGNORE);
      ok = ok && in == step * 100 + w.rank + 1;
    }
    int sum = 0;
    MPI_Allreduce(&member, &sum, 1, MPI_INT, MPI_SUM, group);
    ok = ok && sum == members * (members - 1) / 2;
  }
  MPI_Comm_free(&group);
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App cli("patterns: known MPI communication patterns, for the tests of the merged trace", "patterns");
  mpi_apps::Flags flags;
  flags.steps = 3;
  flags.work_ms = 1;
  std::string pattern = "all";
  const std::vector<std::string> names = {"ring", "halo2d", "waitany", "collectives", "wildcard", "split", "all"};
  cli.add_option("--pattern", pattern, "one pattern, or all")->check(CLI::IsMember(names))->capture_default_str();
  int abort_rank = -1;
  cli.add_option("--abort-rank", abort_rank, "this rank calls MPI_Abort (exit code 7) after the patterns: a job cut short")
      ->check(CLI::NonNegativeNumber);
  int kill_rank = -1;
  cli.add_option("--kill-rank", kill_rank, "this rank kills itself with SIGKILL after the patterns: a rank killed mid-run")
      ->check(CLI::NonNegativeNumber);
  mpi_apps::parse_or_exit(cli, flags, argc, argv, /*has_fix=*/false);
  const World world = mpi_apps::start(argc, argv, "patterns", pattern == "halo2d" || pattern == "all" ? 4 : 2);
  if ((pattern == "halo2d" || pattern == "all") && world.size != 4) {
    if (world.rank == 0) std::cerr << "patterns: error: " << world.size << " ranks: halo2d runs on a 2 x 2 grid, 4 ranks\n";
    MPI_Finalize();
    return 2;
  }
  const auto runs = [&](const char* name) { return pattern == "all" || pattern == name; };
  bool ok = true;
  std::string done;
  const auto said = [&](const std::string& what) { done += (done.empty() ? "" : "; ") + what; };
  const double started = mpi_apps::now_s();
  const std::string per = " per step";
  if (runs("ring")) {
    ok = ring(world, flags.steps, flags.work_ms) && ok;
    said("ring: " + std::to_string(world.size) + " messages" + per);
  }
  if (runs("halo2d")) {
    ok = halo2d(world, flags.steps, flags.work_ms) && ok;
    said("halo2d: 8 messages" + per);
  }
  if (runs("waitany")) {
    long completions = 0;
    ok = waitany_some(world, flags.steps, flags.work_ms, completions) && ok;
    MPI_Bcast(&completions, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    said("waitany: " + std::to_string(completions) + " completions");
  }
  if (runs("collectives")) {
    int kinds = 0;
    ok = collectives(world, flags.steps, flags.work_ms, kinds) && ok;
    said("collectives: " + std::to_string(kinds) + " calls" + per);
  }
  if (runs("wildcard")) {
    ok = wildcard(world, flags.steps, flags.work_ms) && ok;
    said("wildcard: " + std::to_string(world.size - 1) + " receives" + per);
  }
  if (runs("split")) {
    ok = split(world, flags.steps, flags.work_ms) && ok;
    said("split: " + std::to_string(world.size / 2) + " messages" + per);
  }
  if (world.rank == abort_rank) {
    std::fprintf(stderr, "patterns: rank %d calls MPI_Abort\n", world.rank);
    MPI_Abort(MPI_COMM_WORLD, 7);
  }
  if (world.rank == kill_rank) {
    std::fprintf(stderr, "patterns: rank %d kills itself (SIGKILL)\n", world.rank);
    std::raise(SIGKILL);
  }
  return mpi_apps::finish(world, "patterns", pattern, flags, started, ok, done);
}

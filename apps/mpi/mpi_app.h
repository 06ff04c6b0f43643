// What the MPI scenario programs share, so they answer like Moirai's other apps: CLI11 parses
// (before MPI_Init, so --help and bad flags need no MPI runtime), rank 0 alone speaks, bad input
// exits 2; work is a measured spin on the clock, not a sleep, so a recorded run sees a busy rank.
// Plain C++, MPI and CLI11 only: the MPI apps are ordinary MPI programs that include nothing of
// Moirai, recorded through `moirai record -- mpirun ...` (docs/mpi.md).
#pragma once

#include <mpi.h>

#include <time.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

#include <CLI/CLI.hpp>

namespace mpi_apps {

// launched_rank is this process's world rank as the launcher told it (Open MPI, MPICH's Hydra),
// before MPI_Init; 0 when run alone.
inline int launched_rank() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMI_RANK"}) {
    if (const char* value = std::getenv(name)) return std::atoi(value);
  }
  return 0;
}

// Flags are the flags every scenario program takes.
struct Flags {
  int steps = 10;
  double work_ms = 20;  // each rank's work per step
  bool fixed = false;
};

// parse_or_exit adds the shared flags to `cli` and parses: --help printed (by rank 0) exits 0,
// bad input exits 2 naming the flag; neither needs MPI.
inline void parse_or_exit(CLI::App& cli, Flags& flags, int argc, char** argv, bool has_fix = true) {
  cli.add_option("--steps", flags.steps, "steps of the pattern")->check(CLI::Range(1, 100000))->capture_default_str();
  cli.add_option("--work-ms", flags.work_ms, "each rank's work per step, milliseconds")
      ->check(CLI::Range(0.01, 10000.0))
      ->capture_default_str();
  if (has_fix) cli.add_flag("--fixed", flags.fixed, "the same work without the planted cause");
  cli.footer("Exit status: 0 done and checked; 1 the check failed; 2 bad input (a flag, its value, the rank count).");
  try {
    cli.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    if (launched_rank() == 0) std::cout << cli.help() << std::flush;
    std::exit(0);
  } catch (const CLI::ParseError& error) {
    if (launched_rank() == 0) {
      std::cerr << cli.get_name() << ": error: " << error.what() << "\nrun '" << cli.get_name() << " --help' for the flags\n";
    }
    std::exit(2);
  }
}

// World is this rank's place in MPI_COMM_WORLD, after MPI_Init.
struct World {
  int rank = 0;
  int size = 1;
};

// start initialises MPI and checks the rank count: fewer than `min_ranks`, or not a multiple of
// `multiple_of`, is bad input (every rank exits 2, rank 0 saying why).
inline World start(int& argc, char**& argv, const std::string& name, int min_ranks, int multiple_of = 1) {
  MPI_Init(&argc, &argv);
  World world;
  MPI_Comm_rank(MPI_COMM_WORLD, &world.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world.size);
  if (world.size < min_ranks || world.size % multiple_of != 0) {
    if (world.rank == 0) {
      std::cerr << name << ": error: " << world.size << " ranks: needs at least " << min_ranks
                << (multiple_of > 1 ? ", a multiple of " + std::to_string(multiple_of) : std::string()) << " (mpirun -np N)\n";
    }
    MPI_Finalize();
    std::exit(2);
  }
  return world;
}

// Pair is this rank's side in a program of pairs (even rank -> odd rank).
struct Pair {
  bool sender = false;  // the even rank
  int peer = 0;         // the other rank of the pair
};

// pair_of is this rank's side when ranks work in pairs.
inline Pair pair_of(const World& world) {
  const bool sender = world.rank % 2 == 0;
  return {sender, sender ? world.rank + 1 : world.rank - 1};
}

// now_s is the monotonic clock in seconds.
inline double now_s() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// spin keeps this rank busy for `ms` milliseconds of the clock and returns a value that depends
// on the work done (so the loop is not removed). Measured, not counted: the same on a loaded
// machine, where ranks share cores.
inline std::uint64_t spin(double ms) {
  const double until = now_s() + ms * 1e-3;
  std::uint64_t value = 0x9e3779b97f4a7c15ULL;
  while (now_s() < until) {
    for (int i = 0; i < 64; ++i) value = value * 6364136223846793005ULL + 1442695040888963407ULL;
  }
  return value;
}

// finish prints rank 0's line (name, variant, ranks, steps, the run's seconds and `result`),
// finalizes MPI and gives the exit status (1 when `ok` is false on any rank).
inline int finish(const World& world, const std::string& name, const std::string& variant, const Flags& flags,
                  double started_s, bool ok, const std::string& result) {
  const double seconds = now_s() - started_s;
  int all_ok = ok ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (world.rank == 0) {
    std::printf("%s (%s): %d ranks, %d steps of %.3g ms, %.3f s; %s\ncheck: %s\n", name.c_str(), variant.c_str(), world.size,
                flags.steps, flags.work_ms, seconds, result.c_str(), all_ok ? "ok" : "FAILED");
    std::fflush(stdout);
  }
  MPI_Finalize();
  return all_ok ? 0 : 1;
}

}  // namespace mpi_apps

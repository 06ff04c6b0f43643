// omp_cholesky: the tiled Cholesky factorisation as OpenMP tasks with depend clauses.
//
// The same algorithm, task order and tile kernels (../cholesky/tiles.cpp) as the VSs app
// `cholesky`: for k = 0 .. T-1, potrf on tile (k,k), trsm on each tile (i,k) below it, then syrk on
// each diagonal tile (i,i) and gemm on each tile (i,j) with k < j < i. Each task names the tiles
// it reads (in) and updates (inout); the OpenMP runtime orders the tasks from those clauses alone.
// One thread creates every task (parallel + single); the team runs them.
//
// --gate holds the first task, potrf(0,0), until every task has been created, so that every
// dependence is still pending when its task is created: a tool that sees only the dependences on
// unfinished tasks (OMPT) then sees the whole task graph, however the threads are scheduled.
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <thread>

#include "omp_cli.h"
#include "tiles.h"

namespace {

using moirai::cholesky::Tiles;

// The tiles of an n x n matrix, the tiled copy and the reference factor take n^2 doubles each.
constexpr std::size_t kMaxOrder = 4096;
// 181 tiles would make 1,004,731 tasks: past the million Moirai's own apps refuse.
constexpr std::size_t kMaxTiles = 180;
// The gate gives up after this long (a creating thread descheduled for longer is no reason to hang).
constexpr std::chrono::seconds kGateBound{10};

// Counts are taken as the tasks run, one counter per kernel.
struct Counts {
  std::atomic<std::uint64_t> potrf{0}, trsm{0}, syrk{0}, gemm{0};
};

// Gate holds potrf(0,0) until the creating thread has created the last task.
struct Gate {
  bool enabled = false;
  std::atomic<bool> all_created{false};
  std::atomic<bool> gave_up{false};

  void wait() {
    // One thread alone runs each task as it creates it: nothing could open the gate.
    if (!enabled || omp_get_num_threads() < 2) return;
    const auto deadline = std::chrono::steady_clock::now() + kGateBound;
    while (!all_created.load(std::memory_order_acquire)) {
      if (std::chrono::steady_clock::now() > deadline) {
        gave_up.store(true);
        return;
      }
      std::this_thread::yield();  // the creating thread may share this core
    }
  }
};

// One function per kernel, each creating its task on its own line, so each kernel's tasks have
// their own call site.
[[gnu::noinline]] void create_potrf(Tiles& a, std::size_t k, Counts& count, Gate& gate) {
  double* const akk = a.tile(k, k);
  const std::size_t b = a.tile_size();
#pragma omp task default(none) firstprivate(akk, b, k) shared(count, gate) depend(inout : akk[0])
  {
    if (k == 0) gate.wait();
    moirai::cholesky::potrf(akk, b);
    ++count.potrf;
  }
}

[[gnu::noinline]] void create_trsm(Tiles& a, std::size_t i, std::size_t k, Counts& count) {
  const double* const akk = a.tile(k, k);
  double* const aik = a.tile(i, k);
  const std::size_t b = a.tile_size();
#pragma omp task default(none) firstprivate(akk, aik, b) shared(count) depend(in : akk[0]) depend(inout : aik[0])
  {
    moirai::cholesky::trsm(akk, aik, b);
    ++count.trsm;
  }
}

[[gnu::noinline]] void create_syrk(Tiles& a, std::size_t i, std::size_t k, Counts& count) {
  const double* const aik = a.tile(i, k);
  double* const aii = a.tile(i, i);
  const std::size_t b = a.tile_size();
#pragma omp task default(none) firstprivate(aik, aii, b) shared(count) depend(in : aik[0]) depend(inout : aii[0])
  {
    moirai::cholesky::syrk(aik, aii, b);
    ++count.syrk;
  }
}

[[gnu::noinline]] void create_gemm(Tiles& a, std::size_t i, std::size_t j, std::size_t k, Counts& count) {
  const double* const aik = a.tile(i, k);
  const double* const ajk = a.tile(j, k);
  double* const aij = a.tile(i, j);
  const std::size_t b = a.tile_size();
#pragma omp task default(none) firstprivate(aik, ajk, aij, b) shared(count) \
    depend(in : aik[0], ajk[0]) depend(inout : aij[0])
  {
    moirai::cholesky::gemm(aik, ajk, aij, b);
    ++count.gemm;
  }
}

// factorise creates every task of the right-looking tiled algorithm, in the VSs app's order.
void factorise(Tiles& a, Counts& count, Gate& gate) {
  const std::size_t t = a.tiles();
#pragma omp parallel default(none) shared(a, count, gate, t)
#pragma omp single
  {
    for (std::size_t k = 0; k < t; ++k) {
      create_potrf(a, k, count, gate);
      for (std::size_t i = k + 1; i < t; ++i) create_trsm(a, i, k, count);
      for (std::size_t i = k + 1; i < t; ++i) {
        create_syrk(a, i, k, count);
        for (std::size_t j = k + 1; j < i; ++j) create_gemm(a, i, j, k, count);
      }
    }
    gate.all_created.store(true, std::memory_order_release);
  }  // the single's barrier: the team runs the tasks
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t tiles = 16;
  std::size_t tile_size = 128;
  std::uint64_t seed = 1;
  bool check = false;
  Gate gate;

  CLI::App cli(
      "Factorises a random symmetric positive definite matrix A = L L^T by tiles with OpenMP tasks:\n"
      "potrf, trsm, syrk and gemm on T x T tiles of B x B doubles, ordered by their depend clauses.\n"
      "Threads: OMP_NUM_THREADS.",
      "omp_cholesky");
  cli.add_option("--tiles", tiles, "T, the matrix is T x T tiles")->check(omp_apps::whole(1, kMaxTiles))->capture_default_str();
  cli.add_option("--tile-size", tile_size, "B, each tile is B x B doubles")->check(omp_apps::whole(1, kMaxOrder))->capture_default_str();
  cli.add_option("--seed", seed, "seeds the random matrix")->check(omp_apps::whole(0, INT64_MAX))->capture_default_str();
  cli.add_flag("--check", check, "compare L with a sequential unblocked factorisation");
  cli.add_flag("--gate", gate.enabled,
               "hold potrf(0,0) until every task is created (at most 10 s; 2 or more threads)");
  cli.footer(omp_apps::kExitStatus);
  omp_apps::parse_or_exit(cli, argc, argv);
  if (tiles * tile_size > kMaxOrder) {
    omp_apps::refuse(cli, "--tiles " + std::to_string(tiles) + " --tile-size " + std::to_string(tile_size) +
                              ": the matrix would be " + std::to_string(tiles * tile_size) + " x " +
                              std::to_string(tiles * tile_size) + ", larger than " + std::to_string(kMaxOrder) +
                              " x " + std::to_string(kMaxOrder));
  }

  const std::size_t n = tiles * tile_size;
  const moirai::cholesky::Dense input = moirai::cholesky::spd_matrix(n, seed);
  Tiles a = Tiles::from_dense(input, tiles, tile_size);
  Counts count;
  const double start = omp_get_wtime();
  factorise(a, count, gate);
  const double seconds = omp_get_wtime() - start;

  const std::uint64_t t = tiles;
  const std::uint64_t expected = t + t * (t - 1) + t * (t - 1) * (t - 2) / 6;
  const std::uint64_t total = count.potrf + count.trsm + count.syrk + count.gemm;
  std::printf("matrix: %zu x %zu as %zu x %zu tiles of %zu x %zu\n", n, n, tiles, tiles, tile_size, tile_size);
  std::printf("tasks: %llu (potrf %llu, trsm %llu, syrk %llu, gemm %llu)\n",
              static_cast<unsigned long long>(total), static_cast<unsigned long long>(count.potrf.load()),
              static_cast<unsigned long long>(count.trsm.load()), static_cast<unsigned long long>(count.syrk.load()),
              static_cast<unsigned long long>(count.gemm.load()));
  std::printf("threads: %d\ntime: %.4f s\n", omp_get_max_threads(), seconds);
  if (gate.gave_up) {
    std::fprintf(stderr, "omp_cholesky: warning: --gate: the tasks were not all created within %lld s; "
                         "potrf(0,0) went ahead\n", static_cast<long long>(kGateBound.count()));
  }
  if (total != expected) {
    std::printf("tasks: FAILED, expected %llu\n", static_cast<unsigned long long>(expected));
    return omp_apps::finish(cli, 1);
  }
  if (!check) {
    std::printf("check: not requested (use --check)\n");
    return omp_apps::finish(cli, 0);
  }
  const moirai::cholesky::Dense reference = moirai::cholesky::sequential_cholesky(input);
  const moirai::cholesky::Dense factor = a.lower_to_dense();
  double worst = 0.0;
  for (std::size_t i = 0; i < n * n; ++i) worst = std::max(worst, std::fabs(factor.values[i] - reference.values[i]));
  const double tolerance = 1e-10 * static_cast<double>(n + 1);  // as the VSs app's check
  if (worst > tolerance) {
    std::printf("check: FAILED (max error %.3g, tolerance %.3g)\n", worst, tolerance);
    return omp_apps::finish(cli, 1);
  }
  std::printf("check: ok (max error %.3g)\n", worst);
  return omp_apps::finish(cli, 0);
}

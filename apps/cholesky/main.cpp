// cholesky: a blocked Cholesky factorisation in VSs, one task per tile kernel.
//
// Factorises a random symmetric positive definite matrix of --tiles x --tiles tiles of
// --tile-size x --tile-size doubles: potrf, trsm, syrk and gemm tasks that declare the tiles
// they read and update, ordered by VSs from those declarations. --check compares the factor
// with a sequential unblocked factorisation.
#include <cstdint>
#include <cstdio>
#include <string>

#include "cholesky.h"
#include "moirai/program/app.h"

namespace {

// The matrix, its tiled copy and the reference factor each take n^2 doubles.
constexpr std::size_t kMaxOrder = 4096;

}  // namespace

int main(int argc, char** argv) {
  using namespace moirai;
  std::size_t tiles = 8;
  std::size_t tile_size = 64;
  std::uint64_t seed = 1;
  bool check = false;

  program::App app("cholesky",
                   "Factorises a random symmetric positive definite matrix A = L L^T by tiles with "
                   "VSs tasks:\npotrf, trsm, syrk and gemm on T x T tiles of B x B doubles, ordered "
                   "by the tiles each\ntask declares it reads (in) and updates (inout).",
                   /*declares_work=*/true);
  program::Flags& flags = app.flags();
  flags.integer("tiles", tiles, 1, kMaxOrder, "T, the matrix is T x T tiles");
  flags.integer("tile-size", tile_size, 1, kMaxOrder, "B, each tile is B x B doubles");
  flags.integer("seed", seed, 0, UINT64_MAX, "seeds the random matrix");
  flags.toggle("check", check, "compare L with a sequential unblocked factorisation");
  flags.check([&] {
    if (tiles * tile_size > kMaxOrder) {
      throw program::FlagError("--tiles " + std::to_string(tiles) + " --tile-size " +
                               std::to_string(tile_size) + ": the matrix would be " +
                               std::to_string(tiles * tile_size) + " x " +
                               std::to_string(tiles * tile_size) + ", larger than " +
                               std::to_string(kMaxOrder) + " x " + std::to_string(kMaxOrder));
    }
    program::check_task_limit("--tiles " + std::to_string(tiles), cholesky::expected_tasks(tiles).total());
  });
  flags.footer("Limits: at most " + std::to_string(program::kMaxTasksPerRun) +
               " tasks per run (T + T(T-1) + T(T-1)(T-2)/6 for T tiles: --tiles up to 180), a matrix\nof at most " +
               std::to_string(kMaxOrder) + " x " + std::to_string(kMaxOrder) + ".");

  return app.main(argc, argv, [&] {
    cholesky::CholeskyConfig config;
    config.tiles = tiles;
    config.tile_size = tile_size;
    config.seed = seed;
    config.check = check;
    config.observer = app.observer();
    const cholesky::CholeskyResult result = cholesky::run_cholesky(app.machine(), config);
    app.finish();

    const cholesky::TaskCounts& t = result.tasks;
    const auto count = [](std::uint64_t n) { return static_cast<unsigned long long>(n); };
    std::printf("matrix: %zu x %zu as %zu x %zu tiles of %zu x %zu\n", result.n, result.n, tiles,
                tiles, tile_size, tile_size);
    std::printf("tasks: %llu (potrf %llu, trsm %llu, syrk %llu, gemm %llu)\n", count(t.total()),
                count(t.potrf), count(t.trsm), count(t.syrk), count(t.gemm));
    std::printf("cores: %zu\ntime: %.4f s\n", app.cores(), result.seconds);
    if (!(result.tasks == cholesky::expected_tasks(tiles))) {
      std::printf("tasks: FAILED, expected %llu\n", count(cholesky::expected_tasks(tiles).total()));
      return 1;
    }
    if (!result.max_error) {
      std::printf("check: not requested (use --check)\n");
      return 0;
    }
    if (!result.check_passed) {
      std::printf("check: FAILED (max error %.3g, tolerance %.3g)\n", *result.max_error,
                  cholesky::check_tolerance(result.n));
      return 1;
    }
    std::printf("check: ok (max error %.3g)\n", *result.max_error);
    return 0;
  });
}

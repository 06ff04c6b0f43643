#include "cholesky.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <string>

#include "moirai/vss/vss.h"
#include "tiles.h"

namespace moirai::cholesky {

TaskCounts expected_tasks(std::size_t tiles) noexcept {
  const std::uint64_t t = tiles;
  return TaskCounts{t, t * (t - 1) / 2, t * (t - 1) / 2, t * (t - 1) * (t - 2) / 6};
}

double check_tolerance(std::size_t n) noexcept { return 1e-10 * static_cast<double>(n + 1); }

namespace {

// Counters counts the tasks as they run (each task touches one counter once).
struct Counters {
  std::atomic<std::uint64_t> potrf{0}, trsm{0}, syrk{0}, gemm{0};
};

std::string tile_name(const char* kernel, std::size_t i, std::size_t j) {
  return std::string(kernel) + "(" + std::to_string(i) + "," + std::to_string(j) + ")";
}

// submit_factorisation submits every task of the right-looking tiled algorithm.
void submit_factorisation(vss::Context& ctx, Tiles& a, Counters& count, std::uint64_t uniform) {
  using vss::in;
  using vss::inout;
  using vss::region;
  const std::size_t t = a.tiles();
  const std::size_t b = a.tile_size();
  const auto work = [uniform](std::uint64_t flops) { return uniform != 0 ? uniform : flops; };
  ctx.register_blocks(a, t, t, "A");
  for (std::size_t k = 0; k < t; ++k) {
    ctx.submit([&a, &count, k, b, cycles = work(potrf_flops(b))](vss::Context& me) {
      me.charge_work(cycles);
      potrf(a.tile(k, k), b);
      ++count.potrf;
    }, {inout(region(a, k, k))}, {.name = tile_name("potrf", k, k)});
    for (std::size_t i = k + 1; i < t; ++i) {
      ctx.submit([&a, &count, i, k, b, cycles = work(trsm_flops(b))](vss::Context& me) {
        me.charge_work(cycles);
        trsm(a.tile(k, k), a.tile(i, k), b);
        ++count.trsm;
      }, {in(region(a, k, k)), inout(region(a, i, k))}, {.name = tile_name("trsm", i, k)});
    }
    for (std::size_t i = k + 1; i < t; ++i) {
      ctx.submit([&a, &count, i, k, b, cycles = work(syrk_flops(b))](vss::Context& me) {
        me.charge_work(cycles);
        syrk(a.tile(i, k), a.tile(i, i), b);
        ++count.syrk;
      }, {in(region(a, i, k)), inout(region(a, i, i))}, {.name = tile_name("syrk", i, k)});
      for (std::size_t j = k + 1; j < i; ++j) {
        ctx.submit([&a, &count, i, j, k, b, cycles = work(gemm_flops(b))](vss::Context& me) {
          me.charge_work(cycles);
          gemm(a.tile(i, k), a.tile(j, k), a.tile(i, j), b);
          ++count.gemm;
        }, {in(region(a, i, k)), in(region(a, j, k)), inout(region(a, i, j))},
                   {.name = "gemm(" + std::to_string(i) + "," + std::to_string(j) + "," +
                            std::to_string(k) + ")"});
      }
    }
  }
}

}  // namespace

CholeskyResult run_cholesky(proto::Machine& machine, const CholeskyConfig& config) {
  if (config.tiles == 0 || config.tile_size == 0) {
    throw proto::ConfigError("cholesky: the matrix needs at least one tile of at least 1 x 1");
  }
  const std::size_t n = config.tiles * config.tile_size;
  const Dense input = spd_matrix(n, config.seed);
  Tiles a = Tiles::from_dense(input, config.tiles, config.tile_size);
  Counters count;
  CholeskyResult result;
  result.n = n;
  vss::RunOptions options;
  options.observer = config.observer;
  options.seed_name = "cholesky";
  result.stats = vss::run(machine, [&](vss::Context& ctx) {
    const auto start = std::chrono::steady_clock::now();
    submit_factorisation(ctx, a, count, config.uniform_work);
    ctx.taskwait();
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }, options);
  result.tasks = TaskCounts{count.potrf, count.trsm, count.syrk, count.gemm};
  if (config.check) {
    const Dense reference = sequential_cholesky(input);
    const Dense factor = a.lower_to_dense();
    double worst = 0.0;
    for (std::size_t i = 0; i < n * n; ++i) {
      worst = std::max(worst, std::fabs(factor.values[i] - reference.values[i]));
    }
    result.max_error = worst;
    result.check_passed = worst <= check_tolerance(n);
  }
  return result;
}

}  // namespace moirai::cholesky

// VSs against the task dataflow runtimes people use: OpenMP tasks with depend clauses. The same
// tiled Cholesky (apps/cholesky's tiles and kernels, the same task graph) on 1 and 2 cores, and
// the cost of one empty task with two dependences: submit, resolve, run, complete. This file is
// compiled once and linked twice (bench/CMakeLists.txt): moirai_vss_bench runs the OpenMP
// benchmarks on GCC's libgomp, moirai_vss_bench_libomp on LLVM's libomp. bench/vss_vs_omp.sh runs
// both and prints the comparison docs/performance.md quotes.
#include <benchmark/benchmark.h>
#include <omp.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "bench_util.h"
#include "cholesky.h"
#include "moirai/proto_runtime/real_machine.h"
#include "moirai/vss/vss.h"
#include "tiles.h"

namespace {

using namespace moirai;
using bench::Clock;
using bench::OpTally;
using bench::seconds_between;

bool cores_available(benchmark::State& state, std::size_t cores) {
  if (proto::RealMachine::available_cores() >= cores) return true;
  state.SkipWithError(("needs " + std::to_string(cores) + " processing units").c_str());
  return false;
}

// One gemm tile update, the most frequent task: what a task of tile size B costs.
void BM_GemmTile(benchmark::State& state) {
  const auto b = static_cast<std::size_t>(state.range(0));
  cholesky::Tiles t(2, b);
  for (std::size_t i = 0; i < b * b; ++i) t.tile(0, 0)[i] = t.tile(0, 1)[i] = 1e-3 * static_cast<double>(i % 17);
  OpTally tally;
  for (auto _ : state) {
    const Clock::time_point start = Clock::now();
    cholesky::gemm(t.tile(0, 0), t.tile(0, 1), t.tile(1, 1), b);
    tally.add(seconds_between(start, Clock::now()), 1);
    benchmark::ClobberMemory();
  }
  tally.report(state, "gemm tile");
}
BENCHMARK(BM_GemmTile)->ArgName("B")->Arg(48)->Arg(64)->Arg(96)->Arg(128)->Unit(benchmark::kMicrosecond);

// VSs: apps/cholesky's run_cholesky, timed from the seed's start to the end of its taskwait.
void BM_CholeskyVss(benchmark::State& state) {
  const auto tiles = static_cast<std::size_t>(state.range(0));
  const auto cores = static_cast<std::size_t>(state.range(1));
  const auto b = static_cast<std::size_t>(state.range(2));
  if (!cores_available(state, cores)) return;
  OpTally tally;
  for (auto _ : state) {
    proto::RealMachine machine(cores);
    cholesky::CholeskyConfig config;
    config.tiles = tiles;
    config.tile_size = b;
    const cholesky::CholeskyResult result = cholesky::run_cholesky(machine, config);
    state.SetIterationTime(result.seconds);
    tally.add(result.seconds, 1);
  }
  tally.report(state, "factorisation");
}

// OpenMP: the same loop nest, tiles and kernels, each task with the depend clauses of the tiles
// it reads (in) and updates (inout); one thread submits inside `single`, then taskwait. Timed
// from the first submission to the end of the taskwait, the thread team already running.
void BM_CholeskyOmp(benchmark::State& state) {
  const auto tiles = static_cast<std::size_t>(state.range(0));
  const auto cores = static_cast<std::size_t>(state.range(1));
  const auto b = static_cast<std::size_t>(state.range(2));
  if (!cores_available(state, cores)) return;
  const cholesky::Dense input = cholesky::spd_matrix(tiles * b, 1);
  OpTally tally;
  for (auto _ : state) {
    state.PauseTiming();
    cholesky::Tiles a = cholesky::Tiles::from_dense(input, tiles, b);
    state.ResumeTiming();
    double seconds = 0;
#pragma omp parallel num_threads(static_cast<int>(cores)) proc_bind(close)
#pragma omp single
    {
      const Clock::time_point start = Clock::now();
      for (std::size_t k = 0; k < tiles; ++k) {
        double* kk = a.tile(k, k);
#pragma omp task depend(inout : kk[0])
        cholesky::potrf(kk, b);
        for (std::size_t i = k + 1; i < tiles; ++i) {
          double* ik = a.tile(i, k);
#pragma omp task depend(in : kk[0]) depend(inout : ik[0])
          cholesky::trsm(kk, ik, b);
        }
        for (std::size_t i = k + 1; i < tiles; ++i) {
          double* ik = a.tile(i, k);
          double* ii = a.tile(i, i);
#pragma omp task depend(in : ik[0]) depend(inout : ii[0])
          cholesky::syrk(ik, ii, b);
          for (std::size_t j = k + 1; j < i; ++j) {
            double* jk = a.tile(j, k);
            double* ij = a.tile(i, j);
#pragma omp task depend(in : ik[0], jk[0]) depend(inout : ij[0])
            cholesky::gemm(ik, jk, ij, b);
          }
        }
      }
#pragma omp taskwait
      seconds = seconds_between(start, Clock::now());
    }
    state.SetIterationTime(seconds);
    tally.add(seconds, 1);
  }
  tally.report(state, "factorisation");
}

// T = 8 (120 tasks, 56 of them gemm) on 1 and 2 cores at three tile sizes, and T = 16 (816 tasks)
// with B = 128 on 2 cores: issue 27's Cholesky targets are T = 8, B = 64 and T = 16, B = 128.
void cholesky_args(benchmark::internal::Benchmark* b) {
  b->ArgNames({"T", "cores", "B"});
  for (int cores : {1, 2}) {
    for (int tile : {64, 96, 128}) b->Args({8, cores, tile});
  }
  b->Args({16, 2, 128});
  b->UseManualTime()->Unit(benchmark::kMillisecond);
}
BENCHMARK(BM_CholeskyVss)->Apply(cholesky_args);
BENCHMARK(BM_CholeskyOmp)->Apply(cholesky_args);

constexpr int kEmptyTasks = 20000;

// An empty task with two dependences: each task updates x and y, so it waits for the one before
// (two write-after-write edges, one per datum). Submit them all, then taskwait.
void BM_EmptyTaskVss(benchmark::State& state) {
  const auto cores = static_cast<std::size_t>(state.range(0));
  if (!cores_available(state, cores)) return;
  OpTally tally;
  for (auto _ : state) {
    proto::RealMachine machine(cores);
    double seconds = 0;
    vss::run(machine, [&](vss::Context& ctx) {
      int x = 0, y = 0;
      const Clock::time_point start = Clock::now();
      for (int i = 0; i < kEmptyTasks; ++i) {
        ctx.submit([](vss::Context&) {}, {vss::inout(x, "x"), vss::inout(y, "y")}, {.name = "empty"});
      }
      ctx.taskwait();
      seconds = seconds_between(start, Clock::now());
    });
    state.SetIterationTime(seconds);
    tally.add(seconds, kEmptyTasks);
  }
  tally.report(state, "empty task, two dependences");
}
BENCHMARK(BM_EmptyTaskVss)->ArgName("cores")->Arg(1)->Arg(2)->UseManualTime()->Unit(benchmark::kMillisecond);

void BM_EmptyTaskOmp(benchmark::State& state) {
  const auto cores = static_cast<std::size_t>(state.range(0));
  if (!cores_available(state, cores)) return;
  OpTally tally;
  for (auto _ : state) {
    double seconds = 0;
    [[maybe_unused]] int x = 0, y = 0;  // named only by the depend clauses
#pragma omp parallel num_threads(static_cast<int>(cores)) proc_bind(close)
#pragma omp single
    {
      const Clock::time_point start = Clock::now();
      for (int i = 0; i < kEmptyTasks; ++i) {
#pragma omp task depend(inout : x, y)
        {
          benchmark::DoNotOptimize(i);
        }
      }
#pragma omp taskwait
      seconds = seconds_between(start, Clock::now());
    }
    state.SetIterationTime(seconds);
    tally.add(seconds, kEmptyTasks);
  }
  tally.report(state, "empty task, two dependences");
}
BENCHMARK(BM_EmptyTaskOmp)->ArgName("cores")->Arg(1)->Arg(2)->UseManualTime()->Unit(benchmark::kMillisecond);

}  // namespace

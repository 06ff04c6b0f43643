// run_cholesky: a blocked Cholesky factorisation as VSs tasks on the tiles of a matrix.
//
// The seed registers the tiled matrix as T x T blocks and submits, for k = 0 .. T-1, potrf on
// tile (k,k), trsm on each tile (i,k) below it, and the trailing update: syrk on each diagonal
// tile (i,i) and gemm on each tile (i,j) with k < j < i. Every task declares the tiles it reads
// and the one it updates; VSs derives the task graph from those declarations alone.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "moirai/core/runtime_observer.h"
#include "moirai/proto_runtime/machine.h"
#include "moirai/proto_runtime/runtime.h"

namespace moirai::cholesky {

// TaskCounts is how many tasks of each kernel one factorisation runs.
struct TaskCounts {
  std::uint64_t potrf = 0, trsm = 0, syrk = 0, gemm = 0;
  std::uint64_t total() const noexcept { return potrf + trsm + syrk + gemm; }
  friend bool operator==(const TaskCounts&, const TaskCounts&) = default;
};

// expected_tasks is the task count of T x T tiles: T potrf, T(T-1)/2 trsm and syrk,
// T(T-1)(T-2)/6 gemm.
TaskCounts expected_tasks(std::size_t tiles) noexcept;

// check_tolerance is the largest difference from the sequential factor --check accepts.
double check_tolerance(std::size_t n) noexcept;

// CholeskyConfig is one factorisation.
struct CholeskyConfig {
  std::size_t tiles = 8;        // T: the matrix is T x T tiles
  std::size_t tile_size = 64;   // B: each tile is B x B, so n = T B
  std::uint64_t seed = 1;       // seeds the random symmetric positive definite matrix
  bool check = false;           // compare with sequential_cholesky
  RuntimeObserver* observer = nullptr;
  // uniform_work, when not 0, is the work every task declares instead of its kernel's
  // multiply-adds: the critical path's work is then its length in tasks times this (tests).
  std::uint64_t uniform_work = 0;
};

// CholeskyResult is what a factorisation produced and measured.
struct CholeskyResult {
  std::size_t n = 0;
  double seconds = 0.0;          // from the seed's start to the end of its taskwait
  TaskCounts tasks;              // counted as the tasks ran
  std::optional<double> max_error;  // with check: max |L - sequential L|
  bool check_passed = true;
  proto::RunStats stats;
};

// run_cholesky factorises on `machine` (real or simulated); passes the runtime's errors on.
CholeskyResult run_cholesky(proto::Machine& machine, const CholeskyConfig& config);

}  // namespace moirai::cholesky

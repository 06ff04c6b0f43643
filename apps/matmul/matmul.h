// run_matmul: the matrix multiply of the paper's section 3.1, written in SSR.
//
// A divider VP splits C = A x B into row-block pieces and creates one worker VP per piece, each
// pinned to a core by a placement policy. A singleton copy-transposes B once, in whichever worker
// gets there first; every worker then multiplies its rows of A by the shared transposed B, writes
// its rows of C and reports the finished piece with send_of_type_to to a results VP. The results
// VP accumulates the pieces and tells the divider with send_from_to that all are done.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "matrix.h"
#include "placement.h"
#include "moirai/core/ids.h"
#include "moirai/core/runtime_observer.h"
#include "moirai/proto_runtime/machine.h"
#include "moirai/proto_runtime/runtime.h"

namespace moirai::matmul {

// piece_rows is the first row of piece `piece` when `size` rows are cut into `pieces` blocks
// whose sizes differ by at most one; piece i covers [piece_rows(i), piece_rows(i + 1)).
std::size_t piece_rows(std::size_t piece, std::size_t size, std::size_t pieces) noexcept;

// WorkScale is the work each unit declares (ctx.charge_work), for exact runs on a simulated
// machine with declared work: cycles of the 1 GHz default virtual clock. The defaults are
// nanoseconds on the 2-core development VM, fitted from its real runs by
// bench/sim_vs_real.sh fit (docs/cost-model.md). Refitted 2026-11-26 on the Intel Xeon the VM
// now runs on (the AMD EPYC it was first fitted on did half the multiply-adds per ns).
struct WorkScale {
  // The multiply kernel did 5.1 multiply-adds per ns (2.5 on the EPYC, from 1.7 to 3.3).
  std::uint64_t multiply_adds_per_kilocycle = 5150;
  // The copy-transpose misses the cache on every write: 10 ns per entry at size 1920.
  std::uint64_t transpose_cycles_per_entry = 10;
  // The divider's work per worker it creates (the closure, the name, the return to the VP).
  std::uint64_t create_cycles = 1600;
  // The results VP sums about an entry per ns.
  std::uint64_t accumulate_entries_per_cycle = 1;
};
// kWalkthroughScale is the declarations before issue 13 refitted them: the tuning walkthrough
// keeps them with the costs it was written for, so its steps stay the paper's session.
inline constexpr WorkScale kWalkthroughScale{.multiply_adds_per_kilocycle = 4000, .transpose_cycles_per_entry = 1,
                                             .create_cycles = 400, .accumulate_entries_per_cycle = 2};
// piece_cycles is the declared work of multiplying `rows` rows of a `size` x `size` product.
std::uint64_t piece_cycles(std::size_t rows, std::size_t size, const WorkScale& scale = {}) noexcept;
// transpose_cycles is the declared work of the copy-transpose singleton.
std::uint64_t transpose_cycles(std::size_t size, const WorkScale& scale = {}) noexcept;
// accumulate_cycles is the declared work of the results VP summing a piece of `entries` entries.
std::uint64_t accumulate_cycles(std::size_t entries, const WorkScale& scale = {}) noexcept;

// check_tolerance is the largest max_abs_difference from reference_multiply that --check accepts
// for size `n` (entries of A and B lie in [-1, 1), so |C(i,j)| < n).
double check_tolerance(std::size_t n) noexcept;

// kDefaultSize makes a default run take about a second on 2 cores: measured 0.95-1.04 s on 2
// cores and 1.86-1.91 s on 1 core (RelWithDebInfo, 2-core AMD EPYC virtual machine, near idle);
// 0.70-0.76 s on 2 cores of the Intel Xeon the development VM runs on since.
inline constexpr std::size_t kDefaultSize = 1920;

// default_pieces is the piece count when none is given: 4 per core, as the paper ties the piece
// count to the core count, but no more than there are rows.
std::size_t default_pieces(std::size_t cores, std::size_t size) noexcept;

// MatmulConfig is one run of the application.
struct MatmulConfig {
  std::size_t size = kDefaultSize;        // N: A, B and C are N x N
  std::size_t pieces = 0;                 // row blocks, one worker VP each; 1..size, 0 = default_pieces
  std::size_t cores = 0;                  // real cores; 0 = all (ignored with a given machine)
  Placement placement = Placement::round_robin;
  // worker_cores, when not empty, gives the core of every piece instead of `placement`: for code
  // that writes its own distribution loop (the tuning walkthrough's misplaced-brace variant).
  std::vector<CoreId> worker_cores;
  std::optional<CoreId> results_core;     // where the results VP is pinned; default the last core
  std::uint64_t seed = 1;                 // seeds the random A and B
  WorkScale work;                         // what each unit declares
  bool check = false;                     // also compute reference_multiply and compare
  RuntimeObserver* observer = nullptr;  // e.g. a trace recorder
  // on_piece, when set, is called by the results VP as it receives each piece (from its core's
  // thread, inside the run): the piece, the count received so far including it, the core its
  // worker ran on, and the seconds since the divider started. matmul --progress prints it.
  std::function<void(std::size_t piece, std::size_t received, CoreId core, double seconds)> on_piece;
};

// MatmulResult is what a run produced and measured.
struct MatmulResult {
  std::size_t size = 0;
  std::size_t pieces = 0;
  std::size_t cores = 0;
  Placement placement = Placement::round_robin;
  CoreId results_core = 0;
  double seconds = 0.0;        // from the divider's start to its receipt of "all done"
  double gflops = 0.0;         // 2 N^3 / seconds / 1e9
  std::size_t pieces_received = 0;  // counted by the results VP
  double checksum = 0.0;       // sum of every entry of C, accumulated by the results VP
  std::vector<CoreId> piece_cores;  // the core each piece's worker multiplied on
  std::size_t transposes = 0;  // how many times the copy-transpose singleton's block ran
  std::optional<double> max_error;  // with check: max |C - reference|
  bool check_passed = true;    // false only when check found an error above check_tolerance
  proto::RunStats stats;
  Matrix product;              // C
};

// run_matmul runs the application on `config.cores` real cores. Throws proto::ConfigError for a
// configuration that cannot run (size 0, more pieces than rows, results core or cores out of
// range) and passes the runtime's errors (proto::DeadlockError, proto::VpFailure) on unchanged.
MatmulResult run_matmul(const MatmulConfig& config);
// run_matmul runs the application on `machine` (real or simulated); config.cores is ignored.
MatmulResult run_matmul(proto::Machine& machine, const MatmulConfig& config);

}  // namespace moirai::matmul

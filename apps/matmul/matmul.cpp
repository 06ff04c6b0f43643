#include "matmul.h"

#include <algorithm>
#include <chrono>
#include <numeric>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>

#include "moirai/proto_runtime/real_machine.h"
#include "moirai/ssr/ssr.h"

namespace moirai::matmul {

namespace {

using Clock = std::chrono::steady_clock;

// PieceDone is a worker's report that its rows of C are written. It carries a view of those
// rows, not a copy: the results VP reads them where the worker left them.
struct PieceDone {
  std::size_t piece = 0;
  std::size_t row_begin = 0;
  std::size_t row_end = 0;
  CoreId core = 0;
  std::span<const double> rows;
};

// AllDone is the results VP's word to the divider that every piece arrived.
struct AllDone {
  std::size_t pieces = 0;
  double checksum = 0.0;
  std::vector<CoreId> piece_cores;
};

const ssr::MessageType<PieceDone> kPieceDone{"piece done"};

// Problem is what the VPs of one run share: A, B and C outlive it; bt is written once, in the singleton.
struct Problem {
  const Matrix& a;
  const Matrix& b;
  Matrix& c;
  std::size_t pieces;
  const WorkScale& work;
  Matrix bt{};
  ssr::Singleton copy_transpose{"copy-transpose B"};
  std::size_t transposes = 0;
  Clock::time_point start{};  // set by the divider before it creates the other VPs
  const std::function<void(std::size_t, std::size_t, CoreId, double)>* on_piece = nullptr;
};

}  // namespace (the kernel below is matmul's and vss_matmul's: matrix.h declares multiply_rows)
// multiply_row: row i of C = A x B from B's transpose (two contiguous rows; k ascending).
static void multiply_row(const Matrix& a, const Matrix& bt, Matrix& c, std::size_t i) {
  const std::size_t n = a.size();
  const double* a_row = a.row(i).data();
  for (std::size_t j = 0; j < n; ++j) {
    const double* bt_row = bt.row(j).data();
    double sum = 0.0;
    for (std::size_t k = 0; k < n; ++k) sum += a_row[k] * bt_row[k];
    c(i, j) = sum;
  }
}

// multiply_four_rows computes rows i..i+3 of C together: each row of the transpose serves four
// rows of A, four independent sums keep the FPU busy, each over k ascending (as multiply_row).
static void multiply_four_rows(const Matrix& a, const Matrix& bt, Matrix& c, std::size_t i) {
  const std::size_t n = a.size();
  const double* a0 = a.row(i).data();
  const double* a1 = a.row(i + 1).data();
  const double* a2 = a.row(i + 2).data();
  const double* a3 = a.row(i + 3).data();
  for (std::size_t j = 0; j < n; ++j) {
    const double* bt_row = bt.row(j).data();
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    for (std::size_t k = 0; k < n; ++k) {
      const double b = bt_row[k];
      s0 += a0[k] * b;
      s1 += a1[k] * b;
      s2 += a2[k] * b;
      s3 += a3[k] * b;
    }
    c(i, j) = s0;
    c(i + 1, j) = s1;
    c(i + 2, j) = s2;
    c(i + 3, j) = s3;
  }
}

// multiply_rows computes rows [begin, end) of C.
void multiply_rows(const Matrix& a, const Matrix& bt, Matrix& c, std::size_t begin,
                   std::size_t end) {
  std::size_t i = begin;
  for (; i + 4 <= end; i += 4) multiply_four_rows(a, bt, c, i);
  for (; i < end; ++i) multiply_row(a, bt, c, i);
}
namespace {

void worker(ssr::Context& ctx, Problem& problem, std::size_t piece, ssr::VpRef results) {
  const std::size_t n = problem.a.size();
  ctx.singleton(problem.copy_transpose, [&problem, &ctx, n] {
    problem.bt = transpose(problem.b);
    ++problem.transposes;
    ctx.charge_work(transpose_cycles(n, problem.work));
  });
  const std::size_t begin = piece_rows(piece, n, problem.pieces);
  const std::size_t end = piece_rows(piece + 1, n, problem.pieces);
  multiply_rows(problem.a, problem.bt, problem.c, begin, end);
  ctx.charge_work(piece_cycles(end - begin, n, problem.work));
  ctx.send_of_type_to(kPieceDone, results,
                      PieceDone{piece, begin, end, ctx.core(), problem.c.rows(begin, end)});
}

void results(ssr::Context& ctx, const Problem& problem, ssr::VpRef divider) {
  const std::size_t n = problem.a.size();
  std::vector<double> piece_sums(problem.pieces, 0.0);
  std::vector<bool> seen(problem.pieces, false);
  AllDone done;
  done.piece_cores.assign(problem.pieces, kAnyCore);
  for (; done.pieces < problem.pieces; ++done.pieces) {
    const PieceDone piece = ctx.receive_of_type_to(kPieceDone);
    // A bad report is a bug in the app or the runtime; throwing ends the run with a VpFailure.
    if (piece.piece >= problem.pieces || seen[piece.piece] ||
        piece.row_begin != piece_rows(piece.piece, n, problem.pieces) ||
        piece.row_end != piece_rows(piece.piece + 1, n, problem.pieces) ||
        piece.rows.size() != (piece.row_end - piece.row_begin) * n) {
      throw std::logic_error("results: unexpected report for piece " +
                             std::to_string(piece.piece));
    }
    seen[piece.piece] = true;
    piece_sums[piece.piece] = std::accumulate(piece.rows.begin(), piece.rows.end(), 0.0);
    ctx.charge_work(accumulate_cycles(piece.rows.size(), problem.work));
    done.piece_cores[piece.piece] = piece.core;
    if (problem.on_piece != nullptr && *problem.on_piece) {
      (*problem.on_piece)(piece.piece, done.pieces + 1, piece.core,
                          std::chrono::duration<double>(Clock::now() - problem.start).count());
    }
  }
  // Summing per piece, then in piece order, keeps the checksum independent of arrival order.
  done.checksum = std::accumulate(piece_sums.begin(), piece_sums.end(), 0.0);
  ctx.send_from_to(divider, std::move(done));
}

void validate(const MatmulConfig& config, std::size_t cores) {
  if (config.size == 0) throw proto::ConfigError("matmul: size must be at least 1");
  if (config.pieces > config.size) {
    throw proto::ConfigError("matmul: " + std::to_string(config.pieces) + " pieces for " +
                             std::to_string(config.size) + " rows: more pieces than rows");
  }
  if (!config.worker_cores.empty()) {
    const std::size_t pieces = config.pieces != 0 ? config.pieces : default_pieces(cores, config.size);
    if (config.worker_cores.size() != pieces) {
      throw proto::ConfigError("matmul: " + std::to_string(config.worker_cores.size()) + " worker cores given for " +
                               std::to_string(pieces) + " pieces");
    }
    for (CoreId core : config.worker_cores) {
      if (core >= cores) {
        throw proto::ConfigError("matmul: worker core " + std::to_string(core) + " does not exist on " +
                                 std::to_string(cores) + " cores");
      }
    }
  }
  if (config.results_core && *config.results_core >= cores) {
    throw proto::ConfigError("matmul: results core " + std::to_string(*config.results_core) +
                             " does not exist on " + std::to_string(cores) + " cores");
  }
}

}  // namespace

std::size_t default_pieces(std::size_t cores, std::size_t size) noexcept {
  return std::min(4 * cores, size);
}

std::uint64_t piece_cycles(std::size_t rows, std::size_t size, const WorkScale& scale) noexcept {
  return static_cast<std::uint64_t>(rows) * size * size * 1000 / scale.multiply_adds_per_kilocycle;
}

std::uint64_t transpose_cycles(std::size_t size, const WorkScale& scale) noexcept {
  return static_cast<std::uint64_t>(size) * size * scale.transpose_cycles_per_entry;
}

std::uint64_t accumulate_cycles(std::size_t entries, const WorkScale& s) noexcept { return entries / s.accumulate_entries_per_cycle; }

std::size_t piece_rows(std::size_t piece, std::size_t size, std::size_t pieces) noexcept {
  return piece * size / pieces;
}

double check_tolerance(std::size_t n) noexcept {
  // Each entry sums n products of magnitude < 1; a different but valid summation order may
  // differ by a few ulps of n per term, far below this.
  return 1e-12 * static_cast<double>(n);
}

MatmulResult run_matmul(const MatmulConfig& config) {
  proto::RealMachine machine(config.cores);
  return run_matmul(machine, config);
}

MatmulResult run_matmul(proto::Machine& machine, const MatmulConfig& config) {
  const std::size_t cores = machine.core_count();
  validate(config, cores);

  MatmulResult result;
  result.size = config.size;
  result.pieces = config.pieces != 0 ? config.pieces : default_pieces(cores, config.size);
  result.cores = cores;
  result.placement = config.placement;
  result.results_core = config.results_core.value_or(static_cast<CoreId>(cores - 1));

  const Matrix a = random_matrix(config.size, config.seed);
  const Matrix b = random_matrix(config.size, config.seed + 1);
  result.product = Matrix(config.size);
  Problem problem{.a = a, .b = b, .c = result.product, .pieces = result.pieces, .work = config.work};
  problem.on_piece = &config.on_piece;

  const auto divider = [&](ssr::Context& ctx) {
    const Clock::time_point start = Clock::now();
    problem.start = start;
    // The results VP comes first because every worker must name it as its receiver.
    const ssr::VpRef collector = ctx.create_vp(
        [&problem, self = ctx.self()](ssr::Context& c) { results(c, problem, self); },
        {.name = "results", .core = result.results_core});
    for (std::size_t piece = 0; piece < result.pieces; ++piece) {
      ctx.charge_work(config.work.create_cycles);
      ctx.create_vp(
          [&problem, piece, collector](ssr::Context& c) { worker(c, problem, piece, collector); },
          {.name = "worker " + std::to_string(piece),
           .core = config.worker_cores.empty() ? worker_core(config.placement, piece, ctx.core_count())
                                               : config.worker_cores[piece]});
    }
    AllDone done = ctx.receive_from_to<AllDone>(collector);
    result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    result.pieces_received = done.pieces;
    result.checksum = done.checksum;
    result.piece_cores = std::move(done.piece_cores);
  };

  ssr::RunOptions options;
  options.observer = config.observer;
  options.seed_name = "divider";
  options.seed_core = 0;
  result.stats = ssr::run(machine, divider, options);

  result.transposes = problem.transposes;
  const double n = static_cast<double>(config.size);
  if (result.seconds > 0.0) result.gflops = 2.0 * n * n * n / result.seconds / 1e9;
  if (config.check) {
    result.max_error = max_abs_difference(result.product, reference_multiply(a, b));
    result.check_passed = *result.max_error <= check_tolerance(config.size);
  }
  return result;
}

}  // namespace moirai::matmul

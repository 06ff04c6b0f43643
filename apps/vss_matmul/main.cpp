// vss_matmul: the matrix multiply of the paper's section 3.1 as VSs tasks.
//
// The SSR version's VPs become tasks ordered by their data: a copy-transpose task writes B's
// transpose once (the singleton), one task per row-block piece reads A and the transpose and
// writes its rows of C (the workers), and one accumulate task per piece reads those rows and
// adds them to the checksum (the results VP), in piece order since each updates the checksum.
// C is registered as --pieces blocks of rows, so each piece is a datum of its own.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <string>
#include <vector>

#include "matmul.h"
#include "moirai/program/app.h"
#include "moirai/vss/vss.h"

namespace {

using namespace moirai;

constexpr std::size_t kMaxSize = 4096;

// Product is what one multiply shares among its tasks; it outlives the run.
struct Product {
  const matmul::Matrix& a;
  const matmul::Matrix& b;
  matmul::Matrix& c;
  std::size_t pieces;
  matmul::Matrix bt{};
  double checksum = 0.0;
  std::vector<CoreId> piece_cores;
};

void divide(vss::Context& ctx, Product& p) {
  using vss::in;
  using vss::inout;
  using vss::out;
  const std::size_t n = p.a.size();
  ctx.register_blocks(p.c, p.pieces, 1, "C");
  ctx.submit([&p, n](vss::Context& me) {
    p.bt = matmul::transpose(p.b);
    me.charge_work(matmul::transpose_cycles(n));
  }, {in(p.b, "B"), out(p.bt, "Bt")}, {.name = "copy-transpose B"});
  for (std::size_t piece = 0; piece < p.pieces; ++piece) {
    ctx.submit([&p, n, piece](vss::Context& me) {
      const std::size_t begin = matmul::piece_rows(piece, n, p.pieces);
      const std::size_t end = matmul::piece_rows(piece + 1, n, p.pieces);
      matmul::multiply_rows(p.a, p.bt, p.c, begin, end);
      me.charge_work(matmul::piece_cycles(end - begin, n));
      p.piece_cores[piece] = me.core();
    }, {in(p.a, "A"), in(p.bt, "Bt"), out(vss::region(p.c, piece, 0))},
               {.name = "piece " + std::to_string(piece)});
  }
  for (std::size_t piece = 0; piece < p.pieces; ++piece) {
    ctx.submit([&p, n, piece](vss::Context& me) {
      const auto rows = p.c.rows(matmul::piece_rows(piece, n, p.pieces),
                                 matmul::piece_rows(piece + 1, n, p.pieces));
      p.checksum += std::accumulate(rows.begin(), rows.end(), 0.0);
      me.charge_work(matmul::accumulate_cycles(rows.size()));
    }, {in(vss::region(p.c, piece, 0)), inout(p.checksum, "checksum")},
               {.name = "accumulate " + std::to_string(piece)});
  }
  ctx.taskwait();
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t size = 512;
  std::size_t pieces = 0;  // 0: not given, matmul::default_pieces
  std::uint64_t seed = 1;
  bool check = false;

  program::App app("vss_matmul",
                   "Multiplies two random N x N matrices with VSs tasks, the paper's section 3.1 "
                   "program as\ndataflow: a copy-transpose task, one task per row-block piece of "
                   "C = A x B and one\naccumulate task per piece, ordered by the data they declare.",
                   /*declares_work=*/true);
  program::Flags& flags = app.flags();
  flags.integer("size", size, 1, kMaxSize, "N, the matrices are N x N");
  flags.integer("pieces", pieces, 1, kMaxSize, "row-block pieces, one task each",
                "4 x cores, at most --size");
  flags.integer("seed", seed, 0, UINT64_MAX, "seeds the random A and B");
  flags.toggle("check", check, "compare C with a plain triple-loop multiply");
  flags.check([&] {
    if (pieces > size) {
      throw program::FlagError("--pieces " + std::to_string(pieces) +
                               ": more pieces than rows (--size " + std::to_string(size) + ")");
    }
  });

  return app.main(argc, argv, [&] {
    const matmul::Matrix a = matmul::random_matrix(size, seed);
    const matmul::Matrix b = matmul::random_matrix(size, seed + 1);
    matmul::Matrix c(size);
    const std::size_t piece_count = pieces != 0 ? pieces : matmul::default_pieces(app.cores(), size);
    Product product{a, b, c, piece_count, matmul::Matrix{}, 0.0,
                    std::vector<CoreId>(piece_count, kAnyCore)};
    vss::RunOptions options;
    options.observer = app.observer();
    options.seed_name = "divider";
    double seconds = 0.0;
    vss::run(app.machine(), [&](vss::Context& ctx) {
      const auto start = std::chrono::steady_clock::now();
      divide(ctx, product);
      seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }, options);
    app.finish();

    const double n = static_cast<double>(size);
    std::printf("size: %zu\npieces: %zu\ncores: %zu\ntime: %.4f s\nGFLOP/s: %.3f\n", size,
                product.pieces, app.cores(), seconds, seconds > 0 ? 2 * n * n * n / seconds / 1e9 : 0.0);
    std::printf("checksum: %.6g\npiece cores:", product.checksum);
    for (const CoreId core : product.piece_cores) std::printf(" %u", static_cast<unsigned>(core));
    std::printf("\n");
    if (!check) {
      std::printf("check: not requested (use --check)\n");
      return 0;
    }
    const double error = matmul::max_abs_difference(c, matmul::reference_multiply(a, b));
    const bool ok = error <= matmul::check_tolerance(size);
    std::printf(ok ? "check: ok (max error %.3g)\n" : "check: FAILED (max error %.3g, tolerance %.3g)\n",
                error, matmul::check_tolerance(size));
    return ok ? 0 : 1;
  });
}

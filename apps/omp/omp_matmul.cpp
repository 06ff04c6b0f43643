// omp_matmul: C = A x B by blocks as OpenMP tasks.
//
// C is cut into square blocks of --block x --block elements (the last row and column of blocks
// take what is left); one thread creates a task per block (parallel + single), each task computes
// its block from a row band of A and a column band of B, and a taskwait ends the multiply. The
// matrices hold small whole numbers, so every sum is exact and --check compares C with the plain
// triple loop element for element.
#include <omp.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "omp_cli.h"

namespace {

// The three matrices take 3 n^2 doubles: at most 400 MB.
constexpr std::size_t kMaxSize = 4096;
// Past a million tasks, as Moirai's own apps refuse.
constexpr std::uint64_t kMaxTasks = 1'000'000;

// Matrix is n x n doubles, row-major.
struct Matrix {
  std::size_t n;
  std::vector<double> values;
  explicit Matrix(std::size_t size) : n(size), values(size * size, 0.0) {}
  double& operator()(std::size_t i, std::size_t j) noexcept { return values[i * n + j]; }
  double operator()(std::size_t i, std::size_t j) const noexcept { return values[i * n + j]; }
};

// filled holds whole numbers in -3..3, so products and sums stay exact in doubles.
Matrix filled(std::size_t n, std::size_t salt) {
  Matrix m(n);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) m(i, j) = static_cast<double>((i * 7 + j * 3 + salt) % 7) - 3.0;
  }
  return m;
}

// multiply_block computes rows [r0, r1) x columns [c0, c1) of C = A x B.
void multiply_block(const Matrix& a, const Matrix& b, Matrix& c, std::size_t r0, std::size_t r1, std::size_t c0,
                    std::size_t c1) {
  for (std::size_t i = r0; i < r1; ++i) {
    for (std::size_t k = 0; k < a.n; ++k) {
      const double aik = a(i, k);
      for (std::size_t j = c0; j < c1; ++j) c(i, j) += aik * b(k, j);
    }
  }
}

// multiply creates one task per block of C and waits for them all.
void multiply(const Matrix& a, const Matrix& b, Matrix& c, std::size_t block) {
  const std::size_t n = a.n;
#pragma omp parallel default(none) shared(a, b, c, n, block)
#pragma omp single
  {
    for (std::size_t r0 = 0; r0 < n; r0 += block) {
      for (std::size_t c0 = 0; c0 < n; c0 += block) {
#pragma omp task default(none) firstprivate(r0, c0) shared(a, b, c, n, block)
        multiply_block(a, b, c, r0, std::min(r0 + block, n), c0, std::min(c0 + block, n));
      }
    }
#pragma omp taskwait
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t size = 1024;
  std::size_t block = 64;
  bool check = false;

  CLI::App cli(
      "Multiplies two N x N matrices, C = A x B, with one OpenMP task per block of C.\n"
      "Threads: OMP_NUM_THREADS.",
      "omp_matmul");
  cli.add_option("--size", size, "N, the matrices are N x N doubles")->check(omp_apps::whole(1, kMaxSize))->capture_default_str();
  cli.add_option("--block", block, "each task computes a block of C of this many rows and columns")
      ->check(omp_apps::whole(1, kMaxSize))
      ->capture_default_str();
  cli.add_flag("--check", check, "compare C with the plain triple loop");
  cli.footer(omp_apps::kExitStatus);
  omp_apps::parse_or_exit(cli, argc, argv);
  const std::uint64_t bands = (size + block - 1) / block;
  if (bands * bands > kMaxTasks) {
    omp_apps::refuse(cli, "--size " + std::to_string(size) + " --block " + std::to_string(block) + ": " +
                              std::to_string(bands * bands) + " tasks, more than " + std::to_string(kMaxTasks));
  }

  const Matrix a = filled(size, 1);
  const Matrix b = filled(size, 4);
  Matrix c(size);
  const double start = omp_get_wtime();
  multiply(a, b, c, block);
  const double seconds = omp_get_wtime() - start;

  std::printf("matrix: %zu x %zu, blocks of %zu x %zu\n", size, size, block, block);
  std::printf("tasks: %llu\nthreads: %d\ntime: %.4f s\n", static_cast<unsigned long long>(bands * bands),
              omp_get_max_threads(), seconds);
  if (!check) {
    std::printf("check: not requested (use --check)\n");
    return omp_apps::finish(cli, 0);
  }
  Matrix reference(size);
  multiply_block(a, b, reference, 0, size, 0, size);
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < c.values.size(); ++i) wrong += c.values[i] != reference.values[i] ? 1 : 0;
  if (wrong != 0) {
    std::printf("check: FAILED (%zu of %zu elements differ from the triple loop)\n", wrong, c.values.size());
    return omp_apps::finish(cli, 1);
  }
  std::printf("check: ok (every element equals the triple loop's)\n");
  return omp_apps::finish(cli, 0);
}

// Matrix: the square, row-major matrix of doubles the matmul app multiplies.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace moirai::matmul {

// Matrix is an n x n matrix of doubles stored row by row, so a row is contiguous memory.
class Matrix {
 public:
  Matrix() = default;
  // Matrix makes an n x n matrix of zeros.
  explicit Matrix(std::size_t n) : n_(n), values_(n * n, 0.0) {}

  std::size_t size() const noexcept { return n_; }
  double& operator()(std::size_t row, std::size_t column) noexcept { return values_[row * n_ + column]; }
  double operator()(std::size_t row, std::size_t column) const noexcept {
    return values_[row * n_ + column];
  }
  // row is row `r` as contiguous memory.
  std::span<double> row(std::size_t r) noexcept { return {values_.data() + r * n_, n_}; }
  std::span<const double> row(std::size_t r) const noexcept { return {values_.data() + r * n_, n_}; }
  // rows is rows [begin, end) as one contiguous span.
  std::span<const double> rows(std::size_t begin, std::size_t end) const noexcept {
    return {values_.data() + begin * n_, (end - begin) * n_};
  }

  friend bool operator==(const Matrix&, const Matrix&) = default;

 private:
  std::size_t n_ = 0;
  std::vector<double> values_;
};

// random_matrix is an n x n matrix of values uniform in [-1, 1), reproducible from `seed`.
Matrix random_matrix(std::size_t n, std::uint64_t seed);

// transpose returns the transpose of `m`.
Matrix transpose(const Matrix& m);

// reference_multiply is A x B by a plain triple loop, the yardstick for --check.
Matrix reference_multiply(const Matrix& a, const Matrix& b);

// multiply_rows computes rows [begin, end) of C = A x B from `bt`, B's transpose (the kernel
// of a matmul worker, SSR VP or VSs task).
void multiply_rows(const Matrix& a, const Matrix& bt, Matrix& c, std::size_t begin, std::size_t end);

// max_abs_difference is the largest |x(i,j) - y(i,j)|; both matrices must have the same size.
double max_abs_difference(const Matrix& x, const Matrix& y);

}  // namespace moirai::matmul

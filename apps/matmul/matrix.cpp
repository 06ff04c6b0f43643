#include "matrix.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

namespace moirai::matmul {

namespace {

// multiply_row computes row i of C = A x B from B's transpose: the inner loop walks two
// contiguous rows. The sum runs over k in ascending order, as reference_multiply's does.
void multiply_row(const Matrix& a, const Matrix& bt, Matrix& c, std::size_t i) {
  const std::size_t n = a.size();
  const double* a_row = a.row(i).data();
  for (std::size_t j = 0; j < n; ++j) {
    const double* bt_row = bt.row(j).data();
    double sum = 0.0;
    for (std::size_t k = 0; k < n; ++k) sum += a_row[k] * bt_row[k];
    c(i, j) = sum;
  }
}

// multiply_four_rows computes rows i..i+3 of C together: each row of the transpose it streams
// from cache serves four rows of A, and four independent sums keep the floating-point unit
// busy. Each sum still runs over k in ascending order, so C is the same as with multiply_row.
void multiply_four_rows(const Matrix& a, const Matrix& bt, Matrix& c, std::size_t i) {
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

}  // namespace

Matrix random_matrix(std::size_t n, std::uint64_t seed) {
  // mt19937_64 and a hand-made scaling keep the values identical across standard libraries,
  // which uniform_real_distribution does not promise.
  std::mt19937_64 engine(seed);
  Matrix m(n);
  for (std::size_t i = 0; i < n; ++i) {
    for (double& value : m.row(i)) {
      value = static_cast<double>(engine() >> 11) * 0x1.0p-52 - 1.0;
    }
  }
  return m;
}

Matrix transpose(const Matrix& m) {
  const std::size_t n = m.size();
  Matrix t(n);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) t(j, i) = m(i, j);
  }
  return t;
}

Matrix reference_multiply(const Matrix& a, const Matrix& b) {
  if (a.size() != b.size()) throw std::invalid_argument("reference_multiply: sizes differ");
  const std::size_t n = a.size();
  Matrix c(n);
  // The i-k-j order walks rows of B and C, so checking a large product stays quick; each C(i,j)
  // still accumulates its products in ascending k.
  for (std::size_t i = 0; i < n; ++i) {
    const std::span<double> c_row = c.row(i);
    for (std::size_t k = 0; k < n; ++k) {
      const double a_ik = a(i, k);
      const std::span<const double> b_row = b.row(k);
      for (std::size_t j = 0; j < n; ++j) c_row[j] += a_ik * b_row[j];
    }
  }
  return c;
}

double max_abs_difference(const Matrix& x, const Matrix& y) {
  if (x.size() != y.size()) throw std::invalid_argument("max_abs_difference: sizes differ");
  double worst = 0.0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const auto xs = x.row(i);
    const auto ys = y.row(i);
    for (std::size_t j = 0; j < xs.size(); ++j) worst = std::max(worst, std::abs(xs[j] - ys[j]));
  }
  return worst;
}

// multiply_rows computes rows [begin, end) of C.
void multiply_rows(const Matrix& a, const Matrix& bt, Matrix& c, std::size_t begin,
                   std::size_t end) {
  std::size_t i = begin;
  for (; i + 4 <= end; i += 4) multiply_four_rows(a, bt, c, i);
  for (; i < end; ++i) multiply_row(a, bt, c, i);
}

}  // namespace moirai::matmul

#include "matrix.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

namespace moirai::matmul {

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

}  // namespace moirai::matmul

#include "tiles.h"

#include <cmath>
#include <random>

namespace moirai::cholesky {

Dense spd_matrix(std::size_t n, std::uint64_t seed) {
  Dense a(n);
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < i; ++j) a(i, j) = a(j, i) = uniform(random);
    a(i, i) = static_cast<double>(n) + 1.0 + uniform(random);  // beats the row's other n - 1
  }
  return a;
}

Dense sequential_cholesky(const Dense& a) {
  const std::size_t n = a.n;
  Dense l(n);
  for (std::size_t j = 0; j < n; ++j) {
    double diagonal = a(j, j);
    for (std::size_t k = 0; k < j; ++k) diagonal -= l(j, k) * l(j, k);
    l(j, j) = std::sqrt(diagonal);
    for (std::size_t i = j + 1; i < n; ++i) {
      double sum = a(i, j);
      for (std::size_t k = 0; k < j; ++k) sum -= l(i, k) * l(j, k);
      l(i, j) = sum / l(j, j);
    }
  }
  return l;
}

Tiles::Tiles(std::size_t tiles, std::size_t tile_size)
    : tiles_(tiles), size_(tile_size), data_(tiles * tiles, std::vector<double>(tile_size * tile_size)) {}

Tiles Tiles::from_dense(const Dense& a, std::size_t tiles, std::size_t tile_size) {
  Tiles out(tiles, tile_size);
  for (std::size_t i = 0; i < a.n; ++i) {
    for (std::size_t j = 0; j < a.n; ++j) {
      out.tile(i / tile_size, j / tile_size)[(i % tile_size) * tile_size + j % tile_size] = a(i, j);
    }
  }
  return out;
}

Dense Tiles::lower_to_dense() const {
  Dense l(tiles_ * size_);
  for (std::size_t i = 0; i < l.n; ++i) {
    for (std::size_t j = 0; j <= i; ++j) {
      l(i, j) = tile(i / size_, j / size_)[(i % size_) * size_ + j % size_];
    }
  }
  return l;
}

void potrf(double* a, std::size_t b) {
  for (std::size_t j = 0; j < b; ++j) {
    double diagonal = a[j * b + j];
    for (std::size_t k = 0; k < j; ++k) diagonal -= a[j * b + k] * a[j * b + k];
    a[j * b + j] = std::sqrt(diagonal);
    for (std::size_t i = j + 1; i < b; ++i) {
      double sum = a[i * b + j];
      for (std::size_t k = 0; k < j; ++k) sum -= a[i * b + k] * a[j * b + k];
      a[i * b + j] = sum / a[j * b + j];
    }
    for (std::size_t k = j + 1; k < b; ++k) a[j * b + k] = 0.0;
  }
}

void trsm(const double* l, double* a, std::size_t b) {
  // Row r of the result x solves x L^T = a_r, forwards: x_j = (a_rj - sum_k<j x_k L_jk) / L_jj.
  for (std::size_t r = 0; r < b; ++r) {
    double* row = a + r * b;
    for (std::size_t j = 0; j < b; ++j) {
      double sum = row[j];
      for (std::size_t k = 0; k < j; ++k) sum -= row[k] * l[j * b + k];
      row[j] = sum / l[j * b + j];
    }
  }
}

void syrk(const double* a, double* c, std::size_t b) {
  for (std::size_t r = 0; r < b; ++r) {
    for (std::size_t s = 0; s <= r; ++s) {
      double sum = 0.0;
      for (std::size_t k = 0; k < b; ++k) sum += a[r * b + k] * a[s * b + k];
      c[r * b + s] -= sum;
    }
  }
}

void gemm(const double* a, const double* bt, double* c, std::size_t b) {
  for (std::size_t r = 0; r < b; ++r) {
    for (std::size_t s = 0; s < b; ++s) {
      double sum = 0.0;
      for (std::size_t k = 0; k < b; ++k) sum += a[r * b + k] * bt[s * b + k];
      c[r * b + s] -= sum;
    }
  }
}

std::uint64_t potrf_flops(std::size_t b) noexcept { return b * b * b / 6 + b; }
std::uint64_t trsm_flops(std::size_t b) noexcept { return b * b * b / 2 + b; }
std::uint64_t syrk_flops(std::size_t b) noexcept { return b * b * (b + 1) / 2; }
std::uint64_t gemm_flops(std::size_t b) noexcept { return b * b * b; }

}  // namespace moirai::cholesky

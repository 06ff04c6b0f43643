// The tiled matrix Cholesky factorises and its four tile kernels, written plainly (no BLAS).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace moirai::cholesky {

// Dense is an n x n matrix of doubles, row-major: the input and the sequential reference.
struct Dense {
  std::size_t n = 0;
  std::vector<double> values;
  explicit Dense(std::size_t size = 0) : n(size), values(size * size, 0.0) {}
  double& operator()(std::size_t i, std::size_t j) noexcept { return values[i * n + j]; }
  double operator()(std::size_t i, std::size_t j) const noexcept { return values[i * n + j]; }
};

// spd_matrix is a random symmetric, diagonally dominant (so positive definite) n x n matrix,
// reproducible from `seed`.
Dense spd_matrix(std::size_t n, std::uint64_t seed);

// sequential_cholesky returns the lower factor L of `a` (a = L L^T) by the plain unblocked
// algorithm, the yardstick of --check; the upper triangle is zero.
Dense sequential_cholesky(const Dense& a);

// Tiles holds a matrix as T x T tiles of B x B doubles, each tile contiguous (row-major), so a
// task's data is one tile.
class Tiles {
 public:
  Tiles(std::size_t tiles, std::size_t tile_size);
  // from_dense cuts `a` (of size tiles x tile_size) into tiles.
  static Tiles from_dense(const Dense& a, std::size_t tiles, std::size_t tile_size);
  // lower_to_dense joins the tiles on and below the diagonal, with the upper triangle zero.
  Dense lower_to_dense() const;

  std::size_t tiles() const noexcept { return tiles_; }
  std::size_t tile_size() const noexcept { return size_; }
  double* tile(std::size_t i, std::size_t j) noexcept { return data_[i * tiles_ + j].data(); }
  const double* tile(std::size_t i, std::size_t j) const noexcept {
    return data_[i * tiles_ + j].data();
  }

 private:
  std::size_t tiles_;
  std::size_t size_;
  std::vector<std::vector<double>> data_;
};

// The kernels on B x B tiles, named after their LAPACK/BLAS counterparts.
// potrf factorises a diagonal tile in place: a = L L^T, the upper triangle zeroed.
void potrf(double* a, std::size_t b);
// trsm overwrites a with a L^-T, L the lower factor of the diagonal tile `l`.
void trsm(const double* l, double* a, std::size_t b);
// syrk updates a diagonal tile: c -= a a^T (its lower triangle).
void syrk(const double* a, double* c, std::size_t b);
// gemm updates an off-diagonal tile: c -= a b^T.
void gemm(const double* a, const double* bt, double* c, std::size_t b);

// The multiply-adds of each kernel on a tile of size b: the work the tasks declare.
std::uint64_t potrf_flops(std::size_t b) noexcept;
std::uint64_t trsm_flops(std::size_t b) noexcept;
std::uint64_t syrk_flops(std::size_t b) noexcept;
std::uint64_t gemm_flops(std::size_t b) noexcept;

}  // namespace moirai::cholesky

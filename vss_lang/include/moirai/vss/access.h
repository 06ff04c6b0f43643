// The data a task accesses: whole objects and blocks of registered matrices, each read, written
// or both. Dependences between tasks come from these declarations alone.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <memory>
#include <type_traits>
#include <utility>

namespace moirai::vss {

// kWholeObject is the block index of an access to a whole object rather than one of its blocks.
inline constexpr std::size_t kWholeObject = ~std::size_t{0};

// Region names block (row, col) of a matrix that Context::register_blocks cut into blocks; the
// matrix is known by its address, so a Region is a plain value checked only when a task uses it.
struct Region {
  const void* matrix = nullptr;
  std::size_t row = 0;
  std::size_t col = 0;
};

// region names block (row, col) of `matrix` (whatever type holds it: only its address counts).
template <class Matrix>
Region region(const Matrix& matrix, std::size_t row, std::size_t col) noexcept {
  return Region{static_cast<const void*>(std::addressof(matrix)), row, col};
}

// Mode is how a task uses a datum: the three kinds of dependence follow from it.
enum class Mode : std::uint8_t { in, out, inout };

// Access is one datum a task declares: an object by address (row and col kWholeObject), or a
// block of a registered matrix; `name` is what traces and messages call it ("" derives one).
struct Access {
  const void* object = nullptr;
  std::size_t row = kWholeObject;
  std::size_t col = kWholeObject;
  Mode mode = Mode::in;
  std::string name;
};

namespace detail {
template <class T>
Access access(const T& datum, Mode mode, std::string name) {
  if constexpr (std::is_same_v<T, Region>) {
    return Access{datum.matrix, datum.row, datum.col, mode, std::move(name)};
  } else {
    return Access{static_cast<const void*>(std::addressof(datum)), kWholeObject, kWholeObject, mode,
                  std::move(name)};
  }
}
}  // namespace detail

// in declares that the task reads `datum` (an object, or a Region): it runs after the datum's
// last writer submitted before it (read after write).
template <class T>
Access in(const T& datum, std::string name = {}) {
  return detail::access(datum, Mode::in, std::move(name));
}
// out declares that the task overwrites `datum` without reading it: it runs after the readers
// since the last writer (write after read), or after that writer (write after write).
template <class T>
Access out(const T& datum, std::string name = {}) {
  return detail::access(datum, Mode::out, std::move(name));
}
// inout declares that the task reads and writes `datum`: ordered like a read and like a write.
template <class T>
Access inout(const T& datum, std::string name = {}) {
  return detail::access(datum, Mode::inout, std::move(name));
}

}  // namespace moirai::vss

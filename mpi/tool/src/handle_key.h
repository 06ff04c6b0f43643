// handle_key: an MPI handle (a pointer in Open MPI, an int in MPICH) as a map key, so that one
// source builds against both libraries.
#pragma once

#include <cstdint>
#include <cstring>

namespace moirai::mpi_tool {

template <typename Handle>
std::uintptr_t handle_key(Handle handle) {
  static_assert(sizeof(Handle) <= sizeof(std::uintptr_t));
  std::uintptr_t key = 0;
  std::memcpy(&key, &handle, sizeof handle);
  return key;
}

}  // namespace moirai::mpi_tool

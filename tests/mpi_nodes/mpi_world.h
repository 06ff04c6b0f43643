// What the two-node test programs share: their start. Plain MPI (they are built against each MPI
// the machine has and include nothing of Moirai's).
#pragma once

#include <mpi.h>

namespace mpi_nodes {

// World is this rank's place in MPI_COMM_WORLD.
struct World {
  int rank = 0;
  int size = 0;
};

// start calls MPI_Init and says where this rank is in MPI_COMM_WORLD.
inline World start(int* argc, char*** argv) {
  MPI_Init(argc, argv);
  World world;
  MPI_Comm_rank(MPI_COMM_WORLD, &world.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world.size);
  return world;
}

}  // namespace mpi_nodes

// An MPI program that says where each rank runs: its host, the shared-memory group
// MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) puts it in (named by the group's lowest world rank),
// and the test clock offset its environment gave it. It also passes a token around the ring, so
// the job fails when a rank cannot reach its neighbour (a node the transports cannot reach).
// Output, one line per rank: rank R host H shared_group G shared_size S offset O ("-": none)
#include <mpi.h>

#include <cstdio>
#include <cstdlib>

#include "mpi_world.h"

int main(int argc, char** argv) {
  const auto [rank, size] = mpi_nodes::start(&argc, &argv);
  char host[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  MPI_Get_processor_name(host, &length);

  MPI_Comm shared = MPI_COMM_NULL;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &shared);
  int shared_size = 0;
  MPI_Comm_size(shared, &shared_size);
  int group = rank;
  MPI_Allreduce(MPI_IN_PLACE, &group, 1, MPI_INT, MPI_MIN, shared);
  MPI_Comm_free(&shared);

  int token = rank;
  int received = -1;
  MPI_Sendrecv(&token, 1, MPI_INT, (rank + 1) % size, 0, &received, 1, MPI_INT, (rank + size - 1) % size, 0,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  const int expected = (rank + size - 1) % size;
  if (received != expected) {
    std::fprintf(stderr, "where_am_i: rank %d received token %d from its left neighbour, not %d\n", rank,
                 received, expected);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }

  const char* offset = std::getenv("MOIRAI_MPI_TEST_CLOCK_OFFSET_NS");
  std::printf("rank %d host %s shared_group %d shared_size %d offset %s\n", rank, host, group, shared_size,
              offset != nullptr && *offset != '\0' ? offset : "-");
  MPI_Finalize();
  return 0;
}

// An ordinary MPI program (no Moirai header) that the MPI tool's tests run under mpirun, with and
// without libmoirai_mpi.so: `mpi_calls MODE OUT_DIR`. Each rank writes what MPI returned to it
// (return codes, statuses, flags, indices, requests) into OUT_DIR/out-<rank>.txt, so that the
// tests compare what the program sees with and without the tool. Modes:
//   calls    every family the tool wraps, once (4 ranks: its sub-communicators need 2 each):
//            the tests check the records per call
//   kill     rank 1 fills more than one record buffer, writes OUT_DIR/reached (its pid) and waits
//            to be killed; the other ranks wait in a barrier
//   abort    rank 0 makes a few calls and calls MPI_Abort; the others wait in a barrier
//   threads  MPI_THREAD_MULTIPLE, and a second thread that calls MPI
//   nofinalize  returns from main without MPI_Finalize
#include <mpi.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>

namespace {

std::FILE* out = nullptr;

void said(const char* what, int result) { std::fprintf(out, "%s rc=%d\n", what, result); }
void said(const char* what, int result, const MPI_Status& status) {
  int count = -1;
  MPI_Get_count(&status, MPI_BYTE, &count);
  std::fprintf(out, "%s rc=%d source=%d tag=%d bytes=%d\n", what, result, status.MPI_SOURCE, status.MPI_TAG, count);
}

// A communicator attribute whose copy callback calls MPI: the call is made inside MPI_Comm_dup.
int copy_calling_mpi(MPI_Comm, int, void*, void* value, void* copy, int* flag) {
  MPI_Barrier(MPI_COMM_SELF);
  *static_cast<void**>(copy) = value;
  *flag = 1;
  return MPI_SUCCESS;
}

void calls(int rank, int size) {
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int data[4] = {rank, rank, rank, rank}, got[4] = {};
  MPI_Status status;
  // A ring, blocking.
  said("sendrecv", MPI_Sendrecv(data, 4, MPI_INT, right, 7, got, 4, MPI_INT, left, 7, MPI_COMM_WORLD, &status), status);
  // Nonblocking with a wildcard receive, statuses ignored.
  MPI_Request pair[2];
  said("isend", MPI_Isend(data, 4, MPI_INT, right, 8, MPI_COMM_WORLD, &pair[0]));
  said("irecv", MPI_Irecv(got, 4, MPI_INT, MPI_ANY_SOURCE, 8, MPI_COMM_WORLD, &pair[1]));
  said("waitall", MPI_Waitall(2, pair, MPI_STATUSES_IGNORE));
  std::fprintf(out, "requests null %d %d\n", pair[0] == MPI_REQUEST_NULL, pair[1] == MPI_REQUEST_NULL);
  // A test that fails: the message is sent only after the barrier.
  MPI_Request late;
  int flag = -1;
  said("irecv", MPI_Irecv(got, 1, MPI_INT, left, 10, MPI_COMM_WORLD, &late));
  said("test", MPI_Test(&late, &flag, &status));
  std::fprintf(out, "test flag %d null %d\n", flag, late == MPI_REQUEST_NULL);
  said("barrier", MPI_Barrier(MPI_COMM_WORLD));
  said("send", MPI_Send(data, 1, MPI_INT, right, 10, MPI_COMM_WORLD));
  said("wait", MPI_Wait(&late, &status), status);
  // Persistent requests, started twice.
  MPI_Request persistent[2];
  said("send_init", MPI_Send_init(data, 2, MPI_INT, right, 11, MPI_COMM_WORLD, &persistent[0]));
  said("recv_init", MPI_Recv_init(got, 2, MPI_INT, left, 11, MPI_COMM_WORLD, &persistent[1]));
  for (int round = 0; round < 2; ++round) {
    MPI_Status two[2];
    said("startall", MPI_Startall(2, persistent));
    said("waitall", MPI_Waitall(2, persistent, two));
    said("waitall[1]", MPI_SUCCESS, two[1]);
  }
  said("request_free", MPI_Request_free(&persistent[0]));
  said("request_free", MPI_Request_free(&persistent[1]));
  // Probes and a matched receive.
  MPI_Message message;
  said("send", MPI_Send(data, 3, MPI_INT, right, 12, MPI_COMM_WORLD));
  said("mprobe", MPI_Mprobe(MPI_ANY_SOURCE, 12, MPI_COMM_WORLD, &message, &status), status);
  said("mrecv", MPI_Mrecv(got, 3, MPI_INT, &message, MPI_STATUS_IGNORE));
  said("iprobe", MPI_Iprobe(left, 13, MPI_COMM_WORLD, &flag, &status));
  std::fprintf(out, "iprobe flag %d\n", flag);
  // Collectives.
  said("bcast", MPI_Bcast(data, 4, MPI_INT, 1, MPI_COMM_WORLD));
  said("allreduce", MPI_Allreduce(data, got, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  said("reduce", MPI_Reduce(data, got, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD));
  int gathered[64] = {};
  said("gather", MPI_Gather(data, 1, MPI_INT, gathered, 1, MPI_INT, 2 % size, MPI_COMM_WORLD));
  said("alltoall", MPI_Alltoall(gathered, 1, MPI_INT, gathered + 16, 1, MPI_INT, MPI_COMM_WORLD));
  MPI_Request barrier;
  said("ibarrier", MPI_Ibarrier(MPI_COMM_WORLD, &barrier));
  said("wait", MPI_Wait(&barrier, MPI_STATUS_IGNORE));
  // A sub-communicator: ranks of one parity; its rank 0 sends to its rank 1.
  MPI_Comm half;
  said("comm_split", MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half));
  int half_rank = -1;
  MPI_Comm_rank(half, &half_rank);
  if (half_rank == 0) said("send", MPI_Send(data, 1, MPI_INT, 1, 20, half));
  if (half_rank == 1) said("recv", MPI_Recv(got, 1, MPI_INT, 0, 20, half, &status), status);
  said("allreduce", MPI_Allreduce(data, got, 1, MPI_INT, MPI_MAX, half));
  said("comm_free", MPI_Comm_free(&half));
  // MPI called inside MPI (an attribute's copy callback in MPI_Comm_dup): not a call of its own.
  int keyval = MPI_KEYVAL_INVALID;
  MPI_Comm_create_keyval(copy_calling_mpi, MPI_COMM_NULL_DELETE_FN, &keyval, nullptr);
  MPI_Comm_set_attr(MPI_COMM_WORLD, keyval, nullptr);
  MPI_Comm copy;
  said("comm_dup", MPI_Comm_dup(MPI_COMM_WORLD, &copy));
  said("comm_free", MPI_Comm_free(&copy));
  MPI_Comm_delete_attr(MPI_COMM_WORLD, keyval);
  MPI_Comm_free_keyval(&keyval);
  // Waitany and Waitsome over two receives.
  MPI_Request two[2];
  int index = -1, outcount = -1, indices[2] = {-1, -1};
  said("irecv", MPI_Irecv(got, 1, MPI_INT, left, 14, MPI_COMM_WORLD, &two[0]));
  said("irecv", MPI_Irecv(got + 1, 1, MPI_INT, left, 15, MPI_COMM_WORLD, &two[1]));
  said("send", MPI_Send(data, 1, MPI_INT, right, 14, MPI_COMM_WORLD));
  said("send", MPI_Send(data, 1, MPI_INT, right, 15, MPI_COMM_WORLD));
  said("waitany", MPI_Waitany(2, two, &index, &status), status);
  std::fprintf(out, "waitany index %d\n", index);
  MPI_Status some[2];
  said("waitsome", MPI_Waitsome(2, two, &outcount, indices, some));
  std::fprintf(out, "waitsome outcount %d index %d\n", outcount, outcount == 1 ? indices[0] : -1);
}

// fill_buffers makes more records than one buffer holds (1638), by zero-byte exchanges with itself.
void fill_buffers() {
  for (int i = 0; i < 1000; ++i) {
    MPI_Sendrecv(nullptr, 0, MPI_BYTE, 0, 1, nullptr, 0, MPI_BYTE, 0, 1, MPI_COMM_SELF, MPI_STATUS_IGNORE);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: mpi_calls calls|kill|abort|threads|nofinalize OUT_DIR\n");
    return 2;
  }
  const std::string mode = argv[1], dir = argv[2];
  int provided = -1;
  if (mode == "threads") {
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  } else {
    MPI_Init(&argc, &argv);
  }
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  out = std::fopen((dir + "/out-" + std::to_string(rank) + ".txt").c_str(), "w");
  if (out == nullptr) return 2;
  if (mode == "calls") calls(rank, size);
  if (mode == "kill" || mode == "abort") {
    if (rank == 1 && mode == "kill") {
      fill_buffers();
      std::ofstream(dir + "/reached.tmp") << getpid() << "\n";
      std::rename((dir + "/reached.tmp").c_str(), (dir + "/reached").c_str());
      for (;;) pause();  // until the test kills this rank
    }
    if (rank == 0 && mode == "abort") {
      said("barrier", MPI_Sendrecv(nullptr, 0, MPI_BYTE, 0, 1, nullptr, 0, MPI_BYTE, 0, 1, MPI_COMM_SELF, MPI_STATUS_IGNORE));
      std::fclose(out);
      MPI_Abort(MPI_COMM_WORLD, 3);
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  if (mode == "threads") {
    std::fprintf(out, "provided %d\n", provided);
    std::thread other([] { said("other thread barrier", MPI_Barrier(MPI_COMM_SELF)); });
    other.join();
    said("barrier", MPI_Barrier(MPI_COMM_WORLD));
  }
  std::fclose(out);
  if (mode != "nofinalize") MPI_Finalize();
  return 0;
}

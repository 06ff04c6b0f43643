// RequestTable: what each live request of this rank was posted as, so that the call completing it
// writes its `completion` record (value = the posting record's index). Persistent requests stay
// in the table until MPI_Request_free, their current instance being the last MPI_Start's record.
// Matched messages (MPI_Mprobe, MPI_Improbe) keep their communicator until MPI_Mrecv takes them.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <unordered_map>

namespace moirai::mpi_tool {

// PostedRequest is a request as it was posted.
struct PostedRequest {
  std::uint64_t posting = 0;   // index of the record of its posting (or of its current MPI_Start)
  std::uint64_t init = 0;      // persistent requests: index of their send_init / recv_init record
  std::int32_t peer = 0;       // as posted, a world rank (kAnySource, kProcNull, the root, kNoPeer)
  std::int32_t tag = 0;
  std::uint8_t flags = 0;      // the posting's wildcard flags
  MPI_Comm comm = MPI_COMM_NULL;  // where a receive's status source is a rank
  bool receive = false;        // its status names the matched source and tag
  bool persistent = false;
  bool active = true;          // a persistent request between MPI_Start and its completion
};

class RequestTable {
 public:
  void post(MPI_Request request, const PostedRequest& posted);
  // find is the request's row, or nullptr (a request the tool did not see posted).
  PostedRequest* find(MPI_Request request);
  // completed ends the instance: a persistent request turns inactive, any other is forgotten.
  void completed(MPI_Request request);
  void forget(MPI_Request request);

  void matched(MPI_Message message, MPI_Comm comm);
  // take is the communicator `message` was matched on (MPI_COMM_NULL when unknown), forgetting it.
  MPI_Comm take(MPI_Message message);

 private:
  std::unordered_map<std::uintptr_t, PostedRequest> requests_;
  std::unordered_map<std::uintptr_t, MPI_Comm> messages_;
};

}  // namespace moirai::mpi_tool

#include "request_table.h"

#include "handle_key.h"

namespace moirai::mpi_tool {

void RequestTable::post(MPI_Request request, const PostedRequest& posted) {
  if (request != MPI_REQUEST_NULL) requests_[handle_key(request)] = posted;
}

PostedRequest* RequestTable::find(MPI_Request request) {
  if (request == MPI_REQUEST_NULL) return nullptr;
  auto row = requests_.find(handle_key(request));
  return row == requests_.end() ? nullptr : &row->second;
}

void RequestTable::completed(MPI_Request request) {
  auto row = requests_.find(handle_key(request));
  if (row == requests_.end()) return;
  if (row->second.persistent) {
    row->second.active = false;
  } else {
    requests_.erase(row);
  }
}

void RequestTable::forget(MPI_Request request) { requests_.erase(handle_key(request)); }

void RequestTable::matched(MPI_Message message, MPI_Comm comm) {
  if (message != MPI_MESSAGE_NULL && message != MPI_MESSAGE_NO_PROC) messages_[handle_key(message)] = comm;
}

MPI_Comm RequestTable::take(MPI_Message message) {
  auto row = messages_.find(handle_key(message));
  if (row == messages_.end()) return MPI_COMM_NULL;
  MPI_Comm comm = row->second;
  messages_.erase(row);
  return comm;
}

}  // namespace moirai::mpi_tool

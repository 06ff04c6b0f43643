#include "rank_log_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace moirai::mpi_tool {

namespace {

// write_all writes every byte, across short writes and signals; a failing disk loses the rest
// (the merge then sees a rank cut where its file ends).
void write_all(int fd, const void* data, std::size_t size) {
  const char* next = static_cast<const char*>(data);
  while (size > 0) {
    ssize_t written = ::write(fd, next, size);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) return;
    next += written;
    size -= static_cast<std::size_t>(written);
  }
}

}  // namespace

bool RankLogWriter::open(const std::string& folder, int rank, std::string& error) {
  const auto r = static_cast<std::uint32_t>(rank);
  for (auto [fd, name] : {std::pair{&events_fd_, mpi::events_file_name(r)}, std::pair{&defs_fd_, mpi::defs_file_name(r)}}) {
    std::string path = folder + "/" + name;
    *fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
    if (*fd < 0) {
      error = "cannot create " + path + ": " + std::strerror(errno);
      close();
      return false;
    }
  }
  return true;
}

void RankLogWriter::flush() {
  if (events_fd_ >= 0 && used_ > 0) write_all(events_fd_, buffer_, used_ * sizeof(mpi::RankRecord));
  used_ = 0;
}

void RankLogWriter::define(std::string_view line) {
  if (defs_fd_ < 0) return;
  std::string text(line);
  text += '\n';
  write_all(defs_fd_, text.data(), text.size());
}

void RankLogWriter::close() {
  flush();
  for (int* fd : {&events_fd_, &defs_fd_}) {
    if (*fd >= 0) ::close(*fd);
    *fd = -1;
  }
}

}  // namespace moirai::mpi_tool

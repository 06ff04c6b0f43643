#include "rank_log_writer.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
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
  flushing_.store(true, std::memory_order_relaxed);
  std::atomic_signal_fence(std::memory_order_seq_cst);
  const std::size_t used = used_.load(std::memory_order_relaxed);
  if (events_fd_ >= 0 && used > 0) write_all(events_fd_, buffer_, used * sizeof(mpi::RankRecord));
  used_.store(0, std::memory_order_relaxed);
  std::atomic_signal_fence(std::memory_order_seq_cst);
  flushing_.store(false, std::memory_order_relaxed);
}

namespace {

RankLogWriter* signalled_log = nullptr;  // the writer flush_on_signals armed (one per process)
constexpr int kEndingSignals[] = {SIGTERM, SIGINT, SIGHUP};  // Linux numbers 15, 2, 1, as on_signal writes them

}  // namespace

void RankLogWriter::flush_on_signals() {
  signalled_log = this;
  for (const int number : kEndingSignals) {
    struct sigaction old {};
    if (sigaction(number, nullptr, &old) != 0 || old.sa_handler != SIG_DFL || (old.sa_flags & SA_SIGINFO) != 0) continue;
    struct sigaction action {};
    action.sa_handler = &RankLogWriter::on_signal;
    sigemptyset(&action.sa_mask);
    for (const int other : kEndingSignals) sigaddset(&action.sa_mask, other);
    action.sa_flags = SA_RESETHAND;  // the default comes back: raising the signal again ends the process
    sigaction(number, &action, nullptr);
  }
}

// on_signal runs only async-signal-safe calls: write(2) of the records whole so far, a line, and
// the signal raised again under its default action.
void RankLogWriter::on_signal(int number) {
  const int saved = errno;
  RankLogWriter* log = signalled_log;
  if (log != nullptr && log->events_fd_ >= 0 && !log->flushing_.load(std::memory_order_relaxed)) {
    const std::size_t used = log->used_.load(std::memory_order_acquire);
    if (used > 0) write_all(log->events_fd_, log->buffer_, used * sizeof(mpi::RankRecord));
    log->used_.store(0, std::memory_order_relaxed);
    const char* line = number == SIGTERM ? "signal 15 SIGTERM\n" : number == SIGINT ? "signal 2 SIGINT\n" : "signal 1 SIGHUP\n";
    if (log->defs_fd_ >= 0) write_all(log->defs_fd_, line, std::strlen(line));
  }
  errno = saved;
  raise(number);
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

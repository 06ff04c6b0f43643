#include "output_target.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <stdexcept>
#include <system_error>

namespace moirai::cli {

namespace fs = std::filesystem;

namespace {

std::string errno_text(int error) { return std::strerror(error); }

// make_temporary creates an empty file from `pattern` (ending in XXXXXX) and returns its name.
std::string make_temporary(std::string pattern, const std::string& flag, const std::string& value) {
  const int fd = ::mkstemp(pattern.data());
  if (fd < 0) {
    throw std::invalid_argument(flag + " " + value + ": cannot create a file beside it: " + errno_text(errno));
  }
  // mkstemp gives 0600; an output is as readable as any file the user creates.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  (void)::fchmod(fd, 0666 & ~mask);
  ::close(fd);
  return pattern;
}

// copy_into writes the file `from` to the descriptor `fd`, every byte or an exception.
void copy_into(const std::string& from, int fd, const std::string& shown) {
  const int in = ::open(from.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) throw std::runtime_error("cannot read back " + from + ": " + errno_text(errno));
  char buffer[1 << 16];
  for (;;) {
    const ssize_t got = ::read(in, buffer, sizeof buffer);
    if (got == 0) break;
    if (got < 0) {
      if (errno == EINTR) continue;
      const int error = errno;
      ::close(in);
      throw std::runtime_error("cannot read back " + from + ": " + errno_text(error));
    }
    for (ssize_t done = 0; done < got;) {
      const ssize_t put = ::write(fd, buffer + done, static_cast<std::size_t>(got - done));
      if (put < 0 && errno == EINTR) continue;
      if (put <= 0) {
        const int error = put < 0 ? errno : ENOSPC;
        ::close(in);
        throw std::runtime_error("cannot write " + shown + ": " + errno_text(error));
      }
      done += put;
    }
  }
  ::close(in);
}

}  // namespace

OutputTarget::OutputTarget(std::string flag, std::string value, Kind kind, const std::vector<std::string>& inputs)
    : flag_(std::move(flag)), target_(std::move(value)) {
  const std::string named = flag_ + " " + target_;
  if (target_.empty()) throw std::invalid_argument(flag_ + " needs a file name ('-' for standard output)");
  if (target_ == "-") {
    if (kind == Kind::directory) {
      throw std::invalid_argument(named + ": this format is a directory of files and cannot go to standard output; name a new directory");
    }
    stdout_ = true;
  } else {
    std::error_code error;
    const fs::file_status status = fs::status(target_, error);
    const bool exists = fs::exists(status);
    for (const std::string& input : inputs) {
      std::error_code ignored;
      if (exists && fs::equivalent(target_, input, ignored)) {
        throw std::invalid_argument(named + ": that is the input " + input + "; writing it would destroy what is read");
      }
    }
    const fs::path parent = fs::path(target_).parent_path();
    if (!parent.empty() && !fs::is_directory(parent, error)) {
      throw std::invalid_argument("cannot write " + target_ + ": no directory " + parent.string());
    }
    if (kind == Kind::directory) {
      if (exists && !fs::is_directory(status)) {
        throw std::invalid_argument("cannot write " + target_ + ": it exists and is not a directory");
      }
      // Old files would mix into what the writer writes there.
      std::error_code unlisted;
      if (exists && !fs::is_empty(target_, unlisted) && !unlisted) {
        throw std::invalid_argument("cannot write " + target_ + ": it exists and is not an empty directory");
      }
      // A directory that cannot be made or filled is refused now, as a file that cannot be is.
      const std::string into = exists ? target_ : parent.empty() ? std::string(".") : parent.string();
      if (::access(into.c_str(), W_OK | X_OK) != 0) {
        throw std::invalid_argument("cannot write " + target_ + ": " + errno_text(errno));
      }
      path_ = target_;
      return;
    }
    if (exists && fs::is_directory(status)) {
      throw std::invalid_argument("cannot write " + target_ + ": it is a directory");
    }
    device_ = exists && !fs::is_regular_file(status);
  }
  temporary_ = true;
  if (stdout_ || device_) {
    // What goes to a stream or a device is written whole first: a writer that fails half-way
    // has sent nothing.
    path_ = make_temporary((fs::temp_directory_path() / "moirai-output-XXXXXX").string(), flag_, target_);
  } else {
    const fs::path target(target_);
    path_ = make_temporary((target.parent_path() / ("." + target.filename().string() + ".moirai-XXXXXX")).string(),
                           flag_, target_);
  }
}

OutputTarget::~OutputTarget() {
  if (temporary_) ::unlink(path_.c_str());
}

std::string OutputTarget::shown() const { return stdout_ ? std::string("standard output") : target_; }

std::string OutputTarget::explain(const std::string& message) const {
  if (!temporary_) return message;
  std::string text = message;
  for (std::size_t at = text.find(path_); at != std::string::npos; at = text.find(path_, at + target_.size())) {
    text.replace(at, path_.size(), shown());
  }
  return text;
}

void OutputTarget::commit() {
  if (!temporary_) return;
  if (stdout_) {
    std::cout.flush();
    copy_into(path_, STDOUT_FILENO, shown());
  } else if (device_) {
    const int fd = ::open(target_.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) throw std::runtime_error("cannot write " + target_ + ": " + errno_text(errno));
    try {
      copy_into(path_, fd, target_);
    } catch (...) {
      ::close(fd);
      throw;
    }
    if (::close(fd) != 0) throw std::runtime_error("cannot write " + target_ + ": " + errno_text(errno));
  } else {
    if (std::rename(path_.c_str(), target_.c_str()) != 0) {
      throw std::runtime_error("cannot write " + target_ + ": " + errno_text(errno));
    }
  }
  if (!stdout_ && !device_) temporary_ = false;
}

void check_stdout() {
  std::cout.flush();
  if (!std::cout) throw std::runtime_error("cannot write to standard output");
}

}  // namespace moirai::cli

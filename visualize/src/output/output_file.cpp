#include "moirai/visualize/output/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace moirai::visualize {

namespace {

OutputError cannot_write(const std::string& path, const std::string& why) { return OutputError("cannot write " + path + ": " + why); }
OutputError cannot_write(const std::string& path, int error) { return cannot_write(path, std::strerror(error)); }

// kind_of names what a non-regular file is, for the message refusing it.
std::string kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "it is a directory";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "it is a device, not a regular file";
  if (S_ISFIFO(mode)) return "it is a pipe, not a regular file";
  if (S_ISSOCK(mode)) return "it is a socket, not a regular file";
  return "it is not a regular file";
}

// Target is where an output lands: the path as given, or the file a symbolic link names (the
// link is kept, the file it points at replaced), and the directory its temporary goes in.
struct Target {
  std::string path, directory, base;
  bool exists = false;
  bool is_directory = false;
};

Target resolve(const std::string& given) {
  if (given.empty()) throw OutputError("cannot write an output with an empty name");
  Target target{given, "", "", false, false};
  struct stat info {};
  if (::stat(given.c_str(), &info) == 0) {
    target.exists = true;
    target.is_directory = S_ISDIR(info.st_mode);
    struct stat link {};
    if (::lstat(given.c_str(), &link) == 0 && S_ISLNK(link.st_mode)) {
      std::error_code error;
      const std::filesystem::path real = std::filesystem::canonical(given, error);
      if (error) throw cannot_write(given, error.message());
      target.path = real.string();
    }
  } else if (errno != ENOENT) {
    throw cannot_write(given, errno);
  }
  std::filesystem::path path(target.path);
  while (path.has_filename() == false && path.has_parent_path() && path != path.parent_path()) path = path.parent_path();
  target.base = path.filename().string();
  if (target.base.empty() || target.base == "." || target.base == "..") throw cannot_write(given, "it names a directory");
  target.directory = path.has_parent_path() ? path.parent_path().string() : ".";
  struct stat directory {};
  if (::stat(target.directory.c_str(), &directory) != 0) {
    if (errno == ENOENT) throw cannot_write(given, "its folder " + target.directory + " does not exist");
    throw cannot_write(given, errno);
  }
  if (!S_ISDIR(directory.st_mode)) throw cannot_write(given, target.directory + " is not a folder");
  return target;
}

// temporary_name is a fresh name beside the target: hidden, and unique to this process and call.
std::string temporary_name(const Target& target) {
  static std::atomic<unsigned> counter{0};
  const std::string suffix = "." + std::to_string(::getpid()) + "." + std::to_string(counter++) + ".moirai-tmp";
  // Keep the name within NAME_MAX (255) however long the target's is.
  const std::string base = target.base.substr(0, 200);
  return target.directory + "/." + base + suffix;
}

}  // namespace

OutputFile::OutputFile(const std::string& path) : path_(path) {
  const Target target = resolve(path);
  struct stat info {};
  if (target.exists && ::stat(target.path.c_str(), &info) == 0 && !S_ISREG(info.st_mode)) throw cannot_write(path, kind_of(info.st_mode));
  path_ = target.path;
  for (int attempt = 0; fd_ < 0; ++attempt) {
    temporary_ = temporary_name(target);
    // 0666: the kernel takes the umask off, as it does for any file a program creates.
    fd_ = ::open(temporary_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd_ < 0 && (errno != EEXIST || attempt == 100)) {
      const int error = errno;
      temporary_.clear();
      throw cannot_write(path, error);
    }
  }
  // A file that is replaced keeps its permissions (a private file stays private).
  if (target.exists && ::fchmod(fd_, info.st_mode & 07777) != 0) throw cannot_write(path, errno);
}

OutputFile::~OutputFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_ && !temporary_.empty()) ::unlink(temporary_.c_str());
}

void OutputFile::write(std::string_view bytes) {
  if (fd_ < 0) throw cannot_write(path_, "the output is already closed");
  while (!bytes.empty()) {
    const ssize_t written = ::write(fd_, bytes.data(), bytes.size());
    if (written < 0) {
      if (errno == EINTR) continue;
      throw cannot_write(path_, errno);
    }
    if (written == 0) throw cannot_write(path_, "nothing could be written");
    bytes.remove_prefix(static_cast<std::size_t>(written));
    bytes_ += static_cast<std::uint64_t>(written);
  }
}

void OutputFile::close_checked() {
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) throw cannot_write(path_, errno);
}

void OutputFile::commit() {
  if (committed_) return;
  if (fd_ >= 0) close_checked();
  if (::rename(temporary_.c_str(), path_.c_str()) != 0) throw cannot_write(path_, errno);
  committed_ = true;
}

OutputDirectory::OutputDirectory(const std::string& path) : path_(path) {
  const Target target = resolve(path);
  if (target.exists) {
    std::error_code error;
    if (!target.is_directory || !std::filesystem::is_empty(target.path, error)) {
      throw cannot_write(path, "it exists and is not an empty directory");
    }
  }
  path_ = target.path;
  for (int attempt = 0; temporary_.empty(); ++attempt) {
    std::string name = temporary_name(target);
    if (::mkdir(name.c_str(), 0777) == 0) {
      temporary_ = std::move(name);
    } else if (errno != EEXIST || attempt == 100) {
      throw cannot_write(path, errno);
    }
  }
}

OutputDirectory::~OutputDirectory() {
  if (committed_ || temporary_.empty()) return;
  std::error_code ignored;
  std::filesystem::remove_all(temporary_, ignored);
}

void OutputDirectory::commit() {
  if (committed_) return;
  // rename(2) replaces an empty directory at the target, and refuses a directory that filled
  // up meanwhile (ENOTEMPTY), so nothing is lost either way.
  if (::rename(temporary_.c_str(), path_.c_str()) != 0) throw cannot_write(path_, errno);
  committed_ = true;
}

void write_output_file(const std::string& path, std::string_view contents) {
  OutputFile file(path);
  file.write(contents);
  file.commit();
}

void check_output_target(const std::string& path) {
  const Target target = resolve(path);
  struct stat info {};
  if (target.exists && ::stat(target.path.c_str(), &info) == 0 && !S_ISREG(info.st_mode)) throw cannot_write(path, kind_of(info.st_mode));
}

bool same_file(const std::string& a, const std::string& b) {
  struct stat first {}, second {};
  if (::stat(a.c_str(), &first) != 0 || ::stat(b.c_str(), &second) != 0) return false;
  return first.st_dev == second.st_dev && first.st_ino == second.st_ino;
}

}  // namespace moirai::visualize

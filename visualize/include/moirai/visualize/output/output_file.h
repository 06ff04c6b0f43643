// Outputs that never lie (docs/export.md, "Writing outputs"): every file the post-processor
// writes goes to a temporary beside its target and is renamed into place only when every write
// and the close succeeded, so a failed run leaves an existing file (or device) as it was.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace moirai::visualize {

// OutputError is an output the post-processor could not create or write (a picture, an export,
// a report file); its message names it. export.h calls it ExportError, the exporters' name for it.
class OutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// OutputFile is one file being written: bytes go to a temporary file in the target's directory
// (mode 0666 less the umask, or the mode of the file it replaces); commit() renames it over the target; destroying an uncommitted
// OutputFile removes the temporary. Every failure is an OutputError naming the target and the
// system's reason. An existing target that is not a regular file (a directory, a device such
// as /dev/full) is refused before anything is written.
class OutputFile {
 public:
  explicit OutputFile(const std::string& path);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  // write appends bytes, checking that every one reached the file.
  void write(std::string_view bytes);
  // commit closes the temporary, checking the close, and renames it over the target.
  void commit();
  // temporary_path is the temporary's name, for a library that writes a file by name (SQLite).
  const std::string& temporary_path() const { return temporary_; }
  // path is the target.
  const std::string& path() const { return path_; }
  // bytes is what write() has written so far.
  std::uint64_t bytes() const { return bytes_; }

 private:
  void close_checked();
  std::string path_, temporary_;
  int fd_ = -1;
  bool committed_ = false;
  std::uint64_t bytes_ = 0;
};

// OutputDirectory is a directory being filled (an OTF2 archive): a temporary directory beside
// the target, renamed into place by commit(); destroying it uncommitted removes it and all it
// holds. An existing target must be an empty directory (it is replaced); anything else is refused.
class OutputDirectory {
 public:
  explicit OutputDirectory(const std::string& path);
  ~OutputDirectory();
  OutputDirectory(const OutputDirectory&) = delete;
  OutputDirectory& operator=(const OutputDirectory&) = delete;

  // temporary_path is the directory to fill.
  const std::string& temporary_path() const { return temporary_; }
  // commit renames the filled directory over the target.
  void commit();

 private:
  std::string path_, temporary_;
  bool committed_ = false;
};

// write_output_file writes `contents` to `path` through an OutputFile.
void write_output_file(const std::string& path, std::string_view contents);

// check_output_target throws OutputError when `path` exists and is not a regular file (or a
// symbolic link to one), or when its directory does not exist: what OutputFile refuses, for a
// caller to ask before it spends time on the output.
void check_output_target(const std::string& path);

// same_file is true when both paths name one existing file (the same device and inode), so a
// command can refuse an output that names one of its inputs.
bool same_file(const std::string& a, const std::string& b);

}  // namespace moirai::visualize

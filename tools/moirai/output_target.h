// OutputTarget: where a command's `-o` points, checked before any work and written so that a
// failed run never leaves a half-written file, never replaces a device and never hits an input.
#pragma once

#include <string>
#include <vector>

namespace moirai::cli {

// OutputTarget takes `-o VALUE`: '-' is standard output, an existing device or pipe is written
// in place, anything else is a file written beside itself and renamed into place; a directory
// output (`directory`), new or empty, is handed to the writer as it is.
class OutputTarget {
 public:
  // Kind is what the writer produces: one file (which may also be streamed), or a directory.
  enum class Kind { file, directory };

  // OutputTarget checks `value` (the flag `flag`'s) against `inputs` and the file system; throws
  // std::invalid_argument naming the flag, the value and why it cannot be written.
  OutputTarget(std::string flag, std::string value, Kind kind, const std::vector<std::string>& inputs);
  ~OutputTarget();
  OutputTarget(const OutputTarget&) = delete;
  OutputTarget& operator=(const OutputTarget&) = delete;

  // path is where the writer writes: a temporary file, or the directory itself.
  const std::string& path() const noexcept { return path_; }
  // shown is how messages name the output ("standard output", or the path given).
  std::string shown() const;
  // to_stdout is true when the output is standard output (summaries then go to stderr).
  bool to_stdout() const noexcept { return stdout_; }
  // commit puts what the writer wrote in place: renames the file, or copies it to standard
  // output or the device. Throws std::runtime_error when a write fails.
  void commit();
  // explain turns an error that names the temporary file into one that names the target.
  std::string explain(const std::string& message) const;

 private:
  std::string flag_;
  std::string target_;
  std::string path_;
  bool stdout_ = false;
  bool device_ = false;
  bool temporary_ = false;
};

// check_stdout flushes standard output and throws std::runtime_error when it could not take
// everything written to it (a full disk, a closed pipe, /dev/full).
void check_stdout();

}  // namespace moirai::cli

// Running one command as a child process, no shell, output captured to files: a run of `moirai
// sweep`, an old trace's command re-run by `moirai-calibrate --fit --rerun`.
#pragma once

#include <string>
#include <vector>

namespace moirai::tools {

// ChildStatus is how a child process ended.
struct ChildStatus {
  bool started = false;   // false: it could not be run at all (see `error`)
  bool timed_out = false;
  int exit_code = -1;     // when it exited
  int signal = 0;         // when a signal ended it
  double seconds = 0;     // wall time
  std::string error;      // why it could not be started
  bool succeeded() const { return started && !timed_out && signal == 0 && exit_code == 0; }
  // describe says how it ended in a few words, e.g. "exit 2", "killed by signal 9".
  std::string describe() const;
};

// run_child runs `argv` (the program found on PATH) with stdin from /dev/null, stdout into
// `out_path` and stderr into `err_path`, and waits for it, killing it after `timeout_s`
// seconds when that is above 0.
ChildStatus run_child(const std::vector<std::string>& argv, const std::string& out_path, const std::string& err_path,
                      double timeout_s);

// last_lines is the last `count` lines of a text file (empty if it cannot be read).
std::vector<std::string> last_lines(const std::string& path, std::size_t count);

}  // namespace moirai::tools

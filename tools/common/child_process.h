// Running one command as a child process, no shell: a run of `moirai sweep` or an old trace's
// command re-run by `moirai-calibrate --fit --rerun` (output captured to files), the program
// `moirai record` runs in the foreground.
#pragma once

#include <string>
#include <utility>
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

// ChildSpec is a command to run and what it runs with.
struct ChildSpec {
  std::vector<std::string> argv;
  std::string program;  // the file to run; empty: argv[0], found on PATH
  std::vector<std::pair<std::string, std::string>> environment;  // set in the child's, over this process's
  // Where its standard streams go: a file (stdout and stderr created or truncated), or empty
  // to share this process's (a command run in the foreground).
  std::string in_path = "/dev/null";
  std::string out_path;
  std::string err_path;
  double timeout_s = 0;  // above 0: killed after that many seconds
  // foreground: while it runs, SIGINT and SIGQUIT (which a terminal sends the whole process
  // group) are the child's alone, and SIGTERM and SIGHUP sent to this process are passed on to it.
  bool foreground = false;
};

// run_child runs `spec` and waits for it.
ChildStatus run_child(const ChildSpec& spec);

// run_child runs `argv` (the program found on PATH) with stdin from /dev/null, stdout into
// `out_path` and stderr into `err_path`, and waits for it, killing it after `timeout_s`
// seconds when that is above 0.
ChildStatus run_child(const std::vector<std::string>& argv, const std::string& out_path, const std::string& err_path,
                      double timeout_s);

// command_text is `argv` as one line a shell would split back into the same words (words
// quoted only where they need it): the command a trace names.
std::string command_text(const std::vector<std::string>& argv);

// last_lines is the last `count` lines of a text file (empty if it cannot be read).
std::vector<std::string> last_lines(const std::string& path, std::size_t count);

}  // namespace moirai::tools

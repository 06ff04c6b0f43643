#include "child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <deque>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <thread>

#include "number_text.h"

extern char** environ;

namespace moirai::tools {

std::string ChildStatus::describe() const {
  if (!started) return "could not start: " + error;
  if (timed_out) return "timed out after " + number_text(seconds, "%.1f") + " s (killed)";
  if (signal != 0) return std::string("killed by signal ") + std::to_string(signal) + " (" + strsignal(signal) + ")";
  return "exit " + std::to_string(exit_code);
}

ChildStatus run_child(const std::vector<std::string>& argv, const std::string& out_path, const std::string& err_path,
                      double timeout_s) {
  ChildStatus status;
  std::vector<char*> arguments;
  for (const std::string& word : argv) arguments.push_back(const_cast<char*>(word.c_str()));
  arguments.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  const auto start = std::chrono::steady_clock::now();
  pid_t pid = 0;
  const int failed = posix_spawnp(&pid, arguments[0], &actions, nullptr, arguments.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (failed != 0) {
    status.error = "'" + argv[0] + "': " + std::strerror(failed);
    return status;
  }
  status.started = true;
  const auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  int wait_status = 0;
  for (;;) {
    const pid_t done = waitpid(pid, &wait_status, timeout_s > 0 ? WNOHANG : 0);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) {
      status.started = false;
      status.error = std::string("waiting for it failed: ") + std::strerror(errno);
      return status;
    }
    if (done == 0) {
      if (elapsed() > timeout_s) {
        status.timed_out = true;
        kill(pid, SIGKILL);
        while (waitpid(pid, &wait_status, 0) < 0 && errno == EINTR) {
        }
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  status.seconds = elapsed();
  if (WIFEXITED(wait_status)) status.exit_code = WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status) && !status.timed_out) status.signal = WTERMSIG(wait_status);
  return status;
}

std::vector<std::string> last_lines(const std::string& path, std::size_t count) {
  std::ifstream in(path);
  std::deque<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    lines.push_back(line);
    if (lines.size() > count) lines.pop_front();
  }
  return {lines.begin(), lines.end()};
}

}  // namespace moirai::tools

#include "child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <deque>
#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <thread>

#include "moirai/trace/number_text.h"

extern char** environ;

namespace moirai::tools {

std::string ChildStatus::describe() const {
  if (!started) return "could not start: " + error;
  if (timed_out) return "timed out after " + trace::number_text(seconds, "%.1f") + " s (killed)";
  if (signal != 0) return std::string("killed by signal ") + std::to_string(signal) + " (" + strsignal(signal) + ")";
  return "exit " + std::to_string(exit_code);
}

namespace {

// The child a foreground run waits for, for the handler below (0: none).
volatile std::sig_atomic_t foreground_child = 0;

// pass_on hands SIGTERM and SIGHUP to the foreground child; SIGINT and SIGQUIT reached it from
// the terminal already, and this process outlives them to see how it ended.
extern "C" void pass_on(int signal) {
  const pid_t child = foreground_child;
  if (child > 0 && (signal == SIGTERM || signal == SIGHUP)) ::kill(child, signal);
}

constexpr int kForegroundSignals[] = {SIGINT, SIGQUIT, SIGTERM, SIGHUP};

// ForegroundSignals holds the handler while a foreground child runs. The signals are blocked
// from before the spawn until the child's pid is known, so none is lost in between (the child
// starts with them unblocked, and exec resets the handler in it).
class ForegroundSignals {
 public:
  ForegroundSignals() {
    sigset_t set;
    sigemptyset(&set);
    for (const int signal : kForegroundSignals) sigaddset(&set, signal);
    pthread_sigmask(SIG_BLOCK, &set, &blocked_before_);
    struct sigaction action {};
    action.sa_handler = pass_on;
    action.sa_flags = SA_RESTART;
    sigemptyset(&action.sa_mask);
    for (std::size_t i = 0; i < std::size(kForegroundSignals); ++i) sigaction(kForegroundSignals[i], &action, &before_[i]);
  }
  ~ForegroundSignals() {
    foreground_child = 0;
    for (std::size_t i = 0; i < std::size(kForegroundSignals); ++i) sigaction(kForegroundSignals[i], &before_[i], nullptr);
    pthread_sigmask(SIG_SETMASK, &blocked_before_, nullptr);
  }
  ForegroundSignals(const ForegroundSignals&) = delete;
  ForegroundSignals& operator=(const ForegroundSignals&) = delete;

  // the mask the child starts with: this process's before the block
  const sigset_t& child_mask() const { return blocked_before_; }
  // started: the child's pid is known; pending signals are delivered (passed on) now.
  void started(pid_t child) {
    foreground_child = child;
    pthread_sigmask(SIG_SETMASK, &blocked_before_, nullptr);
  }

 private:
  sigset_t blocked_before_{};
  struct sigaction before_[std::size(kForegroundSignals)] {};
};

// child_environment is this process's environment with `set` over it.
std::vector<std::string> child_environment(const std::vector<std::pair<std::string, std::string>>& set) {
  std::vector<std::string> entries;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    const std::string_view name = text.substr(0, text.find('='));
    bool replaced = false;
    for (const auto& [set_name, value] : set) replaced = replaced || name == set_name;
    if (!replaced) entries.emplace_back(text);
  }
  for (const auto& [name, value] : set) entries.push_back(name + "=" + value);
  return entries;
}

// pointers is the NULL-terminated array of C strings exec takes.
std::vector<char*> pointers(const std::vector<std::string>& words) {
  std::vector<char*> list;
  for (const std::string& word : words) list.push_back(const_cast<char*>(word.c_str()));
  list.push_back(nullptr);
  return list;
}

}  // namespace

ChildStatus run_child(const ChildSpec& spec) {
  ChildStatus status;
  std::vector<char*> arguments = pointers(spec.argv);
  const std::vector<std::string> environment = spec.environment.empty() ? std::vector<std::string>{}
                                                                         : child_environment(spec.environment);
  std::vector<char*> environment_list = pointers(environment);
  char** envp = spec.environment.empty() ? environ : environment_list.data();

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (!spec.in_path.empty()) posix_spawn_file_actions_addopen(&actions, 0, spec.in_path.c_str(), O_RDONLY, 0);
  if (!spec.out_path.empty()) {
    posix_spawn_file_actions_addopen(&actions, 1, spec.out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  }
  if (!spec.err_path.empty()) {
    posix_spawn_file_actions_addopen(&actions, 2, spec.err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  }
  std::optional<ForegroundSignals> foreground;
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  if (spec.foreground) {
    foreground.emplace();
    posix_spawnattr_setsigmask(&attributes, &foreground->child_mask());
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK);
  }
  const auto start = std::chrono::steady_clock::now();
  pid_t pid = 0;
  const int failed = spec.program.empty()
                         ? posix_spawnp(&pid, arguments[0], &actions, &attributes, arguments.data(), envp)
                         : posix_spawn(&pid, spec.program.c_str(), &actions, &attributes, arguments.data(), envp);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (failed != 0) {
    status.error = "'" + (spec.program.empty() ? spec.argv[0] : spec.program) + "': " + std::strerror(failed);
    return status;
  }
  if (foreground) foreground->started(pid);
  status.started = true;
  const auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  int wait_status = 0;
  for (;;) {
    const pid_t done = waitpid(pid, &wait_status, spec.timeout_s > 0 ? WNOHANG : 0);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) {
      status.started = false;
      status.error = std::string("waiting for it failed: ") + std::strerror(errno);
      return status;
    }
    if (done == 0) {
      if (elapsed() > spec.timeout_s) {
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

ChildStatus run_child(const std::vector<std::string>& argv, const std::string& out_path, const std::string& err_path,
                      double timeout_s) {
  ChildSpec spec;
  spec.argv = argv;
  spec.out_path = out_path;
  spec.err_path = err_path;
  spec.timeout_s = timeout_s;
  return run_child(spec);
}

std::string command_text(const std::vector<std::string>& argv) {
  std::string text;
  for (const std::string& word : argv) {
    const bool plain = !word.empty() && word.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                               "0123456789_-+=.,:/@%") == std::string::npos;
    if (!text.empty()) text += ' ';
    if (plain) {
      text += word;
      continue;
    }
    text += '\'';
    for (const char c : word) text += c == '\'' ? std::string("'\\''") : std::string(1, c);
    text += '\'';
  }
  return text;
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

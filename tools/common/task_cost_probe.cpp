#include "task_cost_probe.h"

#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <vector>

#include "child_process.h"

namespace moirai::tools {

namespace {

namespace fs = std::filesystem;

constexpr const char* kProbe = "moirai-omp-task-cost";
constexpr double kTimeoutS = 30;  // it measures for a millisecond: a hang is a broken libomp

// find_probe is the probe beside this program (installed), else the build tree's.
std::string find_probe() {
  std::vector<std::string> looked;
  std::error_code error;
  const fs::path self = fs::read_symlink("/proc/self/exe", error);
  if (!error) looked.push_back((self.parent_path() / kProbe).string());
  if (*MOIRAI_OMP_TASK_COST_BUILD_PATH != '\0') looked.emplace_back(MOIRAI_OMP_TASK_COST_BUILD_PATH);
  for (const std::string& candidate : looked) {
    if (fs::is_regular_file(candidate, error) && ::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  std::string places;
  for (const std::string& candidate : looked) places += (places.empty() ? "" : " or ") + candidate;
  throw std::runtime_error(std::string(kProbe) + " not found (looked for " + places +
                           "; it is built where clang++-16 and LLVM's libomp are installed)");
}

// TempFile is a file of this process's in the temporary folder, removed when it goes.
class TempFile {
 public:
  TempFile() {
    const char* dir = std::getenv("TMPDIR");
    path_ = std::string(dir != nullptr && *dir != '\0' ? dir : "/tmp") + "/moirai-task-cost-XXXXXX";
    const int fd = ::mkstemp(path_.data());
    if (fd < 0) throw std::runtime_error("cannot make a temporary file for " + std::string(kProbe) + "'s output in " + path_);
    ::close(fd);
  }
  ~TempFile() { std::remove(path_.c_str()); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace

ProbedTaskCost probe_task_cost() {
  const std::string probe = find_probe();
  const TempFile out, err;
  ChildSpec spec;
  spec.argv = {probe};
  spec.program = probe;
  spec.out_path = out.path();
  spec.err_path = err.path();
  spec.timeout_s = kTimeoutS;
  const ChildStatus status = run_child(spec);
  if (!status.succeeded()) {
    std::string told;
    for (const std::string& line : last_lines(err.path(), 3)) told += (told.empty() ? ": " : " / ") + line;
    throw std::runtime_error(probe + " failed (" + status.describe() + ")" + told);
  }
  std::ifstream in(out.path());
  ProbedTaskCost probed;
  std::string figures;
  std::getline(in, figures);
  std::getline(in, probed.how);
  try {
    probed.cost = ompt::parse_task_cost(figures);
  } catch (const std::invalid_argument& bad) {
    throw std::runtime_error(probe + " printed no figures ('" + figures + "'): " + bad.what());
  }
  probed.seconds = status.seconds;
  return probed;
}

}  // namespace moirai::tools

// The recorder on a full disk: a recording matmul whose trace cannot be written whole (a
// file-size limit, RLIMIT_FSIZE, that its trace outgrows mid-run) stops recording, says so once on
// stderr, and finishes normally; its trace reads as cut, saying why. A trace on /dev/full, which
// takes not even the file header, is refused before the run as a --trace that cannot be written.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "moirai/trace/reader.h"

namespace {

struct MatmulRun {
  int status = -1;
  std::string err;
};

// run_matmul runs matmul recording into `trace` under a file-size limit of `fsize` bytes (0:
// none), with stderr kept.
MatmulRun run_matmul(const std::string& trace, rlim_t fsize) {
  const std::string err_path = ::testing::TempDir() + "moirai_full_disk_err_" + std::to_string(::getpid());
  const std::vector<std::string> args = {MOIRAI_MATMUL_PATH, "--size", "768", "--pieces", "256", "--cores", "2",
                                         "--counters", "none", "--trace", trace};
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int null = ::open("/dev/null", O_WRONLY);
    if (err < 0 || null < 0) std::_Exit(126);
    ::dup2(err, STDERR_FILENO);
    ::dup2(null, STDOUT_FILENO);
    if (fsize != 0) {
      const rlimit limit{fsize, fsize};
      if (::setrlimit(RLIMIT_FSIZE, &limit) != 0) std::_Exit(126);
    }
    std::vector<char*> argv;
    for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    std::_Exit(127);
  }
  MatmulRun run;
  ::waitpid(pid, &run.status, 0);
  std::ifstream in(err_path);
  run.err.assign(std::istreambuf_iterator<char>(in), {});
  std::remove(err_path.c_str());
  return run;
}

TEST(RecorderOnAFullDisk, AFileSizeLimitStopsTheRecordingNotTheProgram) {
  const std::string trace = ::testing::TempDir() + "moirai_full_disk_" + std::to_string(::getpid()) + ".mtrace";
  constexpr rlim_t kLimit = 64 * 1024;
  const MatmulRun run = run_matmul(trace, kLimit);
  ASSERT_TRUE(WIFEXITED(run.status)) << "matmul did not exit normally (signal " << WTERMSIG(run.status) << "): " << run.err;
  EXPECT_EQ(WEXITSTATUS(run.status), 0) << run.err;
  EXPECT_NE(run.err.find("moirai: recording stopped: trace file " + trace + ": write failed: File too large"), std::string::npos)
      << run.err;
  EXPECT_EQ(run.err.find("recording stopped"), run.err.rfind("recording stopped")) << "said more than once: " << run.err;
  const moirai::trace::Trace t = moirai::trace::read_trace(trace);
  std::remove(trace.c_str());
  EXPECT_FALSE(t.complete);
  EXPECT_LE(t.bytes, kLimit);
  // The recorder writes why it stopped into the trace when the limit leaves room for that note;
  // where the failed write ended exactly at the limit there is none, and the trace reads as cut
  // before its end chunk (seen once in 5 loaded suite runs). Either way the loss is said.
  const bool reason_recorded =
      t.cut.find("the recorder stopped writing: trace file " + trace + ": write failed: File too large") != std::string::npos;
  EXPECT_TRUE(reason_recorded || t.cut.find("the end chunk is missing") != std::string::npos) << t.cut;
  EXPECT_GT(t.units.size(), 0u) << "what was written before the disk filled is there";
}

TEST(RecorderOnAFullDisk, DevFullIsRefusedBeforeTheRun) {
  const MatmulRun run = run_matmul("/dev/full", 0);
  ASSERT_TRUE(WIFEXITED(run.status)) << "matmul did not exit normally: " << run.err;
  EXPECT_EQ(WEXITSTATUS(run.status), 2) << run.err;
  EXPECT_NE(run.err.find("/dev/full"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("No space left on device"), std::string::npos) << run.err;
}

}  // namespace

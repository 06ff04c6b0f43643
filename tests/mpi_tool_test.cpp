// The MPI tool (mpi/tool/, libmoirai_mpi.so) on real MPI jobs: tests/mpi/mpi_calls.cpp run by
// mpirun on 2 to 4 ranks with the tool preloaded, its rank logs (moirai/mpi/rank_log.h) read back.
// The same with MPICH's mpiexec and libmoirai_mpi_mpich.so when MPICH is here.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "moirai/mpi/rank_log.h"

extern char** environ;

namespace {

namespace fs = std::filesystem;
using moirai::mpi::MpiOp;
using moirai::mpi::RankRecord;

// An MPI library as the tests run it: its launcher, the tool built against it, the program.
struct Engine {
  const char* name;
  const char* launcher;
  const char* tool;
  const char* program;
};

const Engine kOpenMpi{"Open MPI", MOIRAI_MPIRUN, MOIRAI_MPI_TOOL, MOIRAI_MPI_CALLS};
#ifdef MOIRAI_MPI_TOOL_MPICH
const Engine kMpich{"MPICH", MOIRAI_MPIEXEC_MPICH, MOIRAI_MPI_TOOL_MPICH, MOIRAI_MPI_CALLS_MPICH};
#endif

// launch_arguments is the launcher's command line for `ranks` ranks of `program MODE DIR`, with
// the tool preloaded when `tool` and the rank folder `ranks_dir` when not empty.
std::vector<std::string> launch_arguments(const Engine& engine, int ranks, const std::string& mode,
                                          const std::string& out, bool tool, const std::string& ranks_dir) {
  std::vector<std::string> args{engine.launcher};
  const bool open_mpi = std::string(engine.name) == "Open MPI";
  // The container's flags, literally until cmake/MoiraiMPI.cmake's MOIRAI_MPIRUN_FLAGS is merged.
  if (open_mpi) args.insert(args.end(), {"--allow-run-as-root", "--oversubscribe", "--bind-to", "none"});
  auto pass = [&](const std::string& var, const std::string& value) {
    if (open_mpi) {
      args.insert(args.end(), {"-x", var + "=" + value});
    } else {
      args.insert(args.end(), {"-genv", var, value});
    }
  };
  if (tool) pass("LD_PRELOAD", engine.tool);
  if (!ranks_dir.empty()) pass("MOIRAI_MPI_RANKS_DIR", ranks_dir);
  args.insert(args.end(), {"-np", std::to_string(ranks), engine.program, mode, out});
  return args;
}

// spawn starts `args` with stderr into `stderr_file`; its pid.
pid_t spawn(const std::vector<std::string>& args, const std::string& stderr_file) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 2, stderr_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  std::vector<char*> argv;
  for (const auto& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  // The rank folder is passed by the launcher's own flags only: none from the test's environment.
  unsetenv("MOIRAI_MPI_RANKS_DIR");
  pid_t pid = -1;
  EXPECT_EQ(posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ), 0) << args[0];
  posix_spawn_file_actions_destroy(&actions);
  return pid;
}

int wait_exit(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::string read_text(const fs::path& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

// RankLog is one rank's two files as read back.
struct RankLog {
  std::vector<std::string> defs;
  std::vector<RankRecord> records;

  bool has_line(const std::string& start) const {
    for (const auto& line : defs) {
      if (line.rfind(start, 0) == 0) return true;
    }
    return false;
  }
  std::string line(const std::string& start) const {
    for (const auto& line : defs) {
      if (line.rfind(start, 0) == 0) return line;
    }
    return "";
  }
  // index is the position of the n-th (from 0) record of `op`, or -1.
  long index(MpiOp op, int n = 0) const {
    for (std::size_t i = 0; i < records.size(); ++i) {
      if (records[i].op == static_cast<std::uint8_t>(op) && n-- == 0) return static_cast<long>(i);
    }
    return -1;
  }
  const RankRecord& at(long i) const { return records.at(static_cast<std::size_t>(i)); }
  long count(MpiOp op) const {
    long n = 0;
    for (const auto& record : records) n += record.op == static_cast<std::uint8_t>(op) ? 1 : 0;
    return n;
  }
};

RankLog read_rank(const fs::path& folder, int rank) {
  RankLog log;
  std::ifstream defs(folder / moirai::mpi::defs_file_name(static_cast<std::uint32_t>(rank)));
  for (std::string line; std::getline(defs, line);) log.defs.push_back(line);
  std::ifstream events(folder / moirai::mpi::events_file_name(static_cast<std::uint32_t>(rank)), std::ios::binary);
  for (RankRecord record{}; events.read(reinterpret_cast<char*>(&record), sizeof record);) log.records.push_back(record);
  return log;
}

// A job's folders: the rank logs and the program's own outputs.
struct Job {
  fs::path root;
  fs::path ranks, out, err;
  explicit Job(const std::string& name) {
    root = fs::temp_directory_path() / ("moirai-mpi-tool-" + name + "-" + std::to_string(getpid()));
    fs::remove_all(root);
    ranks = root / "ranks";
    out = root / "out";
    err = root / "stderr.txt";
    fs::create_directories(ranks);
    fs::create_directories(out);
  }
  ~Job() {
    if (!::testing::Test::HasFailure()) fs::remove_all(root);
  }
  int run(const Engine& engine, int ranks_count, const std::string& mode, bool tool = true, bool record = true) {
    return wait_exit(spawn(launch_arguments(engine, ranks_count, mode, out, tool, record ? ranks.string() : ""), err));
  }
};

bool is(const RankRecord& record, MpiOp op) { return record.op == static_cast<std::uint8_t>(op); }

class MpiTool : public ::testing::TestWithParam<const Engine*> {};

TEST_P(MpiTool, EachCallIsRecordedAsItsFamilySays) {
  const Engine& engine = *GetParam();
  Job job("calls");
  ASSERT_EQ(job.run(engine, 4, "calls"), 0) << read_text(job.err);
  for (int rank = 0; rank < 4; ++rank) {
    SCOPED_TRACE("rank " + std::to_string(rank));
    const int right = (rank + 1) % 4, left = (rank + 3) % 4;
    RankLog log = read_rank(job.ranks, rank);
    ASSERT_FALSE(log.records.empty());
    EXPECT_EQ(log.defs.at(0), "moirai-mpi-rank-log 1");
    EXPECT_EQ(log.line("rank "), "rank " + std::to_string(rank) + " 4");
    EXPECT_EQ(log.line("offset init "), "offset init 0 0");  // one host: no ping-pong
    EXPECT_EQ(log.line("end "), "end " + std::to_string(log.records.size()) + " " + std::to_string(log.records.back().exit));
    EXPECT_TRUE(is(log.records.front(), MpiOp::init));
    EXPECT_TRUE(is(log.records.back(), MpiOp::finalize));
    for (const auto& record : log.records) {
      if (!is(record, MpiOp::completion)) {
        EXPECT_LE(record.enter, record.exit);
      }
    }
    // The ring: the send half, then the receive half with the matched source.
    long i = log.index(MpiOp::sendrecv);
    ASSERT_GE(i, 0);
    EXPECT_EQ(log.at(i).peer, right);
    EXPECT_EQ(log.at(i).tag, 7);
    EXPECT_EQ(log.at(i).value, 16u);
    ASSERT_TRUE(is(log.at(i + 1), MpiOp::sendrecv_recv));
    EXPECT_EQ(log.at(i + 1).peer, left);
    EXPECT_EQ(log.at(i + 1).value, 16u);
    // Isend and a wildcard Irecv completed by one Waitall: two completions naming their postings.
    long isend = log.index(MpiOp::isend), irecv = log.index(MpiOp::irecv);
    EXPECT_EQ(log.at(irecv).peer, moirai::mpi::kAnySource);
    EXPECT_EQ(log.at(irecv).flags & moirai::mpi::kFlagWildcardSource, moirai::mpi::kFlagWildcardSource);
    long waitall = log.index(MpiOp::waitall);
    ASSERT_GT(waitall, irecv);
    EXPECT_EQ(log.at(waitall).value, 2u);
    ASSERT_TRUE(is(log.at(waitall + 1), MpiOp::completion) && is(log.at(waitall + 2), MpiOp::completion));
    EXPECT_EQ(log.at(waitall + 1).value, static_cast<std::uint64_t>(isend));
    EXPECT_EQ(log.at(waitall + 2).value, static_cast<std::uint64_t>(irecv));
    EXPECT_EQ(log.at(waitall + 2).peer, left);  // the matched source, as a world rank
    EXPECT_EQ(log.at(waitall + 2).tag, 8);
    EXPECT_EQ(log.at(waitall + 2).enter, 16u);  // bytes received
    // The failed test writes no completion; the wait after it one.
    long test = log.index(MpiOp::test);
    EXPECT_EQ(log.at(test).value, 0u);
    EXPECT_FALSE(is(log.at(test + 1), MpiOp::completion));
    long wait = log.index(MpiOp::wait);
    EXPECT_EQ(log.at(wait).value, 1u);
    EXPECT_EQ(log.at(wait + 1).value, static_cast<std::uint64_t>(log.index(MpiOp::irecv, 1)));
    // Persistent requests: each MPI_Start instance is completed under its start record's index.
    long send_init = log.index(MpiOp::send_init), recv_init = log.index(MpiOp::recv_init);
    ASSERT_EQ(log.count(MpiOp::start), 4);
    for (int round = 0; round < 2; ++round) {
      long start = log.index(MpiOp::start, 2 * round);
      EXPECT_EQ(log.at(start).value, static_cast<std::uint64_t>(send_init));
      EXPECT_EQ(log.at(start + 1).value, static_cast<std::uint64_t>(recv_init));
      long done = log.index(MpiOp::waitall, 1 + round);
      EXPECT_EQ(log.at(done + 1).value, static_cast<std::uint64_t>(start));
      EXPECT_EQ(log.at(done + 2).value, static_cast<std::uint64_t>(start + 1));
    }
    // Mprobe and Mrecv name the matched source; a poll that found nothing says so.
    EXPECT_EQ(log.at(log.index(MpiOp::probe)).peer, left);
    EXPECT_EQ(log.at(log.index(MpiOp::mrecv)).peer, left);
    EXPECT_EQ(log.at(log.index(MpiOp::mrecv)).value, 12u);
    EXPECT_EQ(log.at(log.index(MpiOp::iprobe)).flags & moirai::mpi::kFlagNotFound, moirai::mpi::kFlagNotFound);
    // Collectives: the root as a world rank, the bytes this rank sent.
    long bcast = log.index(MpiOp::bcast);
    EXPECT_EQ(log.at(bcast).peer, 1);
    EXPECT_EQ(log.at(bcast).value, rank == 1 ? 16u : 0u);
    EXPECT_EQ(log.at(log.index(MpiOp::allreduce)).peer, moirai::mpi::kNoPeer);
    EXPECT_EQ(log.at(log.index(MpiOp::gather)).peer, 2);
    long ibarrier = log.index(MpiOp::ibarrier);
    EXPECT_EQ(log.at(log.index(MpiOp::wait, 1) + 1).value, static_cast<std::uint64_t>(ibarrier));
    // Comm_split: the new communicator's members as world ranks; a peer in it as a world rank.
    long split = log.index(MpiOp::comm_split);
    EXPECT_EQ(log.at(split).value, 2u);
    EXPECT_EQ(log.line("comm 2 "), rank % 2 == 0 ? "comm 2 0 2 0 2" : "comm 2 0 2 1 3");
    if (rank < 2) {
      long send = log.index(MpiOp::send, 2);  // after the sends of tags 10 and 12
      EXPECT_EQ(log.at(send).comm, 2);
      EXPECT_EQ(log.at(send).peer, rank + 2);
    } else {
      EXPECT_EQ(log.at(log.index(MpiOp::recv)).peer, rank - 2);
    }
    // The intercommunicator: both groups as world ranks; a peer across it is of the remote group.
    EXPECT_EQ(log.line("comm 3 "), rank % 2 == 0 ? "comm 3 2 2 0 2 | 1 3" : "comm 3 2 2 1 3 | 0 2");
    EXPECT_EQ(log.at(log.index(MpiOp::intercomm_create)).value, 3u);
    EXPECT_EQ(log.line("comm 4 "), "comm 4 3 4 0 2 1 3");
    if (rank == 0) {
      const RankRecord& send = log.at(log.index(MpiOp::send, 3));
      EXPECT_EQ(send.comm, 3);
      EXPECT_EQ(send.peer, 1);
      EXPECT_EQ(send.tag, 31);
    }
    if (rank == 1) {
      const RankRecord& recv = log.at(log.index(MpiOp::recv));
      EXPECT_EQ(recv.comm, 3);
      EXPECT_EQ(recv.peer, 0);
    }
    // The barrier MPI_Comm_dup's callback made is part of the dup, not a call of its own.
    EXPECT_EQ(log.count(MpiOp::barrier), 1);
    EXPECT_EQ(log.count(MpiOp::comm_dup), 1);
    // Waitany then Waitsome: one completion each.
    long waitany = log.index(MpiOp::waitany), waitsome = log.index(MpiOp::waitsome);
    EXPECT_EQ(log.at(waitany).value, 1u);
    EXPECT_EQ(log.at(waitsome).value, 1u);
    EXPECT_TRUE(is(log.at(waitsome + 1), MpiOp::completion));
    // Every call has its source line, in this program.
    EXPECT_NE(log.at(bcast).site, 0u);
    EXPECT_NE(log.line("site " + std::to_string(log.at(bcast).site) + " ").find("mpi_calls.cpp"), std::string::npos);
  }
}

TEST_P(MpiTool, WhatTheProgramSeesIsTheSameWithAndWithoutTheTool) {
  const Engine& engine = *GetParam();
  Job plain("plain"), recorded("recorded"), inert("inert");
  ASSERT_EQ(plain.run(engine, 4, "calls", false, false), 0) << read_text(plain.err);
  ASSERT_EQ(recorded.run(engine, 4, "calls"), 0) << read_text(recorded.err);
  ASSERT_EQ(inert.run(engine, 4, "calls", true, false), 0) << read_text(inert.err);
  for (int rank = 0; rank < 4; ++rank) {
    std::string name = "out-" + std::to_string(rank) + ".txt";
    std::string seen = read_text(plain.out / name);
    EXPECT_NE(seen.find("waitsome outcount 1"), std::string::npos);
    EXPECT_EQ(read_text(recorded.out / name), seen) << name;
    EXPECT_EQ(read_text(inert.out / name), seen) << name;
  }
  // Without a rank folder the tool says so once and writes nothing.
  std::string said = read_text(inert.err);
  EXPECT_NE(said.find("moirai-mpi: MOIRAI_MPI_RANKS_DIR is not set: this job is not recorded"), std::string::npos) << said;
  EXPECT_EQ(said.find("not set"), said.rfind("not set")) << said;
  EXPECT_TRUE(fs::is_empty(inert.ranks));
}

// killed_rank_log runs the `kill` job on 3 ranks, sends `signal` to rank 1 once its first record
// buffer is written (the state the test waits for), and reads rank 1's log after the job.
RankLog killed_rank_log(const Engine& engine, const char* name, int signal) {
  Job job(name);
  pid_t launcher = spawn(launch_arguments(engine, 3, "kill", job.out, true, job.ranks), job.err);
  fs::path reached = job.out / "reached";
  int status = 0;
  while (!fs::exists(reached)) {
    if (waitpid(launcher, &status, WNOHANG) != 0) {
      ADD_FAILURE() << "the job ended before rank 1 reached its point: " << read_text(job.err);
      return {};
    }
    // A poll interval, not a deadline: the loop ends only on the state (the file) or the job's end.
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  pid_t rank1 = std::stoi(read_text(reached));
  EXPECT_EQ(kill(rank1, signal), 0);
  EXPECT_NE(wait_exit(launcher), 0);
  return read_rank(job.ranks, 1);
}

TEST_P(MpiTool, AKilledRankKeepsItsRecordsUpToItsLastFlushAndHasNoEnd) {
  RankLog log = killed_rank_log(*GetParam(), "kill", SIGKILL);
  // MPI_Init and 1000 sendrecvs (2 records each): at least the first 1638 (one 64 KiB buffer) were written,
  // more where a flush 100 ms after the last one came between; whole records only.
  ASSERT_GE(log.records.size(), 65536u / sizeof(RankRecord));
  EXPECT_LE(log.records.size(), 2001u);
  EXPECT_TRUE(is(log.records.front(), MpiOp::init));
  EXPECT_TRUE(log.has_line("rank 1 3"));
  EXPECT_FALSE(log.has_line("end "));
  EXPECT_FALSE(log.has_line("signal "));
}

TEST_P(MpiTool, ARankEndedBySigtermWritesEveryRecordFirstAndSaysSo) {
  RankLog log = killed_rank_log(*GetParam(), "term", SIGTERM);
  // Every record (MPI_Init and 1000 sendrecvs, a record for each half), the signal line, no end.
  ASSERT_EQ(log.records.size(), 2001u);
  EXPECT_TRUE(is(log.records.front(), MpiOp::init));
  EXPECT_EQ(log.count(MpiOp::sendrecv), 1000);
  EXPECT_TRUE(log.has_line("signal 15 SIGTERM"));
  EXPECT_FALSE(log.has_line("end "));
}

TEST_P(MpiTool, MpiAbortWritesTheRecordsBeforeTheJobDies) {
  const Engine& engine = *GetParam();
  Job job("abort");
  EXPECT_NE(job.run(engine, 2, "abort"), 0);
  RankLog log = read_rank(job.ranks, 0);
  ASSERT_EQ(log.records.size(), 4u) << read_text(job.err);
  EXPECT_TRUE(is(log.records[0], MpiOp::init));
  EXPECT_TRUE(is(log.records[1], MpiOp::sendrecv));
  EXPECT_TRUE(is(log.records[3], MpiOp::abort));
  EXPECT_EQ(log.records[3].value, 3u);
  EXPECT_FALSE(log.has_line("end "));
}

TEST_P(MpiTool, CallsFromASecondThreadAreSaidNotToBeRecorded) {
  const Engine& engine = *GetParam();
  Job job("threads");
  ASSERT_EQ(job.run(engine, 2, "threads"), 0) << read_text(job.err);
  RankLog log = read_rank(job.ranks, 0);
  EXPECT_TRUE(log.has_line("thread_level 3 "));
  if (read_text(job.out / "out-0.txt").find("provided 3") != std::string::npos) {
    EXPECT_TRUE(log.has_line("warning the program runs MPI_THREAD_MULTIPLE"));
  }
  EXPECT_TRUE(log.has_line("warning a thread other than the one that called MPI_Init called MPI_Barrier"));
  EXPECT_EQ(log.count(MpiOp::barrier), 1);  // the main thread's
  EXPECT_NE(read_text(job.err).find("MPI calls from other threads are not recorded"), std::string::npos);
}

TEST_P(MpiTool, AProgramThatNeverCallsMpiFinalizeKeepsItsRecords) {
  const Engine& engine = *GetParam();
  Job job("nofinalize");
  job.run(engine, 2, "nofinalize");
  // The launcher may kill the other ranks once one exits without MPI_Finalize (MPICH's Hydra
  // does): every rank that reached its exit says so and keeps its records.
  int exited = 0;
  for (int rank = 0; rank < 2; ++rank) {
    RankLog log = read_rank(job.ranks, rank);
    EXPECT_FALSE(log.has_line("end "));
    if (!log.has_line("warning the program exited without calling MPI_Finalize")) continue;
    ++exited;
    ASSERT_FALSE(log.records.empty()) << read_text(job.err);
    EXPECT_TRUE(is(log.records.front(), MpiOp::init));
  }
  EXPECT_GE(exited, 1) << read_text(job.err);
}

// offset_line is the offset and round trip of a .defs `offset WHEN` line.
std::pair<long long, long long> offset_line(const RankLog& log, const std::string& when) {
  std::istringstream line(log.line("offset " + when + " "));
  std::string word;
  long long offset = 0, round_trip = 0;
  line >> word >> word >> offset >> round_trip;
  return {offset, round_trip};
}

// A rank whose host has another name (a UTS namespace of its own, `unshare --uts`) is on another
// node as far as the tool can tell: its offset to rank 0 is measured by ping-pong, here with 5 ms
// injected into its clock, and found within half the round trip it was measured with.
TEST(MpiToolClock, ARankOnAnotherHostMeasuresItsOffsetToRankZero) {
  if (std::system("unshare --uts true 2>/dev/null") != 0) GTEST_SKIP() << "unshare --uts is not permitted on this machine (it needs root or user namespaces): no second host name can be made";
  Job job("clock");
  std::vector<std::string> args{MOIRAI_MPIRUN, "--allow-run-as-root", "--oversubscribe", "--bind-to", "none"};
  const std::string tool = std::string("LD_PRELOAD=") + MOIRAI_MPI_TOOL, folder = "MOIRAI_MPI_RANKS_DIR=" + job.ranks.string();
  const std::string program = std::string(MOIRAI_MPI_CALLS) + " threads " + job.out.string();
  // Open MPI's -x of a second application context replaces the first's: both pass everything.
  args.insert(args.end(), {"-x", tool, "-x", folder, "-np", "1", MOIRAI_MPI_CALLS, "threads", job.out.string(), ":",
                           "-x", tool, "-x", folder, "-x", "MOIRAI_MPI_TEST_CLOCK_OFFSET_NS=5000000", "-np", "1",
                           "unshare", "--uts", "sh", "-c", "hostname moirai-other-node && exec " + program});
  ASSERT_EQ(wait_exit(spawn(args, job.err)), 0) << read_text(job.err);
  RankLog root = read_rank(job.ranks, 0), other = read_rank(job.ranks, 1);
  EXPECT_EQ(root.line("offset init "), "offset init 0 0");
  EXPECT_EQ(other.line("host "), "host moirai-other-node");
  for (const char* when : {"init", "finalize"}) {
    auto [offset, round_trip] = offset_line(other, when);
    EXPECT_GT(round_trip, 0) << when;
    EXPECT_LE(std::llabs(offset - 5'000'000), round_trip / 2 + 1) << when << " offset " << offset;
  }
}

#ifdef MOIRAI_MPI_FORTRAN
TEST(MpiToolFortran, AFortranProgramIsSaidNotToBeSeen) {
  Engine fortran = kOpenMpi;
  fortran.program = MOIRAI_MPI_FORTRAN;
  Job job("fortran");
  ASSERT_EQ(job.run(fortran, 2, "", true, true), 0) << read_text(job.err);
  std::string said = read_text(job.err);
  EXPECT_NE(said.find("(a Fortran program: libmpi_mpifh's bindings call PMPI directly): its MPI calls are not seen"),
            std::string::npos) << said;
  for (int rank = 0; rank < 2; ++rank) {
    RankLog log = read_rank(job.ranks, rank);
    EXPECT_TRUE(log.records.empty());
    EXPECT_TRUE(log.has_line("rank " + std::to_string(rank) + " 2"));
    EXPECT_TRUE(log.has_line("warning MPI was used but MPI_Init never reached libmoirai_mpi.so (a Fortran program"));
    EXPECT_FALSE(log.has_line("end "));
  }
}
#endif

#ifdef MOIRAI_MPI_TOOL_MPICH
INSTANTIATE_TEST_SUITE_P(Engines, MpiTool, ::testing::Values(&kOpenMpi, &kMpich),
                         [](const auto& engine) { return std::string(engine.param == &kOpenMpi ? "OpenMPI" : "MPICH"); });
#else
INSTANTIATE_TEST_SUITE_P(Engines, MpiTool, ::testing::Values(&kOpenMpi), [](const auto&) { return std::string("OpenMPI"); });
#endif

}  // namespace

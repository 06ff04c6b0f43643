// The rank's life: MPI_Init / MPI_Init_thread start the recording (the rank's identity, its
// files, its clock offset), MPI_Finalize ends it (the offset again, the `end` line), MPI_Abort
// writes what is buffered before the job dies; a program that exits without MPI_Finalize keeps
// its records, and one whose MPI calls never reached these wrappers (a Fortran program: Open
// MPI's Fortran bindings call PMPI directly) is told so.
#include <dlfcn.h>
#include <link.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

#include "tool_state.h"

namespace moirai::mpi_tool {

namespace {

const char* ranks_folder() {
  const char* folder = std::getenv("MOIRAI_MPI_RANKS_DIR");
  return folder != nullptr && *folder != '\0' ? folder : nullptr;
}

// one_line is `text` with its line breaks as spaces and no trailing blanks (a .defs field).
std::string one_line(std::string text) {
  for (char& c : text) c = (c == '\n' || c == '\r' || c == '\0' || c == '\t') ? ' ' : c;
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

std::string command_line() {
  std::ifstream file("/proc/self/cmdline", std::ios::binary);
  return one_line(std::string(std::istreambuf_iterator<char>(file), {}));
}

std::string host_name() {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  return host;
}

// fortran_bindings names the loaded MPI Fortran bindings library, or nullptr.
const char* fortran_bindings() {
  static const char* found = nullptr;
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void*) {
        for (const char* name : {"libmpi_mpifh", "libmpi_usempi", "libmpichfort"}) {
          if (info->dlpi_name != nullptr && std::strstr(info->dlpi_name, name) != nullptr) {
            found = name;
            return 1;
          }
        }
        return 0;
      },
      nullptr);
  return found;
}

// define_rank writes the .defs lines that say which rank of which process this is.
void define_rank(int rank, int size) {
  RankLogWriter& log = the_tool->log;
  log.define(std::string(mpi::kRankLogMagic) + " " + std::to_string(mpi::kRankLogVersion));
  log.define("rank " + std::to_string(rank) + " " + std::to_string(size));
  log.define("host " + host_name());
  log.define("pid " + std::to_string(getpid()));
  log.define("command " + command_line());
  log.define("clock monotonic 1");
}

// write_run_queue_wait writes how long this thread has waited for a CPU so far (the kernel's
// run_delay in /proc/thread-self/schedstat) and when: read at the recording's start and at
// MPI_Finalize, never on a call's path. Nothing is written where the kernel does not say.
void write_run_queue_wait(const char* when) {
  std::ifstream file("/proc/thread-self/schedstat");
  unsigned long long on_cpu = 0, waited = 0;
  if (!(file >> on_cpu >> waited)) return;
  the_tool->log.define(std::string("run_queue_wait ") + when + " " + std::to_string(waited) + " " + std::to_string(now_ns()));
}

void write_offset(const char* when, const ClockOffset& offset) {
  the_tool->log.define(std::string("offset ") + when + " " + std::to_string(offset.offset_ns) + " " +
                       std::to_string(offset.round_trip_ns));
}

// start begins the recording once PMPI_Init returned `result` (the call entered at `enter`).
void start(std::uint64_t enter, int result, int required, int provided, const void* return_address) {
  Tool& tool = *the_tool;
  tool.init_reached = true;
  if (result != MPI_SUCCESS) return;
  PMPI_Comm_rank(MPI_COMM_WORLD, &tool.rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &tool.size);
  const char* folder = ranks_folder();
  if (folder == nullptr) {
    if (tool.rank == 0 && !tool.quiet) {
      std::fprintf(stderr, "moirai-mpi: MOIRAI_MPI_RANKS_DIR is not set: this job is not recorded (libmoirai_mpi.so stays inert)\n");
    }
    return;
  }
  std::string error;
  if (!tool.log.open(folder, tool.rank, error)) {
    std::fprintf(stderr, "moirai-mpi: rank %d: %s: this rank is not recorded\n", tool.rank, error.c_str());
  }
  define_rank(tool.rank, tool.size);
  if (required >= 0) tool.log.define("thread_level " + std::to_string(required) + " " + std::to_string(provided));
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  PMPI_Get_library_version(version, &length);
  // Its first line: MPICH's string goes on with its whole configure line.
  std::string library(version, static_cast<std::size_t>(std::max(length, 0)));
  tool.log.define("library " + one_line(library.substr(0, library.find('\n'))));
  tool.comms.start(tool.rank, tool.size, tool.log);
  // Every rank takes part in the offsets' collectives, even one whose files could not be made.
  PMPI_Comm_dup(MPI_COMM_WORLD, &tool.clock_comm);
  write_offset("init", measure_clock_offset(tool.clock_comm));
  if (!tool.log.is_open()) return;
  recording_thread = true;
  tool.log.flush_on_signals();
  write_run_queue_wait("init");
  if (provided == MPI_THREAD_MULTIPLE) {
    warn("the program runs MPI_THREAD_MULTIPLE: only the calls of the thread that called MPI_Init are recorded");
  }
  std::uint32_t site = tool.sites.id(return_address, tool.log);
  tool.log.append(mpi::RankRecord{static_cast<std::uint8_t>(mpi::MpiOp::init), 0, mpi::kWorldComm, mpi::kNoPeer, 0,
                                  site, enter, now_ns(), static_cast<std::uint64_t>(provided)});
  tool.recording.store(true);
}

// Settings read when the library is loaded: the test clock offset, quiet, the Fortran bindings.
__attribute__((constructor)) void load() {
  const char* quiet = std::getenv("MOIRAI_MPI_QUIET");
  the_tool->quiet = quiet != nullptr && std::strcmp(quiet, "1") == 0;
  if (const char* offset = std::getenv("MOIRAI_MPI_TEST_CLOCK_OFFSET_NS"); offset != nullptr && *offset != '\0') {
    char* end = nullptr;
    errno = 0;
    long long value = std::strtoll(offset, &end, 10);
    if (errno != 0 || *end != '\0') {
      std::fprintf(stderr, "moirai-mpi: MOIRAI_MPI_TEST_CLOCK_OFFSET_NS='%s' is not a whole number of ns: ignored\n", offset);
    } else {
      set_test_clock_offset(value);
    }
  }
}

// At exit: a rank still recording never called MPI_Finalize (its records are kept, without the
// `end` line); a process that used MPI without our MPI_Init was not seen at all.
__attribute__((destructor)) void unload() {
  Tool& tool = *the_tool;
  if (tool.recording.exchange(false)) {
    // Records first: the launcher may kill this rank any time now (MPICH's Hydra does).
    tool.log.flush();
    warn("the program exited without calling MPI_Finalize: the rank's records end at its exit");
    tool.log.close();
    return;
  }
  int initialized = 0;
  if (tool.init_reached || ranks_folder() == nullptr || PMPI_Initialized(&initialized) != MPI_SUCCESS || initialized == 0) return;
  const char* fortran = fortran_bindings();
  std::string text = std::string("MPI was used but MPI_Init never reached libmoirai_mpi.so") +
                     (fortran != nullptr ? std::string(" (a Fortran program: ") + fortran + "'s bindings call PMPI directly)" : "") +
                     ": its MPI calls are not seen and this rank is not recorded";
  std::fprintf(stderr, "moirai-mpi: pid %d: %s\n", static_cast<int>(getpid()), text.c_str());
  // The rank's log says so too, when the launcher told the rank who it is, so that the merge
  // reports an unseen rank rather than a missing one.
  const char* rank = std::getenv("OMPI_COMM_WORLD_RANK");
  const char* size = std::getenv("OMPI_COMM_WORLD_SIZE");
  if (rank == nullptr) rank = std::getenv("PMI_RANK");
  if (size == nullptr) size = std::getenv("PMI_SIZE");
  std::string error;
  if (rank == nullptr || size == nullptr || !tool.log.open(ranks_folder(), std::atoi(rank), error)) return;
  define_rank(std::atoi(rank), std::atoi(size));
  tool.log.define("warning " + text);
  tool.log.close();
}

}  // namespace

}  // namespace moirai::mpi_tool

using namespace moirai::mpi_tool;
namespace mpi = moirai::mpi;

MOIRAI_MPI_WRAPPER MPI_Init(int* argc, char*** argv) {
  std::uint64_t enter = now_ns();
  int result = PMPI_Init(argc, argv);
  int provided = MPI_THREAD_SINGLE;
  if (result == MPI_SUCCESS) PMPI_Query_thread(&provided);
  start(enter, result, -1, provided, __builtin_return_address(0));
  return result;
}

MOIRAI_MPI_WRAPPER MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  std::uint64_t enter = now_ns();
  int result = PMPI_Init_thread(argc, argv, required, provided);
  start(enter, result, required, *provided, __builtin_return_address(0));
  return result;
}

MOIRAI_MPI_WRAPPER MPI_Finalize() {
  Tool& tool = *the_tool;
  if (tool.clock_comm == MPI_COMM_NULL) return PMPI_Finalize();
  std::uint64_t enter = now_ns();
  bool recording = tool.recording.exchange(false);
  if (recording) write_run_queue_wait("finalize");
  write_offset("finalize", measure_clock_offset(tool.clock_comm));
  PMPI_Comm_free(&tool.clock_comm);
  int result = PMPI_Finalize();
  if (!recording) return result;
  std::uint64_t exit = now_ns();
  std::uint32_t site = tool.sites.id(__builtin_return_address(0), tool.log);
  tool.log.append(mpi::RankRecord{static_cast<std::uint8_t>(mpi::MpiOp::finalize),
                                  static_cast<std::uint8_t>(result != MPI_SUCCESS ? mpi::kFlagError : 0),
                                  mpi::kWorldComm, mpi::kNoPeer, 0, site, enter, exit, 0});
  tool.log.flush();
  tool.log.define("end " + std::to_string(tool.log.records()) + " " + std::to_string(exit));
  tool.log.close();
  return result;
}

MOIRAI_MPI_WRAPPER MPI_Abort(MPI_Comm comm, int errorcode) {
  Tool& tool = *the_tool;
  if (recording_thread && tool.recording.exchange(false)) {
    std::uint64_t now = now_ns();
    std::uint32_t site = tool.sites.id(__builtin_return_address(0), tool.log);
    tool.log.append(mpi::RankRecord{static_cast<std::uint8_t>(mpi::MpiOp::abort), 0,
                                    comm_id(comm), mpi::kNoPeer, 0, site, now, now,
                                    static_cast<std::uint64_t>(static_cast<std::uint32_t>(errorcode))});
    tool.log.close();
  }
  return PMPI_Abort(comm, errorcode);
}

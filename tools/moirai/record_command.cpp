#include "record_command.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <string>

#include <CLI/CLI.hpp>

#include "child_process.h"
#include "moirai/instrument/counters.h"
#include "moirai/mpi/merge.h"
#include "moirai/proto_runtime/cost_model.h"
#include "moirai/proto_runtime/errors.h"
#include "moirai/trace/number_text.h"
#include "moirai/trace/reader.h"
#include "mpi_launcher.h"
#include "openmp_runtime.h"
#include "output_target.h"
#include "task_cost_probe.h"
#include "trace_input.h"

namespace moirai::cli {

namespace {

namespace fs = std::filesystem;

constexpr const char* kRecordUsage =
    "usage: moirai record [-o FILE] [--counters LIST] [--cost-model MODEL] [--tool LIB] -- PROGRAM ARGS...\n"
    "       moirai record [-o FILE] [--tool LIB] [--keep-ranks] -- mpirun|mpiexec LAUNCHER-ARGS... PROGRAM ARGS...\n";

constexpr const char* kRecordHelp =
    "\nRuns PROGRAM, an OpenMP program built with clang -fopenmp (LLVM's libomp), with Moirai's\n"
    "OpenMP tool loaded, and keeps the trace it records: read it with moirai stats, scg, ucc,\n"
    "report and export. PROGRAM runs unchanged, found on PATH when its name has no '/', with\n"
    "this process's standard input, output and error, and its environment plus:\n"
    "  OMP_TOOL_LIBRARIES=LIB     libomp loads the tool from it\n"
    "  MOIRAI_OMPT_TRACE=PATH     where the tool writes: a file beside FILE\n"
    "  MOIRAI_OMPT_COUNTERS=LIST  with --counters\n"
    "  MOIRAI_OMPT_COMMAND=...    PROGRAM ARGS..., the command the trace names\n"
    "  MOIRAI_OMPT_QUIET=1        the tool's own summary line is left to moirai\n"
    "  MOIRAI_OMPT_FIRST_PROGRAM=1  only the first OpenMP program PROGRAM starts is recorded\n"
    "  MOIRAI_OMPT_TASK_COST=...  libomp's work per task, which the tool books out of the units\n"
    "                             as the runtime's, marked estimated (and _SOURCE: whence)\n"
    "Ctrl-C (SIGINT) reaches PROGRAM alone, and SIGTERM or SIGHUP sent to moirai is passed on\n"
    "to it: the tool then writes the whole trace, marked interrupted.\n\n"
    "  -o, --output FILE   the trace; default PROGRAM's name + .mtrace in this directory\n"
    "                      ('-' is refused: PROGRAM's output goes to standard output)\n"
    "  --counters LIST     counters for each unit, the names every Moirai recorder takes\n"
    "                      (PAPI presets, perf::NAME, 'none')\n"
    "  --cost-model MODEL  libomp's work per task from MODEL's omp.* lines (moirai-calibrate\n"
    "                      writes them); without it moirai-omp-task-cost measures it first\n"
    "                      (a run of about 10 ms; a warning, and no estimate, when it cannot)\n"
    "  --tool LIB          the tool library; default libmoirai_ompt.so (an MPI job:\n"
    "                      libmoirai_mpi.so, MPICH's: libmoirai_mpi_mpich.so) of this installation\n"
    "                      (<prefix>/bin/moirai -> <prefix>/LIBDIR/), else of the build tree\n"
    "  --keep-ranks        an MPI job: keep the rank logs (FILE.ranks/) after the merge\n"
    "  -h, --help          print this help and exit\n\n"
    "FILE is replaced only when the run wrote a trace, whole or cut (a program that crashed or\n"
    "was killed leaves a partial trace, said so); otherwise FILE is left as it was and moirai\n"
    "says why there is no trace: a program built with GCC's libgomp (no OMPT: rebuild it with\n"
    "clang -fopenmp), one that does not use OpenMP, one linked statically, LLVM's libomp with the\n"
    "tool not started (OMP_TOOL=disabled, or the program never entered OpenMP), or a script,\n"
    "whose programs it cannot see.\n\n"
    "Exit status: PROGRAM's when it wrote a trace (128 + N when signal N killed it); 3 PROGRAM\n"
    "ran but wrote no trace (the message says why); 2 bad input (flags, no PROGRAM, a PROGRAM\n"
    "not found or not runnable, an unwritable FILE, a missing --tool); 1 the tool library is not\n"
    "installed, or the trace could not be put in place.\n\n"
    "An MPI job: when PROGRAM is an MPI launcher (Open MPI's mpirun, mpiexec, orterun,\n"
    "mpirun.openmpi, mpiexec.openmpi; MPICH's mpiexec.mpich, mpiexec.hydra, mpirun.mpich; a plain\n"
    "mpiexec is asked --version which it is), moirai passes every rank, on every node, the MPI tool\n"
    "and the folder for its log (Open MPI: -x VAR=value; MPICH: -genv VAR value, right after the\n"
    "launcher's name):\n"
    "  LD_PRELOAD=LIB              each rank loads the tool (before what LD_PRELOAD held)\n"
    "  MOIRAI_MPI_RANKS_DIR=FILE.ranks  where each rank writes its log while it runs\n"
    "  MOIRAI_MPI_QUIET=1          the tool's own lines are left to moirai\n"
    "waits for the job, merges the rank logs into FILE (one trace of the whole run: a rank is a\n"
    "core, each stretch between two MPI calls a unit, each message or collective a constraint)\n"
    "and removes FILE.ranks/ unless --keep-ranks. A rank cut short (killed, MPI_Abort, no\n"
    "MPI_Finalize) is kept up to its last record and named in a warning; a launcher that fails\n"
    "before any rank recorded leaves no trace (exit 3). By hand, without moirai record:\n"
    "  mpirun -x LD_PRELOAD=LIB -x MOIRAI_MPI_RANKS_DIR=DIR -np 4 ./prog ARGS\n"
    "  moirai mpi-merge DIR -o FILE\n\n"
    "examples:\n"
    "  clang++-16 -fopenmp -g -O2 cholesky.cpp -o cholesky\n"
    "  moirai record -o chol.mtrace -- ./cholesky 16 128 && moirai report chol.mtrace\n"
    "  moirai record -o run.mtrace -- mpirun -np 4 ./prog ARGS && moirai report run.mtrace\n";

// RecordSpec is a parsed `moirai record` command line.
struct RecordSpec {
  bool help = false;
  std::string output;
  std::string counters;
  std::string cost_model;
  std::string tool;
  bool keep_ranks = false;  // an MPI job's rank logs are kept
  std::vector<std::string> program;  // PROGRAM ARGS...
};

RecordSpec parse_record_spec(const std::vector<std::string_view>& args) {
  RecordSpec spec;
  // The words after '--' are the program's, never parsed here.
  const auto separator = std::find(args.begin(), args.end(), "--");
  if (std::any_of(args.begin(), separator, [](std::string_view word) { return word == "-h" || word == "--help"; })) {
    spec.help = true;
    return spec;
  }
  CLI::App cli("moirai record");
  cli.allow_extras();
  cli.set_help_flag();
  const std::vector<std::pair<CLI::Option*, std::string*>> valued = {
      {cli.add_option("-o,--output", spec.output), &spec.output},
      {cli.add_option("--counters", spec.counters), &spec.counters},
      {cli.add_option("--cost-model", spec.cost_model), &spec.cost_model},
      {cli.add_option("--tool", spec.tool), &spec.tool}};
  // 0 or 1 value each, so a flag given without one reaches the check below.
  for (const auto& [option, into] : valued) option->expected(0, 1)->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  cli.add_flag("--keep-ranks", spec.keep_ranks);
  std::vector<std::string> reversed(std::make_reverse_iterator(separator), args.rend());
  try {
    cli.parse(reversed);
  } catch (const CLI::ParseError& error) {
    throw std::invalid_argument(error.what());
  }
  if (separator == args.end()) throw std::invalid_argument("no '--' followed by the program to run");
  if (!cli.remaining().empty()) {
    const std::string extra = cli.remaining().front();
    if (extra.starts_with("-")) throw std::invalid_argument("unknown option '" + extra + "'");
    throw std::invalid_argument("unexpected '" + extra + "' before '--' (the program to run goes after '--')");
  }
  for (const auto& [option, into] : valued) {
    if (option->count() > 0 && into->empty()) throw std::invalid_argument(option->get_name() + " needs a value");
  }
  // A counter the tool would refuse is refused here, before the program runs for nothing.
  for (std::size_t start = 0; !spec.counters.empty() && start <= spec.counters.size();) {
    const std::size_t comma = std::min(spec.counters.find(',', start), spec.counters.size());
    const std::string name = spec.counters.substr(start, comma - start);
    if (name != "none") {
      if (const std::string unknown = instrument::unknown_counter(name); !unknown.empty()) {
        throw std::invalid_argument("--counters: " + unknown);
      }
    }
    start = comma + 1;
  }
  spec.program.assign(separator + 1, args.end());
  if (spec.program.empty() || spec.program.front().empty()) throw std::invalid_argument("no program after '--'");
  return spec;
}

// runnable is why `path` cannot be run ("" when it can).
std::string unrunnable(const std::string& path) {
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  if (!fs::exists(status)) return "no such file";
  if (fs::is_directory(status)) return "it is a directory";
  if (!fs::is_regular_file(status)) return "not a regular file";
  if (::access(path.c_str(), X_OK) != 0) return std::string("not executable (") + std::strerror(errno) + ")";
  return {};
}

// find_program is the file `name` runs, as execvp finds it: itself when it has a '/', else
// the first runnable one on PATH. Throws std::invalid_argument naming why there is none.
std::string find_program(const std::string& name) {
  if (name.find('/') != std::string::npos) {
    if (const std::string why = unrunnable(name); !why.empty()) throw std::invalid_argument(name + ": " + why);
    return name;
  }
  const char* path = std::getenv("PATH");
  const std::string dirs = path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
  std::string first_refusal;
  for (std::size_t start = 0; start <= dirs.size();) {
    const std::size_t colon = std::min(dirs.find(':', start), dirs.size());
    const std::string dir = colon == start ? "." : dirs.substr(start, colon - start);
    const std::string candidate = dir + "/" + name;
    const std::string why = unrunnable(candidate);
    if (why.empty()) return candidate;
    if (first_refusal.empty() && why != "no such file") first_refusal = candidate + ": " + why;
    start = colon + 1;
  }
  if (!first_refusal.empty()) throw std::invalid_argument(name + ": " + first_refusal);
  throw std::invalid_argument(name + ": not found on PATH");
}

// ToolLibrary is a tool library Moirai builds: what it is, its file name, where the build tree has it.
struct ToolLibrary {
  const char* what;        // "OpenMP tool"
  const char* file_name;   // libmoirai_ompt.so
  const char* build_path;  // "" : not built here
};

constexpr ToolLibrary kOpenMPTool{"OpenMP tool", MOIRAI_OMPT_FILE_NAME, MOIRAI_OMPT_BUILD_PATH};
constexpr ToolLibrary kOpenMPITool{"MPI tool (Open MPI)", MOIRAI_MPI_FILE_NAME, MOIRAI_MPI_BUILD_PATH};
constexpr ToolLibrary kMPICHTool{"MPI tool (MPICH)", MOIRAI_MPI_MPICH_FILE_NAME, MOIRAI_MPI_MPICH_BUILD_PATH};

// find_tool is the tool library to load: --tool, else the installed one beside this
// executable's prefix, else the build tree's. Throws naming the places it looked.
std::string find_tool(const std::string& given, const ToolLibrary& library) {
  if (!given.empty()) {
    std::error_code error;
    if (!fs::is_regular_file(given, error)) throw std::invalid_argument("--tool " + given + ": no such file");
    return fs::absolute(given).lexically_normal().string();
  }
  std::vector<std::string> looked;
  std::error_code error;
  const fs::path self = fs::read_symlink("/proc/self/exe", error);
  if (!error) looked.push_back((self.parent_path() / MOIRAI_BIN_TO_LIB / library.file_name).lexically_normal().string());
  if (*library.build_path != '\0') looked.emplace_back(library.build_path);
  for (const std::string& candidate : looked) {
    if (fs::is_regular_file(candidate, error)) return candidate;
  }
  std::string places;
  for (const std::string& candidate : looked) places += (places.empty() ? "" : " or ") + candidate;
  throw std::runtime_error(std::string("cannot find the ") + library.what + " " + library.file_name + " (looked for " + places +
                           "): install Moirai, or name it with --tool LIB");
}

// TaskCostGiven is libomp's work per task for the tool, and whence it came.
struct TaskCostGiven {
  std::string figures;  // MOIRAI_OMPT_TASK_COST; empty: none
  std::string source;   // MOIRAI_OMPT_TASK_COST_SOURCE
};

// task_cost_for is MODEL's omp.* lines (a model without them is bad input), else what the probe
// measures now; when it cannot, a warning says so and the units keep libomp's work.
TaskCostGiven task_cost_for(const std::string& model_path) {
  if (!model_path.empty()) {
    proto::CostModel model;
    try {
      model = proto::CostModel::load(model_path);
    } catch (const proto::ConfigError& error) {
      throw std::invalid_argument("--cost-model: " + std::string(error.what()));
    }
    if (!model.omp) {
      throw std::invalid_argument("--cost-model " + model_path +
                                  ": no omp.* lines (libomp's work per task); moirai-calibrate writes them where "
                                  "moirai-omp-task-cost is built");
    }
    const auto ns = [&](std::uint64_t ticks) { return static_cast<double>(ticks) * 1e9 / model.clock_hz; };
    const ompt::TaskCost cost{ns(model.omp->create), ns(model.omp->create_dep), ns(model.omp->end), ns(model.omp->end_dep)};
    const std::string figures = ompt::task_cost_text(cost);
    try {
      (void)ompt::parse_task_cost(figures);  // what the tool would refuse, refused here
    } catch (const std::invalid_argument& bad) {
      throw std::invalid_argument("--cost-model " + model_path + ": its omp.* lines make " + bad.what());
    }
    return {figures, "calibration " + model_path};
  }
  try {
    const tools::ProbedTaskCost probed = tools::probe_task_cost();
    return {ompt::task_cost_text(probed.cost), "measured at start by moirai-omp-task-cost (" + probed.how +
                                                   "; its whole run took " + trace::number_text(probed.seconds * 1e3, "%.1f") +
                                                   " ms)"};
  } catch (const std::runtime_error& error) {
    std::cerr << "moirai record: warning: libomp's work per task is not known, so the units keep it: " << error.what() << '\n';
    return {};
  }
}

// trace_size is the size of the file the tool was to write (0: none).
std::uintmax_t trace_size(const std::string& path) {
  std::error_code error;
  const std::uintmax_t size = fs::file_size(path, error);
  return error ? 0 : size;
}

// how_it_ended says how the program's run ended, e.g. "exited with status 0".
std::string how_it_ended(const tools::ChildStatus& status) {
  if (status.signal != 0) {
    return "was killed by signal " + std::to_string(status.signal) + " (" + strsignal(status.signal) + ")";
  }
  return "exited with status " + std::to_string(status.exit_code);
}

// why_no_trace says why a run of `program` (its file: `path`) wrote no trace, and what to do.
std::string why_no_trace(const std::string& program, const std::string& path) {
  using Kind = ProgramRuntime::Kind;
  const ProgramRuntime runtime = openmp_runtime_of(path);
  const std::string through = runtime.through.empty() ? "" : ", needed by " + runtime.through;
  switch (runtime.kind) {
    case Kind::libgomp:
      return program + " uses GCC's libgomp (" + runtime.library + through +
             "), which has no OMPT tools interface: rebuild it with clang -fopenmp (LLVM's libomp), "
             "e.g. clang++-16 -fopenmp -g, and record that";
    case Kind::libomp: {
      const char* disabled = std::getenv("OMP_TOOL");
      if (disabled != nullptr && std::string_view(disabled) == "disabled") {
        return program + " uses LLVM's libomp (" + runtime.library + through +
               "), but OMP_TOOL=disabled in the environment stops it from loading any tool: unset OMP_TOOL";
      }
      return program + " uses LLVM's libomp (" + runtime.library + through +
             "), but the tool did not start: the program never entered the OpenMP runtime, libomp did not load "
             "the tool, or the tool declined (run with OMP_TOOL_VERBOSE_INIT=stderr to see what libomp tried)";
    }
    case Kind::no_openmp:
      return program + " does not use OpenMP: neither it nor the libraries it loads need an OpenMP runtime "
                       "(LLVM's libomp, GCC's libgomp); moirai record records programs built with clang -fopenmp";
    case Kind::static_program:
      return program + " is linked statically, so no OpenMP runtime library can load the tool: link it dynamically "
                       "with clang -fopenmp";
    case Kind::script:
      return program + " is a script (" + runtime.detail +
             "): moirai cannot tell whether the programs it runs use LLVM's libomp; record the OpenMP program itself";
    case Kind::not_elf:
      return program + " is not an ELF program, so moirai cannot tell whether it uses OpenMP";
    case Kind::unreadable:
      break;
  }
  return "cannot read " + path + " (" + runtime.detail + ") to tell whether it uses OpenMP";
}

// exit_status is what a shell says of the run: the program's status, or 128 + its signal.
int exit_status(const tools::ChildStatus& status) { return status.signal != 0 ? 128 + status.signal : status.exit_code; }

// output_for is the trace's file: -o, else PROGRAM's name + .mtrace here; '-' is refused.
std::string output_for(const RecordSpec& spec) {
  const std::string& program = spec.program.front();
  const std::string output = spec.output.empty() ? fs::path(program).filename().string() + ".mtrace" : spec.output;
  if (output == "-") {
    throw std::invalid_argument("-o -: the trace cannot go to standard output, where " + program + "'s output goes; name a file");
  }
  return output;
}

// rank_logs is how many rank logs (rank-R.events) the ranks wrote into `ranks_dir`.
std::size_t rank_logs(const fs::path& ranks_dir) {
  std::size_t count = 0;
  std::error_code error;
  for (fs::directory_iterator entry(ranks_dir, error), end; !error && entry != end; entry.increment(error)) {
    const std::string name = entry->path().filename().string();
    if (name.starts_with("rank-") && name.ends_with(".events")) ++count;
  }
  return count;
}

// cut_ranks_text names the ranks cut short, e.g. "rank 2 (killed or cut (no end line); 120 records,
// the last at 35.200 ms)".
std::string cut_ranks_text(const std::vector<mpi::CutRank>& cut) {
  std::string text;
  for (const mpi::CutRank& rank : cut) {
    text += (text.empty() ? "" : ", ") + std::string("rank ") + std::to_string(rank.rank) + " (" + rank.why + "; " +
            std::to_string(rank.records) + " records, the last at " +
            trace::number_text(static_cast<double>(rank.last_time) * 1e-6, "%.3f") + " ms)";
  }
  return text;
}

// merged_job merges the rank logs of a job that ended as `status` into `target` and says what was
// written; the rank folder goes unless `spec.keep_ranks`, or when the logs do not merge (kept to look at).
int merged_job(const RecordSpec& spec, const tools::ChildStatus& status, const fs::path& ranks_dir, OutputTarget& target,
               const std::string& output, const std::string& kept_note) {
  const std::string& launcher = spec.program.front();
  mpi::MergeResult result;
  try {
    result = mpi::merge_rank_logs({.ranks_dir = ranks_dir.string(), .trace_path = target.path(),
                                   .command_line = tools::command_text(spec.program)});
  } catch (const mpi::MergeError& error) {
    std::cerr << "moirai: error: record: no trace written (" << launcher << " " << how_it_ended(status) << kept_note
              << "): the rank logs in " << ranks_dir.string() << " (kept) do not make a trace: " << target.explain(error.what())
              << '\n';
    return kNoTraceWritten;
  }
  for (const std::string& warning : result.warnings) std::cerr << "moirai record: warning: " << warning << '\n';
  if (!result.cut.empty()) {
    std::cerr << "moirai record: warning: " << result.cut.size() << " of " << result.ranks
              << " ranks cut short before MPI_Finalize: " << cut_ranks_text(result.cut)
              << "; the trace holds each up to its last record\n";
  }
  target.commit();
  const auto count = [](std::uint64_t n, const char* one, const char* many) { return std::to_string(n) + " " + (n == 1 ? one : many); };
  std::cerr << "moirai record: " << launcher << " " << how_it_ended(status) << "; wrote " << output << ": "
            << count(result.ranks, "rank", "ranks") << " on " << count(result.nodes, "node", "nodes") << ", "
            << count(result.units, "unit", "units") << ", " << count(result.messages, "message", "messages") << ", "
            << count(result.collectives, "collective", "collectives");
  if (result.clock_violations > 0) {
    std::cerr << ", " << result.clock_violations << " clock violations corrected (" << result.clock_violations_left << " left)";
  }
  std::cerr << '\n';
  std::error_code error;
  if (spec.keep_ranks) {
    std::cerr << "moirai record: the rank logs are kept in " << ranks_dir.string() << '\n';
  } else if (fs::remove_all(ranks_dir, error); error) {
    std::cerr << "moirai record: warning: cannot remove " << ranks_dir.string() << ": " << error.message() << '\n';
  }
  return exit_status(status);
}

// record_mpi_job runs an MPI job through its launcher (`launcher_path`, of family `launcher`)
// with the MPI tool in every rank, and merges what the ranks wrote into one trace.
int record_mpi_job(const RecordSpec& spec, const std::string& launcher_path, MpiLauncher launcher) {
  const std::string& name = spec.program.front();
  const std::string family = launcher_name(launcher);
  if (!spec.counters.empty()) throw std::invalid_argument("--counters: not for an MPI job (" + name + " is " + family + "'s launcher)");
  if (!spec.cost_model.empty()) {
    throw std::invalid_argument("--cost-model: not for an MPI job (" + name + " is " + family + "'s launcher)");
  }
  const std::string tool = find_tool(spec.tool, launcher == MpiLauncher::mpich ? kMPICHTool : kOpenMPITool);
  const std::string output = output_for(spec);
  std::error_code error;
  const bool existed = fs::exists(output, error);
  OutputTarget target("-o", output, OutputTarget::Kind::file, {launcher_path, tool});
  const fs::path ranks_dir = fs::absolute(output + ".ranks").lexically_normal();
  if (fs::exists(ranks_dir, error)) {
    throw std::invalid_argument(ranks_dir.string() + " is already there (the rank logs of an earlier run, kept with "
                                "--keep-ranks?): remove it, or name another -o");
  }
  if (!fs::create_directory(ranks_dir, error)) {
    throw std::invalid_argument("cannot make the rank folder " + ranks_dir.string() + ": " + error.message());
  }
  std::string preload = tool;
  if (const char* before = std::getenv("LD_PRELOAD"); before != nullptr && *before != '\0') preload += std::string(":") + before;

  tools::ChildSpec child;
  child.argv = with_rank_environment(spec.program, launcher,
                                     {{"LD_PRELOAD", preload}, {"MOIRAI_MPI_RANKS_DIR", ranks_dir.string()}, {"MOIRAI_MPI_QUIET", "1"}});
  child.program = launcher_path;
  child.in_path.clear();
  child.foreground = true;
  const tools::ChildStatus status = tools::run_child(child);
  const std::string kept_note = existed ? "; " + output + " is left as it was" : "";
  const auto no_trace = [&](const std::string& why) {
    fs::remove_all(ranks_dir, error);
    std::cerr << "moirai: error: record: no trace written (" << name << " " << how_it_ended(status) << kept_note << "): " << why
              << '\n';
    return kNoTraceWritten;
  };
  if (!status.started) {
    fs::remove_all(ranks_dir, error);
    throw std::invalid_argument("cannot run " + name + ": " + status.error);
  }
  if (rank_logs(ranks_dir) == 0) {
    if (!status.succeeded()) {
      return no_trace("the job failed before any rank recorded; " + name + "'s messages above say why (a program "
                      "not found, more ranks than slots: --oversubscribe, as root: --allow-run-as-root)");
    }
    return no_trace("no rank wrote a log: the program " + name + " ran never called MPI_Init, is linked statically, "
                    "or is not built against " + family + " (the MPI tool " + tool + " is built for " + family + ")");
  }
  return merged_job(spec, status, ranks_dir, target, output, kept_note);
}

}  // namespace

int record_command(const std::vector<std::string_view>& args) {
  const RecordSpec spec = parse_record_spec(args);
  if (spec.help) {
    std::cout << kRecordUsage << kRecordHelp;
    return 0;
  }
  const std::string& program = spec.program.front();
  const std::string program_path = find_program(program);
  if (const MpiLauncher launcher = mpi_launcher_of(program, program_path); launcher != MpiLauncher::none) {
    return record_mpi_job(spec, program_path, launcher);
  }
  if (spec.keep_ranks) throw std::invalid_argument("--keep-ranks: only for an MPI job (PROGRAM an MPI launcher: mpirun, mpiexec)");
  const std::string tool = find_tool(spec.tool, kOpenMPTool);
  const std::string output = output_for(spec);
  std::error_code ignored;
  const bool existed = fs::exists(output, ignored);
  OutputTarget target("-o", output, OutputTarget::Kind::file, {program_path, tool});
  const TaskCostGiven task_cost = task_cost_for(spec.cost_model);

  tools::ChildSpec child;
  child.argv = spec.program;
  child.program = program_path;
  child.in_path.clear();
  child.foreground = true;
  child.environment = {{"OMP_TOOL_LIBRARIES", tool},
                       {"MOIRAI_OMPT_TRACE", fs::absolute(target.path()).string()},
                       {"MOIRAI_OMPT_COMMAND", tools::command_text(spec.program)},
                       {"MOIRAI_OMPT_QUIET", "1"},  // moirai says what was written, once
                       {"MOIRAI_OMPT_FIRST_PROGRAM", "1"}};  // a script's later OpenMP programs leave the trace alone
  if (!spec.counters.empty()) child.environment.emplace_back("MOIRAI_OMPT_COUNTERS", spec.counters);
  if (!task_cost.figures.empty()) {
    child.environment.emplace_back("MOIRAI_OMPT_TASK_COST", task_cost.figures);
    child.environment.emplace_back("MOIRAI_OMPT_TASK_COST_SOURCE", task_cost.source);
  }
  const tools::ChildStatus status = tools::run_child(child);
  if (!status.started) throw std::invalid_argument("cannot run " + program + ": " + status.error);

  // no_trace says the run left no trace to keep, and why.
  const auto no_trace = [&](const std::string& why) {
    std::cerr << "moirai: error: record: no trace written (" << program << " " << how_it_ended(status)
              << (existed ? "; " + output + " is left as it was" : "") << "): " << why << '\n';
    return kNoTraceWritten;
  };
  if (trace_size(target.path()) == 0) return no_trace(why_no_trace(program, program_path));
  // Read back with the checks every command makes; its warnings name the temporary the tool
  // wrote, which `explain` turns into the output's name.
  std::string summary;
  std::ostringstream warnings;
  try {
    const trace::Trace trace = tools::read_checked_trace(target.path(), "moirai record", warnings);
    summary = std::to_string(trace.units.size()) + " units on " + std::to_string(trace.core_count) + " cores";
    if (!trace.interrupted.empty()) summary += "; interrupted: " + trace.interruption();
    // The tool records the first OMP_NUM_THREADS threads; a wider team (num_threads, nested
    // parallelism) ran partly outside the trace, and the views would show only its recorded part.
    if (const auto unrecorded = trace.metadata.find("omp_unrecorded_threads");
        unrecorded != trace.metadata.end() && unrecorded->second != "0") {
      warnings << "moirai record: warning: " << target.path() << ": " << unrecorded->second
               << " OpenMP threads beyond the " << trace.core_count
               << " recorded cores ran unrecorded (a num_threads clause or nested parallelism above "
                  "OMP_NUM_THREADS): the units they ran are not in the trace; record with OMP_NUM_THREADS set "
                  "to the widest team\n";
    }
  } catch (const tools::TraceDoesNotFit& error) {
    summary = "too large to read back here (" + target.explain(error.what()) + ")";
  } catch (const tools::UnreadableTrace& error) {
    // The message names the temporary the tool wrote, which is gone once said: the reason alone.
    std::string why = error.what();
    if (why.starts_with(target.path() + ": ")) why.erase(0, target.path().size() + 2);
    return no_trace("what the tool wrote is no readable trace: " + target.explain(why));
  }
  const std::string warned = target.explain(warnings.str());  // before commit, while it knows the temporary
  target.commit();
  std::cerr << "moirai record: " << program << " " << how_it_ended(status) << "; wrote " << output << ": " << summary
            << '\n' << warned;
  if (status.signal != 0) {
    std::cerr << "moirai record: the trace holds what the tool recorded until " << program << " was killed\n";
  }
  return exit_status(status);
}

}  // namespace moirai::cli

#include "mpi_launcher.h"

#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string_view>

#include "child_process.h"

namespace moirai::cli {

namespace {

namespace fs = std::filesystem;

// by_name is the family a launcher's file name says, or none when the name alone cannot tell
// (plain mpirun and mpiexec: Debian's alternatives point them at either implementation).
MpiLauncher by_name(std::string_view name) {
  constexpr std::array<std::string_view, 4> open_mpi = {"orterun", "mpirun.openmpi", "mpiexec.openmpi", "prterun"};
  constexpr std::array<std::string_view, 3> mpich = {"mpiexec.mpich", "mpiexec.hydra", "mpirun.mpich"};
  for (const std::string_view known : open_mpi) {
    if (name == known) return MpiLauncher::open_mpi;
  }
  for (const std::string_view known : mpich) {
    if (name == known) return MpiLauncher::mpich;
  }
  return MpiLauncher::none;
}

// by_version is the family `path --version` names, or none (it did not run, or said neither).
MpiLauncher by_version(const std::string& path) {
  std::string out = (fs::temp_directory_path() / "moirai-launcher-XXXXXX").string();
  const int fd = ::mkstemp(out.data());
  if (fd < 0) return MpiLauncher::none;
  ::close(fd);
  const tools::ChildStatus status = tools::run_child({path, "--version"}, out, out, 10);
  std::ifstream file(out);
  std::stringstream text;
  text << file.rdbuf();
  std::error_code ignored;
  fs::remove(out, ignored);
  if (!status.started) return MpiLauncher::none;
  const std::string said = text.str();
  if (said.find("Open MPI") != std::string::npos || said.find("OpenRTE") != std::string::npos) return MpiLauncher::open_mpi;
  if (said.find("HYDRA") != std::string::npos || said.find("MPICH") != std::string::npos) return MpiLauncher::mpich;
  return MpiLauncher::none;
}

}  // namespace

MpiLauncher mpi_launcher_of(const std::string& name, const std::string& path) {
  const std::string base = fs::path(name).filename().string();
  if (const MpiLauncher known = by_name(base); known != MpiLauncher::none) return known;
  if (base != "mpirun" && base != "mpiexec") return MpiLauncher::none;
  std::error_code error;
  const fs::path target = fs::canonical(path, error);
  if (!error) {
    if (const MpiLauncher known = by_name(target.filename().string()); known != MpiLauncher::none) return known;
  }
  const MpiLauncher asked = by_version(path);
  if (asked != MpiLauncher::none) return asked;
  return base == "mpirun" ? MpiLauncher::open_mpi : MpiLauncher::none;
}

std::string launcher_name(MpiLauncher launcher) {
  switch (launcher) {
    case MpiLauncher::open_mpi:
      return "Open MPI";
    case MpiLauncher::mpich:
      return "MPICH";
    case MpiLauncher::none:
      break;
  }
  return "no MPI launcher";
}

std::vector<std::string> with_rank_environment(const std::vector<std::string>& argv, MpiLauncher launcher,
                                               const std::vector<std::pair<std::string, std::string>>& environment) {
  std::vector<std::string> flags;
  for (const auto& [name, value] : environment) {
    if (launcher == MpiLauncher::open_mpi) {
      flags.insert(flags.end(), {"-x", name + "=" + value});
    } else {
      flags.insert(flags.end(), {"-genv", name, value});
    }
  }
  std::vector<std::string> command(argv.begin(), argv.begin() + 1);
  command.insert(command.end(), flags.begin(), flags.end());
  command.insert(command.end(), argv.begin() + 1, argv.end());
  return command;
}

}  // namespace moirai::cli

// Which MPI launcher a command starts (Open MPI's mpirun, MPICH's Hydra mpiexec), and how it passes
// an environment variable to every rank, on this node and on the others: what `moirai record`
// needs to record an MPI job (docs/mpi.md).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace moirai::cli {

// MpiLauncher is the family of an MPI launcher.
enum class MpiLauncher {
  none,      // not an MPI launcher: an ordinary program
  open_mpi,  // mpirun, mpiexec, orterun, mpirun.openmpi, mpiexec.openmpi: `-x VAR=value`
  mpich,     // mpiexec.mpich, mpiexec.hydra, mpirun.mpich: `-genv VAR value`
};

// mpi_launcher_of is the family of the program `name` (as typed) whose file is `path`: by its
// name, else by the name the symbolic links lead to, else (plain mpirun or mpiexec) by what its
// `--version` prints; plain mpirun that says neither is taken for Open MPI's.
MpiLauncher mpi_launcher_of(const std::string& name, const std::string& path);

// launcher_name is the family's name for messages ("Open MPI", "MPICH").
std::string launcher_name(MpiLauncher launcher);

// with_rank_environment is `argv` (launcher first) with the flags that set each of `environment`
// in every rank inserted right after the launcher's name, in the family's form.
std::vector<std::string> with_rank_environment(const std::vector<std::string>& argv, MpiLauncher launcher,
                                               const std::vector<std::pair<std::string, std::string>>& environment);

}  // namespace moirai::cli

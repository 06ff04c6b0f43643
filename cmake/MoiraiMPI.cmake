# MPI for Moirai's MPI front-end (mpi/, apps/mpi/, docs/mpi.md): which MPI implementations are
# installed, the launcher that runs their programs, and the one list of launcher flags a container
# needs. Open MPI is the engine the tests use (Debian: openmpi-bin, libopenmpi-dev); MPICH
# (mpich, libmpich-dev) is found beside it when installed. Headers and libraries come from
# pkg-config, not from the mpicc wrappers, because Debian's alternatives may point `mpicc` at
# either implementation while a program must be built against the one whose launcher runs it.
#
# Results (cache, internal, so the MPI tests of an unchanged tree stay as they were):
#   MOIRAI_HAVE_MPI         Open MPI's headers, library and launcher are here (moirai::openmpi)
#   MOIRAI_MPIRUN           Open MPI's launcher (mpirun.openmpi, else orterun, else mpirun)
#   MOIRAI_MPIRUN_FLAGS     the flags every run in this build's tests and scripts gives it (below)
#   MOIRAI_HAVE_MPICH       MPICH's headers, library and launcher are here (moirai::mpich)
#   MOIRAI_MPIEXEC_MPICH    MPICH's launcher (mpiexec.mpich, else mpiexec.hydra)
# and the function moirai_mpi_app(), which builds an MPI program.
include_guard(GLOBAL)
find_package(PkgConfig REQUIRED)

# moirai_mpi_find(<have-var> <pkg-config module> <launcher-var> <alias> <name> <launcher>...): the
# implementation's pkg-config module and its launcher (the first of the names found) make
# <have-var> TRUE and the imported target <alias>; else <have-var> is FALSE and configure says so.
function(moirai_mpi_find have module launcher alias name)
  string(MAKE_C_IDENTIFIER "MOIRAI_PC_${module}" prefix)
  pkg_check_modules(${prefix} QUIET IMPORTED_TARGET GLOBAL ${module})
  find_program(${launcher} NAMES ${ARGN} DOC "${name}'s launcher")
  if(${prefix}_FOUND AND ${launcher})
    set(${have} TRUE CACHE INTERNAL "${name}'s headers, library (pkg-config ${module}) and launcher are installed")
    if(NOT TARGET ${alias})
      add_library(${alias} ALIAS PkgConfig::${prefix})
    endif()
    message(STATUS "MPI: ${name} ${${prefix}_VERSION}, launcher ${${launcher}}")
  else()
    set(${have} FALSE CACHE INTERNAL "${name}'s headers, library (pkg-config ${module}) and launcher are installed")
    message(STATUS "MPI: ${name} not found (pkg-config ${module}, ${ARGN}): what needs it is left out; "
                   "scripts/setup.sh installs it")
  endif()
endfunction()
moirai_mpi_find(MOIRAI_HAVE_MPI ompi-c MOIRAI_MPIRUN moirai::openmpi "Open MPI" mpirun.openmpi orterun mpirun)
moirai_mpi_find(MOIRAI_HAVE_MPICH mpich MOIRAI_MPIEXEC_MPICH moirai::mpich MPICH mpiexec.mpich mpiexec.hydra)

# MOIRAI_MPIRUN_FLAGS: what Open MPI needs to run N ranks in a container or a small VM, in one place:
#  - --allow-run-as-root: Open MPI refuses to start as root without it (containers run as root);
#  - --oversubscribe: more ranks than cores (4 ranks on a 2-core machine);
#  - --bind-to none: by default each of 2 ranks is bound to one core and further ranks share them;
#  - --mca pml ob1 --mca btl self,vader,tcp: the shared-memory transport (vader) whose eager limit
#    (4 KiB) the scenario programs are sized for, and TCP between nodes; never UCX or InfiniBand,
#    which change the protocol and warn where there is no such hardware;
#  - --mca btl_vader_single_copy_mechanism none: containers may forbid reading another process's
#    memory (ptrace scope, no CAP_SYS_PTRACE), where the default single-copy mechanism (CMA) fails.
set(moirai_mpirun_flags --oversubscribe --bind-to none --mca pml ob1 --mca btl self,vader,tcp
                        --mca btl_vader_single_copy_mechanism none)
execute_process(COMMAND id -u OUTPUT_VARIABLE moirai_uid OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(moirai_uid STREQUAL "0")
  list(PREPEND moirai_mpirun_flags --allow-run-as-root)
endif()
# In the cache, so every folder sees it, not only the first to include this file.
set(MOIRAI_MPIRUN_FLAGS "${moirai_mpirun_flags}" CACHE INTERNAL "the flags Open MPI's launcher needs here")

# moirai_mpi_app(<name> SOURCES <file>... [MPICH]): an MPI program built against Open MPI (with
# MPICH: against MPICH, as <name>, for MPICH's launcher) with the project's warnings and CLI11.
# Its DWARF names sources relative to the tree, as the other apps' do, so the call sites a trace
# names leak no build path.
function(moirai_mpi_app name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "MPICH" "" "SOURCES")
  if(NOT arg_SOURCES)
    message(FATAL_ERROR "moirai_mpi_app(${name}): no SOURCES")
  endif()
  add_executable(${name} ${arg_SOURCES})
  if(arg_MPICH)
    target_link_libraries(${name} PRIVATE moirai::mpich)
  else()
    target_link_libraries(${name} PRIVATE moirai::openmpi)
  endif()
  target_link_libraries(${name} PRIVATE moirai_build_flags CLI11::CLI11)
  # The C API only: the deprecated C++ bindings' headers do not compile warning-free.
  target_compile_definitions(${name} PRIVATE OMPI_SKIP_MPICXX=1 MPICH_SKIP_MPICXX=1)
  target_compile_options(${name} PRIVATE -g -fno-omit-frame-pointer -ffile-prefix-map=${PROJECT_SOURCE_DIR}/=)
endfunction()

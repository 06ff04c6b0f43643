// Which OpenMP runtime a program loads, read from its ELF file and the libraries it needs
// (libelf, from elfutils): why `moirai record` got no trace from a run.
#pragma once

#include <string>

namespace moirai::cli {

// ProgramRuntime is what a program's file says about the OpenMP runtime it runs on.
struct ProgramRuntime {
  enum class Kind {
    unreadable,      // the file could not be read (`detail` says why)
    script,          // a script: `detail` is its #! line; what it runs cannot be told
    not_elf,         // neither ELF nor a script
    static_program,  // linked statically: no runtime library that could load a tool
    no_openmp,       // no OpenMP runtime among the libraries it loads
    libgomp,         // GCC's libgomp: no OMPT
    libomp,          // LLVM's libomp (or Intel's libiomp5): has OMPT
  };
  Kind kind = Kind::unreadable;
  std::string library;  // the runtime's file name as needed, e.g. "libgomp.so.1"
  std::string through;  // the library that needs it, when not the program itself
  std::string detail;
};

// openmp_runtime_of reads `program` (a path) and the libraries it needs, found as the dynamic
// loader finds them (RPATH, LD_LIBRARY_PATH, RUNPATH, the system's library directories; not the
// extra directories of /etc/ld.so.conf); LLVM's libomp wins when both runtimes are loaded.
ProgramRuntime openmp_runtime_of(const std::string& program);

}  // namespace moirai::cli

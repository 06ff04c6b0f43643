// CodeSymbols: the source place of a return address in this process (OMPT's codeptr_ra, the
// caller of an MPI wrapper), read from the loaded modules' DWARF through libdw (elfutils). Shared
// by the front-ends (ompt/, mpi/tool/), which never include each other.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "moirai/core/ids.h"

namespace moirai::symbols {

// CodeSymbols resolves return addresses to file, line and function, each address once. What it
// hands out stays valid for the life of the process (the recorder keys call sites by the file
// pointer, so one file is always one pointer); safe to call from any thread.
class CodeSymbols {
 public:
  CodeSymbols();
  ~CodeSymbols();
  CodeSymbols(const CodeSymbols&) = delete;
  CodeSymbols& operator=(const CodeSymbols&) = delete;

  // call_site is the call that returns to `return_address`: its file, line and (demangled)
  // function. Unknown parts are file "?" (or the module's name) and line 0, function "?";
  // nullptr gives the unknown site.
  CallSite call_site(const void* return_address);

 private:
  struct Session;  // the libdw session over this process's modules

  // resolve looks `address` up in the modules, reporting them again once when none holds it
  // (a library loaded since the last report).
  CallSite resolve(std::uintptr_t address);

  std::mutex mutex_;
  std::unique_ptr<Session> session_;
  std::unordered_map<std::uintptr_t, CallSite> cache_;
};

}  // namespace moirai::symbols

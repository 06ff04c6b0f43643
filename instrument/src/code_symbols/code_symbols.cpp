#include "code_symbols.h"

#include <cxxabi.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>

namespace moirai::symbols {

namespace {

constexpr const char* kUnknown = "?";

// intern is the one copy of `text` for the life of the process: the pool is never freed, so a
// site recorded late in a run (or by a thread still running at exit) never points at freed text,
// and equal texts are one pointer.
const char* intern(const std::string& text) {
  static std::mutex mutex;
  static auto* pool = new std::unordered_set<std::string>;  // lives as long as the process
  std::lock_guard lock(mutex);
  return pool->insert(text).first->c_str();  // elements of a node container do not move
}

// demangled is a C++ symbol as the source spells it; other names as they are.
std::string demangled(const char* symbol) {
  int status = 0;
  char* readable = abi::__cxa_demangle(symbol, nullptr, nullptr, &status);
  if (status != 0 || readable == nullptr) return symbol;
  std::string text(readable);
  std::free(readable);
  return text;
}

// source_line is the file and line of `address` in `module` (nullptr and 0 when unknown).
std::pair<const char*, int> source_line(Dwfl_Module* module, Dwarf_Addr address) {
  int number = 0;
  if (Dwfl_Line* line = dwfl_module_getsrc(module, address)) {
    return {dwfl_lineinfo(line, nullptr, &number, nullptr, nullptr, nullptr), number};
  }
  // libdw before 0.191 finds a compile unit through .debug_aranges only, which clang does not
  // emit unless asked (-gdwarf-aranges): then the unit whose ranges hold the address is sought.
  Dwarf_Addr bias = 0;
  for (Dwarf_Die* unit = dwfl_module_nextcu(module, nullptr, &bias); unit != nullptr;
       unit = dwfl_module_nextcu(module, unit, &bias)) {
    if (dwarf_haspc(unit, address - bias) <= 0) continue;
    Dwarf_Line* line = dwarf_getsrc_die(unit, address - bias);
    if (line == nullptr || dwarf_lineno(line, &number) != 0) break;
    return {dwarf_linesrc(line, nullptr, nullptr), number};
  }
  return {nullptr, 0};
}

}  // namespace

// Session is one libdw view of this process: the modules mapped in /proc/self/maps, their ELF
// files and separate debug information found by build id (the debug folders' .build-id tree, as
// Debian's dbgsym packages install it). Not dwfl_standard_find_debuginfo: when a module has no
// local debug information (libomp), it dlopens libdebuginfod and its twenty libraries, 13 ms in
// the middle of the recorded run (bench/omp_record_cost.sh, docs/performance.md), and with
// DEBUGINFOD_URLS set it would query the network there.
struct CodeSymbols::Session {
  char* debuginfo_path = nullptr;
  Dwfl_Callbacks callbacks{};  // libdw keeps a pointer to it for the session's life
  Dwfl* dwfl = nullptr;

  Session() {
    callbacks.find_elf = dwfl_linux_proc_find_elf;
    callbacks.find_debuginfo = dwfl_build_id_find_debuginfo;
    callbacks.debuginfo_path = &debuginfo_path;
    dwfl = dwfl_begin(&callbacks);
    report();
  }
  ~Session() {
    if (dwfl != nullptr) dwfl_end(dwfl);
  }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // report (re)reads the process's mappings; modules already known are kept.
  void report() {
    if (dwfl == nullptr) return;
    dwfl_report_begin(dwfl);
    (void)dwfl_linux_proc_report(dwfl, ::getpid());  // a failure leaves fewer modules: unknown sites
    dwfl_report_end(dwfl, nullptr, nullptr);
  }
};

CodeSymbols::CodeSymbols() = default;
CodeSymbols::~CodeSymbols() = default;

CallSite CodeSymbols::call_site(const void* return_address) {
  if (return_address == nullptr) return CallSite{kUnknown, 0, kUnknown};
  // A return address is the instruction after the call; the call itself ends one byte before.
  const std::uintptr_t address = reinterpret_cast<std::uintptr_t>(return_address) - 1;
  std::lock_guard lock(mutex_);
  if (const auto known = cache_.find(address); known != cache_.end()) return known->second;
  const CallSite site = resolve(address);
  cache_.emplace(address, site);
  return site;
}

CallSite CodeSymbols::resolve(std::uintptr_t address) {
  CallSite site{kUnknown, 0, kUnknown};
  if (session_ == nullptr) session_ = std::make_unique<Session>();
  if (session_->dwfl == nullptr) return site;
  const char* module_name = nullptr;
  // dwfl_addrmodule may answer the nearest module for an address beyond every module (the
  // stack, say): only a module whose span holds the address counts.
  const auto holding = [&]() -> Dwfl_Module* {
    Dwfl_Module* module = dwfl_addrmodule(session_->dwfl, address);
    Dwarf_Addr low = 0;
    Dwarf_Addr high = 0;
    if (module != nullptr) module_name = dwfl_module_info(module, nullptr, &low, &high, nullptr, nullptr, nullptr, nullptr);
    return module != nullptr && low <= address && address < high ? module : nullptr;
  };
  Dwfl_Module* module = holding();
  if (module == nullptr) {
    session_->report();
    module = holding();
  }
  if (module == nullptr) return site;
  if (module_name != nullptr) site.file = intern(module_name);
  if (const char* symbol = dwfl_module_addrname(module, address)) site.function = intern(demangled(symbol));
  // A program built with its source folder mapped to "." (as Moirai's own OpenMP apps are) names
  // its files "./dir/file.cpp": the views show "dir/file.cpp", as for the runtime's sites. Code the
  // compiler gave line 0 (two calls merged into one) still names its source file, not the binary.
  if (const auto [file, number] = source_line(module, address); file != nullptr && number >= 0) {
    site.file = intern(std::string(std::string_view(file).substr(std::string_view(file).rfind("./", 0) == 0 ? 2 : 0)));
    site.line = static_cast<std::uint32_t>(number);
  }
  return site;
}

}  // namespace moirai::symbols

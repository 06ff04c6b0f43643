// CallSites: the call-site ids of the rank log, one per source line that calls MPI. A return
// address met for the first time is resolved through libdw (moirai_code_symbols) and its `site`
// line written at once; later calls from it cost a look-up in a small direct-mapped cache.
#pragma once

#include <cstdint>
#include <map>
#include <tuple>
#include <unordered_map>

#include "code_symbols.h"
#include "rank_log_writer.h"

namespace moirai::mpi_tool {

class CallSites {
 public:
  // id is the site of the call returning to `return_address` (defining it in `log` when new).
  std::uint32_t id(const void* return_address, RankLogWriter& log) {
    auto address = reinterpret_cast<std::uintptr_t>(return_address);
    Slot& slot = cache_[(address >> 2) & (kCacheSlots - 1)];
    if (slot.address == address) return slot.id;
    std::uint32_t site = lookup(address, log);
    slot = Slot{address, site};
    return site;
  }

 private:
  std::uint32_t lookup(std::uintptr_t address, RankLogWriter& log);

  struct Slot {
    std::uintptr_t address = 0;
    std::uint32_t id = 0;
  };
  static constexpr std::size_t kCacheSlots = 256;
  Slot cache_[kCacheSlots];
  std::unordered_map<std::uintptr_t, std::uint32_t> by_address_;
  // One id per source place: two calls on one line (or two inlined copies) are one site.
  std::map<std::tuple<const char*, std::uint32_t, const char*>, std::uint32_t> by_place_;
  symbols::CodeSymbols symbols_;
};

}  // namespace moirai::mpi_tool

#include "call_sites.h"

#include <string>

namespace moirai::mpi_tool {

std::uint32_t CallSites::lookup(std::uintptr_t address, RankLogWriter& log) {
  if (auto known = by_address_.find(address); known != by_address_.end()) return known->second;
  CallSite place = symbols_.call_site(reinterpret_cast<const void*>(address));
  auto [entry, added] = by_place_.try_emplace({place.file, place.line, place.function},
                                              static_cast<std::uint32_t>(by_place_.size() + 1));
  if (added) {
    // The line's file field ends at a space: a file name holding one is written with '_' there.
    std::string file = *place.file != '\0' ? place.file : "?";
    for (char& c : file) c = c == ' ' ? '_' : c;
    log.define("site " + std::to_string(entry->second) + " " + std::to_string(place.line) + " " + file + " " +
               (*place.function != '\0' ? place.function : "?"));
  }
  by_address_.emplace(address, entry->second);
  return entry->second;
}

}  // namespace moirai::mpi_tool

// The one naming scheme for counters: PAPI presets map onto the kernel's generic events,
// perf::NAME names the kernel's own events.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace moirai::instrument::detail {

// KernelEvent is an event perf_event_open counts: its type (PERF_TYPE_*) and config.
struct KernelEvent {
  std::uint32_t type = 0;
  std::uint64_t config = 0;
  bool hardware() const noexcept;
};

// CatalogEntry names a counter, the kernel event that counts it, and how they differ.
struct CatalogEntry {
  const char* name;     // as users write it: "PAPI_TOT_INS", "perf::TASK-CLOCK"
  KernelEvent kernel;
  const char* note;     // empty when the kernel event is the named event itself
  const char* kernel_name;  // for a PAPI preset: the kernel's name of its event ("" for perf::)
};

// catalog lists every counter name with a kernel event, PAPI presets first.
std::span<const CatalogEntry> catalog();

// find_kernel_event looks a user's name up (perf:: names case-insensitively, with the kernel's
// aliases); nullptr when the kernel has no event for it.
const CatalogEntry* find_kernel_event(const std::string& name);

}  // namespace moirai::instrument::detail

#include "counter_catalog.h"

#include <papi.h>

#include "moirai/instrument/counters.h"
#include "papi_counters.h"

#include <linux/perf_event.h>

#include <algorithm>
#include <array>
#include <cctype>

namespace moirai::instrument::detail {

namespace {

constexpr std::uint64_t cache(std::uint64_t which, std::uint64_t op, std::uint64_t result) {
  return which | (op << 8) | (result << 16);
}

constexpr KernelEvent hw(std::uint64_t config) { return {PERF_TYPE_HARDWARE, config}; }
constexpr KernelEvent sw(std::uint64_t config) { return {PERF_TYPE_SOFTWARE, config}; }
constexpr KernelEvent hw_cache(std::uint64_t which, std::uint64_t op, std::uint64_t result) {
  return {PERF_TYPE_HW_CACHE, cache(which, op, result)};
}

// PAPI presets whose kernel counterpart is the same event, or the nearest generic one (said in
// the note); presets the kernel has no generic event for (L2 misses, stalls) are not here.
constexpr std::array kCatalog{
    CatalogEntry{"PAPI_TOT_INS", hw(PERF_COUNT_HW_INSTRUCTIONS), "", "perf::INSTRUCTIONS"},
    CatalogEntry{"PAPI_TOT_CYC", hw(PERF_COUNT_HW_CPU_CYCLES), "", "perf::CYCLES"},
    CatalogEntry{"PAPI_REF_CYC", hw(PERF_COUNT_HW_REF_CPU_CYCLES), "", "perf::REF-CYCLES"},
    CatalogEntry{"PAPI_BR_INS", hw(PERF_COUNT_HW_BRANCH_INSTRUCTIONS), "", "perf::BRANCH-INSTRUCTIONS"},
    CatalogEntry{"PAPI_BR_MSP", hw(PERF_COUNT_HW_BRANCH_MISSES), "", "perf::BRANCH-MISSES"},
    CatalogEntry{"PAPI_L1_DCM",
                 hw_cache(PERF_COUNT_HW_CACHE_L1D, PERF_COUNT_HW_CACHE_OP_READ,
                          PERF_COUNT_HW_CACHE_RESULT_MISS),
                 "counted as the kernel's L1D read misses (the nearest generic event: PAPI's "
                 "preset also counts write misses)", "L1-dcache-load-misses"},
    CatalogEntry{"PAPI_L1_ICM",
                 hw_cache(PERF_COUNT_HW_CACHE_L1I, PERF_COUNT_HW_CACHE_OP_READ,
                          PERF_COUNT_HW_CACHE_RESULT_MISS),
                 "counted as the kernel's L1I read misses", "L1-icache-load-misses"},
    CatalogEntry{"PAPI_L3_TCM", hw(PERF_COUNT_HW_CACHE_MISSES),
                 "counted as the kernel's generic cache misses (usually the last-level cache)", "perf::CACHE-MISSES"},
    CatalogEntry{"PAPI_L3_TCA", hw(PERF_COUNT_HW_CACHE_REFERENCES),
                 "counted as the kernel's generic cache references (usually the last-level cache)", "perf::CACHE-REFERENCES"},
    CatalogEntry{"PAPI_TLB_DM",
                 hw_cache(PERF_COUNT_HW_CACHE_DTLB, PERF_COUNT_HW_CACHE_OP_READ,
                          PERF_COUNT_HW_CACHE_RESULT_MISS),
                 "counted as the kernel's data-TLB read misses", "dTLB-load-misses"},
    CatalogEntry{"perf::INSTRUCTIONS", hw(PERF_COUNT_HW_INSTRUCTIONS), "", ""},
    CatalogEntry{"perf::CYCLES", hw(PERF_COUNT_HW_CPU_CYCLES), "", ""},
    CatalogEntry{"perf::REF-CYCLES", hw(PERF_COUNT_HW_REF_CPU_CYCLES), "", ""},
    CatalogEntry{"perf::CACHE-REFERENCES", hw(PERF_COUNT_HW_CACHE_REFERENCES), "", ""},
    CatalogEntry{"perf::CACHE-MISSES", hw(PERF_COUNT_HW_CACHE_MISSES), "", ""},
    CatalogEntry{"perf::BRANCH-INSTRUCTIONS", hw(PERF_COUNT_HW_BRANCH_INSTRUCTIONS), "", ""},
    CatalogEntry{"perf::BRANCH-MISSES", hw(PERF_COUNT_HW_BRANCH_MISSES), "", ""},
    CatalogEntry{"perf::TASK-CLOCK", sw(PERF_COUNT_SW_TASK_CLOCK), "", ""},
    CatalogEntry{"perf::CPU-CLOCK", sw(PERF_COUNT_SW_CPU_CLOCK), "", ""},
    CatalogEntry{"perf::CONTEXT-SWITCHES", sw(PERF_COUNT_SW_CONTEXT_SWITCHES), "", ""},
    CatalogEntry{"perf::CPU-MIGRATIONS", sw(PERF_COUNT_SW_CPU_MIGRATIONS), "", ""},
    CatalogEntry{"perf::PAGE-FAULTS", sw(PERF_COUNT_SW_PAGE_FAULTS), "", ""},
    CatalogEntry{"perf::MINOR-FAULTS", sw(PERF_COUNT_SW_PAGE_FAULTS_MIN), "", ""},
    CatalogEntry{"perf::MAJOR-FAULTS", sw(PERF_COUNT_SW_PAGE_FAULTS_MAJ), "", ""},
};

// The kernel's (and libpfm's) other spellings of the same perf:: events.
struct Alias {
  const char* alias;
  const char* name;
};
constexpr std::array kAliases{
    Alias{"perf::CPU-CYCLES", "perf::CYCLES"},
    Alias{"perf::CS", "perf::CONTEXT-SWITCHES"},
    Alias{"perf::MIGRATIONS", "perf::CPU-MIGRATIONS"},
    Alias{"perf::FAULTS", "perf::PAGE-FAULTS"},
    Alias{"perf::PERF_COUNT_SW_TASK_CLOCK", "perf::TASK-CLOCK"},
    Alias{"perf::PERF_COUNT_SW_CPU_CLOCK", "perf::CPU-CLOCK"},
    Alias{"perf::PERF_COUNT_SW_CONTEXT_SWITCHES", "perf::CONTEXT-SWITCHES"},
    Alias{"perf::PERF_COUNT_SW_CPU_MIGRATIONS", "perf::CPU-MIGRATIONS"},
    Alias{"perf::PERF_COUNT_SW_PAGE_FAULTS", "perf::PAGE-FAULTS"},
    Alias{"perf::PERF_COUNT_HW_INSTRUCTIONS", "perf::INSTRUCTIONS"},
    Alias{"perf::PERF_COUNT_HW_CPU_CYCLES", "perf::CYCLES"},
};

std::string upper(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return text;
}

}  // namespace

bool KernelEvent::hardware() const noexcept {
  return type == PERF_TYPE_HARDWARE || type == PERF_TYPE_HW_CACHE;
}

std::span<const CatalogEntry> catalog() { return kCatalog; }

const CatalogEntry* find_kernel_event(const std::string& name) {
  // perf:: names are the kernel's and case-blind; PAPI presets are spelled exactly.
  std::string key = name.rfind("perf::", 0) == 0 || name.rfind("PERF::", 0) == 0
                        ? "perf::" + upper(name.substr(6))
                        : name;
  for (const Alias& alias : kAliases) {
    if (key == alias.alias) key = alias.name;
  }
  for (const CatalogEntry& entry : kCatalog) {
    if (key == entry.name) return &entry;
  }
  return nullptr;
}

}  // namespace moirai::instrument::detail

namespace moirai::instrument {

std::string unknown_counter(const std::string& name) {
  if (detail::find_kernel_event(name) != nullptr) return {};
  // An event outside the catalog is still known when PAPI can name it here.
  if (detail::papi_machine_reason().empty()) {
    int code = 0;
    if (PAPI_event_name_to_code(name.c_str(), &code) == PAPI_OK) return {};
  }
  std::string known;
  for (const detail::CatalogEntry& entry : detail::catalog()) known += (known.empty() ? "" : ", ") + std::string(entry.name);
  return "unknown counter '" + name + "' (known: " + known + "; '--counters list' says which this machine counts)";
}

}  // namespace moirai::instrument

#include "counter_set.h"

#include <papi.h>

#include <algorithm>

namespace moirai::instrument::detail {

namespace {

struct Resolved {
  CounterStatus status;
  int papi_code = 0;
  const CatalogEntry* kernel = nullptr;
};

// resolve decides who counts `name` on this thread: PAPI where it can, else the kernel's event
// of the same meaning, else nobody, with every backend's reason.
Resolved resolve(const std::string& name) {
  Resolved result;
  result.status.name = name;
  const std::string papi_reason = papi_probe(name, &result.papi_code);
  if (papi_reason.empty()) {
    result.status.present = true;
    result.status.backend = "papi";
    return result;
  }
  result.kernel = find_kernel_event(name);
  if (result.kernel != nullptr) {
    // Say how the kernel counts it, present or not, so a user knows what a preset maps to.
    const CatalogEntry& entry = *result.kernel;
    result.status.note = *entry.note != '\0'          ? entry.note
                         : *entry.kernel_name != '\0' ? std::string("counted as the kernel's ") + entry.kernel_name
                                                      : "";
  }
  if (result.kernel == nullptr) {
    result.status.reason = papi_reason + ". perf_event: the kernel has no event by this name "
                                         "(`--counters list` shows what it has)";
    return result;
  }
  const std::string kernel_reason = probe_kernel_event(result.kernel->kernel);
  if (!kernel_reason.empty()) {
    result.status.reason = papi_reason + ". perf_event: " + kernel_reason;
    result.kernel = nullptr;
    return result;
  }
  result.status.present = true;
  result.status.backend = "perf_event";
  result.status.reason = papi_reason;
  return result;
}

}  // namespace

CounterSet::CounterSet(const std::vector<std::string>& requested) {
  for (const std::string& name : requested) {
    Resolved resolved = resolve(name);
    if (resolved.status.present) {
      if (resolved.status.backend == "papi") {
        papi_codes_.push_back(resolved.papi_code);
        papi_slots_.push_back(present_);
      } else {
        kernel_events_.push_back(resolved.kernel->kernel);
        kernel_slots_.push_back(present_);
      }
      ++present_;
    }
    status_.push_back(std::move(resolved.status));
  }
  // How boundaries will read, found by opening the group once here (same kind of thread).
  std::vector<std::string> methods;
  if (!papi_codes_.empty()) methods.push_back("PAPI_read");
  if (!kernel_events_.empty()) {
    PerfEventGroup probe;
    const std::string failed = probe.open(kernel_events_);
    methods.push_back("perf_event " + (failed.empty() ? probe.method() : "group failed: " + failed));
  }
  for (const std::string& method : methods) method_ += (method_.empty() ? "" : " + ") + method;
}

std::string CounterSet::start(Thread& thread) const {
  std::string failed = thread.papi.start(papi_codes_);
  if (!failed.empty()) return "PAPI: " + failed;
  failed = thread.kernel.open(kernel_events_);
  if (!failed.empty()) {
    thread.papi.stop();
    return "perf_event: " + failed;
  }
  return "";
}

void CounterSet::read(const Thread& thread, long long* values) const noexcept {
  // The common cases (one backend) read straight into place.
  if (kernel_events_.empty()) return thread.papi.read(values);
  if (papi_codes_.empty()) return thread.kernel.read(values);
  long long papi[16] = {}, kernel[16] = {};
  thread.papi.read(papi);
  thread.kernel.read(kernel);
  for (std::size_t i = 0; i < papi_slots_.size(); ++i) values[papi_slots_[i]] = papi[i];
  for (std::size_t i = 0; i < kernel_slots_.size(); ++i) values[kernel_slots_[i]] = kernel[i];
}

void CounterSet::stop(Thread& thread) const noexcept {
  thread.papi.stop();
  thread.kernel.close();
}

}  // namespace moirai::instrument::detail

namespace moirai::instrument {

// ---------------------------------------------------------------------------------------------
// What this machine can count
// ---------------------------------------------------------------------------------------------

std::vector<CounterStatus> available_counters() {
  std::vector<std::string> names;
  for (const detail::CatalogEntry& entry : detail::catalog()) names.emplace_back(entry.name);
  // Where PAPI counts, its other available presets are worth listing too.
  if (detail::papi_machine_reason().empty()) {
    int code = PAPI_PRESET_MASK;
    if (PAPI_enum_event(&code, PAPI_ENUM_FIRST) == PAPI_OK) {
      do {
        char name[PAPI_MAX_STR_LEN] = {};
        if (PAPI_event_code_to_name(code, name) == PAPI_OK &&
            std::find(names.begin(), names.end(), name) == names.end()) {
          names.emplace_back(name);
        }
      } while (PAPI_enum_event(&code, PAPI_PRESET_ENUM_AVAIL) == PAPI_OK);
    }
  }
  return detail::CounterSet(names).status();
}

std::string counter_machine_summary() {
  const std::string& papi = detail::papi_machine_reason();
  const std::string software =
      detail::probe_kernel_event(detail::find_kernel_event("perf::TASK-CLOCK")->kernel);
  const std::string hardware =
      detail::probe_kernel_event(detail::find_kernel_event("perf::INSTRUCTIONS")->kernel);
  return "PAPI: " + (papi.empty() ? std::string("active") : papi) +
         "; perf_event software events: " + (software.empty() ? "countable" : software) +
         "; perf_event hardware events: " + (hardware.empty() ? "countable" : hardware);
}

}  // namespace moirai::instrument

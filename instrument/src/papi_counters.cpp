#include "papi_counters.h"

#include <papi.h>
#include <pthread.h>

#include <cstdio>
#include <mutex>
#include <stdexcept>
#include <string>

namespace moirai::instrument::detail {

namespace {

unsigned long thread_id() { return static_cast<unsigned long>(pthread_self()); }

// init_papi initialises the library once per process, with thread support.
void init_papi() {
  static std::once_flag once;
  static std::string failure;
  std::call_once(once, [] {
    const int version = PAPI_library_init(PAPI_VER_CURRENT);
    if (version != PAPI_VER_CURRENT) {
      failure = version > 0 ? "PAPI library version mismatch" : PAPI_strerror(version);
      return;
    }
    const int threads = PAPI_thread_init(thread_id);
    if (threads != PAPI_OK) failure = PAPI_strerror(threads);
  });
  if (!failure.empty()) throw std::runtime_error("PAPI could not be initialised: " + failure);
}

}  // namespace

PapiCounters::PapiCounters(const std::vector<std::string>& requested) {
  if (requested.empty()) return;
  init_papi();
  for (const std::string& name : requested) {
    CounterStatus entry{name, false, ""};
    int code = 0;
    int result = PAPI_event_name_to_code(name.c_str(), &code);
    if (result != PAPI_OK) {
      entry.reason = PAPI_strerror(result);
      status_.push_back(entry);
      continue;
    }
    // Adding and starting the event on this thread is the only reliable test: a virtual
    // machine without a PMU knows the names of hardware events but cannot count them.
    int probe = PAPI_NULL;
    result = PAPI_create_eventset(&probe);
    if (result == PAPI_OK) result = PAPI_add_event(probe, code);
    if (result == PAPI_OK) result = PAPI_start(probe);
    if (result == PAPI_OK) {
      long long value = 0;
      result = PAPI_stop(probe, &value);
    }
    if (probe != PAPI_NULL) {
      PAPI_cleanup_eventset(probe);
      PAPI_destroy_eventset(&probe);
    }
    if (result != PAPI_OK) {
      entry.reason = PAPI_strerror(result);
    } else {
      entry.present = true;
      codes_.push_back(code);
    }
    status_.push_back(entry);
  }
}

int PapiCounters::start_thread(unsigned core) const {
  if (codes_.empty()) return -1;
  PAPI_register_thread();
  int event_set = PAPI_NULL;
  int result = PAPI_create_eventset(&event_set);
  for (int code : codes_) {
    if (result == PAPI_OK) result = PAPI_add_event(event_set, code);
  }
  if (result == PAPI_OK) result = PAPI_start(event_set);
  if (result != PAPI_OK) {
    std::fprintf(stderr, "moirai: warning: PAPI counters could not start on core %u: %s\n", core,
                 PAPI_strerror(result));
    return -1;
  }
  return event_set;
}

void PapiCounters::read(int event_set, long long* values) noexcept {
  if (event_set >= 0) PAPI_read(event_set, values);
}

void PapiCounters::stop_thread(int event_set) noexcept {
  if (event_set < 0) return;
  long long ignored[8] = {};
  PAPI_stop(event_set, ignored);
  PAPI_cleanup_eventset(event_set);
  PAPI_destroy_eventset(&event_set);
  PAPI_unregister_thread();
}

}  // namespace moirai::instrument::detail

#include "papi_counters.h"

#include <papi.h>
#include <pthread.h>

#include <algorithm>
#include <mutex>
#include <string>
#include <vector>

namespace moirai::instrument::detail {

namespace {

unsigned long thread_id() { return static_cast<unsigned long>(pthread_self()); }

// known_to_papi says whether PAPI already keeps a record of the calling thread.
bool known_to_papi() {
  int count = 0;
  if (PAPI_list_threads(nullptr, &count) != PAPI_OK || count <= 0) return false;
  std::vector<unsigned long> ids(static_cast<std::size_t>(count));
  if (PAPI_list_threads(ids.data(), &count) != PAPI_OK) return false;
  return std::find(ids.begin(), ids.begin() + count, thread_id()) != ids.begin() + count;
}

// init_papi initialises the library once per process, with thread support; "" or the failure.
const std::string& init_papi() {
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
  return failure;
}

}  // namespace

const std::string& papi_machine_reason() {
  static const std::string reason = []() -> std::string {
    const std::string& failure = init_papi();
    if (!failure.empty()) return "PAPI could not be initialised: " + failure;
    const int component = PAPI_get_component_index("perf_event");
    if (component < 0) return "PAPI has no perf_event component";
    const PAPI_component_info_t* info = PAPI_get_component_info(component);
    if (info != nullptr && info->disabled) {
      return std::string("PAPI's perf_event component is disabled: ") + info->disabled_reason;
    }
    return "";
  }();
  return reason;
}

std::string papi_probe(const std::string& name, int* code) {
  const std::string& machine = papi_machine_reason();
  if (!machine.empty()) return machine;
  int result = PAPI_event_name_to_code(name.c_str(), code);
  if (result != PAPI_OK) return std::string("PAPI: ") + PAPI_strerror(result);
  int probe = PAPI_NULL;
  result = PAPI_create_eventset(&probe);
  if (result == PAPI_OK) result = PAPI_add_event(probe, *code);
  if (result == PAPI_OK) result = PAPI_start(probe);
  if (result == PAPI_OK) {
    long long value = 0;
    result = PAPI_stop(probe, &value);
  }
  if (probe != PAPI_NULL) {
    PAPI_cleanup_eventset(probe);
    PAPI_destroy_eventset(&probe);
  }
  return result == PAPI_OK ? "" : std::string("PAPI: ") + PAPI_strerror(result);
}

std::string PapiThread::start(const std::vector<int>& codes) {
  if (codes.empty()) return "";
  registered_here_ = !known_to_papi();
  if (registered_here_) PAPI_register_thread();
  int event_set = PAPI_NULL;
  int result = PAPI_create_eventset(&event_set);
  for (int code : codes) {
    if (result == PAPI_OK) result = PAPI_add_event(event_set, code);
  }
  if (result == PAPI_OK) result = PAPI_start(event_set);
  if (result != PAPI_OK) {
    if (event_set != PAPI_NULL) {
      PAPI_cleanup_eventset(event_set);
      PAPI_destroy_eventset(&event_set);
    }
    if (registered_here_) PAPI_unregister_thread();
    registered_here_ = false;
    return PAPI_strerror(result);
  }
  event_set_ = event_set;
  return "";
}

void PapiThread::read(long long* values) const noexcept {
  if (event_set_ >= 0) PAPI_read(event_set_, values);
}

void PapiThread::stop() noexcept {
  if (event_set_ < 0) return;
  long long ignored[16] = {};
  PAPI_stop(event_set_, ignored);
  PAPI_cleanup_eventset(event_set_);
  PAPI_destroy_eventset(&event_set_);
  if (registered_here_) PAPI_unregister_thread();
  registered_here_ = false;
  event_set_ = -1;
}

}  // namespace moirai::instrument::detail

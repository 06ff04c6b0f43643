// The PAPI counter backend: first choice wherever PAPI's perf_event component is active.
#pragma once

#include <string>
#include <vector>

namespace moirai::instrument::detail {

// papi_machine_reason is "" when PAPI can count on this machine, else why not (the library did
// not initialise, or its perf_event component is disabled, with PAPI's own reason).
const std::string& papi_machine_reason();

// papi_probe tells whether PAPI counts `name` on the calling thread: "" and its code in `code`,
// or the reason it cannot. Adding and starting the event is the only reliable test: a virtual
// machine without a PMU knows the names of hardware events but cannot count them.
std::string papi_probe(const std::string& name, int* code);

// PapiThread is one thread's PAPI event set. It leaves the thread as registered with PAPI as it
// found it: unregistering a thread PAPI knew before (the one that initialised the library, or one
// the program registered) frees PAPI's record of it, and PAPI's next call there crashes.
class PapiThread {
 public:
  // start creates and starts this thread's event set for `codes`; "" or the reason it failed.
  std::string start(const std::vector<int>& codes);
  // read fills one value per code, in start()'s order.
  void read(long long* values) const noexcept;
  void stop() noexcept;
  bool running() const { return event_set_ >= 0; }

 private:
  int event_set_ = -1;
  bool registered_here_ = false;  // start registered the thread, so stop unregisters it
};

}  // namespace moirai::instrument::detail

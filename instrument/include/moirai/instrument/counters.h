// Hardware and software counters: what this machine can count, through which backend, and why
// the rest cannot be counted. Nothing is ever faked: an event no backend counts is named missing.
#pragma once

#include <string>
#include <vector>

namespace moirai::instrument {

// CounterStatus is one counter by the name a user gave: counted (by which backend, and how when
// it is not the literal event) or missing with every backend's reason.
struct CounterStatus {
  std::string name;
  bool present = false;
  std::string backend;  // "papi" or "perf_event" when present
  std::string reason;   // why it is missing; for a present event, why PAPI did not count it
  std::string note;     // how the event is counted when it is a mapping ("the kernel's ...")
};

// available_counters lists every event name Moirai knows (PAPI presets with a kernel mapping,
// the kernel's perf:: events), each probed on the calling thread.
std::vector<CounterStatus> available_counters();

// unknown_counter is "" when Moirai knows the counter `name` (a name of its catalog, perf::
// names case-blind, or an event PAPI names on this machine), else a message naming it and the
// names it knows, for refusing a --counters or MOIRAI_COUNTERS list.
std::string unknown_counter(const std::string& name);

// counter_machine_summary is one line saying which backends can count here and why PAPI cannot,
// for logs and `--counters list`.
std::string counter_machine_summary();

}  // namespace moirai::instrument

// Recording: the --trace, --counters and --profile flags every app shares.
#pragma once

#include <memory>
#include <ostream>
#include <string>

#include "moirai/program/flags.h"
#include "moirai/core/runtime_observer.h"

namespace moirai::program {

// Recording declares the recording flags on an app's Flags and, after parsing, makes the
// observer they ask for: a trace file (--trace FILE, with PAPI counters from --counters or
// MOIRAI_COUNTERS), a profile table (--profile), both, or none.
class Recording {
 public:
  // Recording adds --trace, --counters and --profile to `flags`.
  explicit Recording(Flags& flags);
  ~Recording();

  // start opens the trace and chooses the counters; returns the observer for RunOptions, or
  // nullptr when nothing records. Counters the machine lacks are reported on `log` by name and
  // reason. On a `simulated` machine no counters are recorded (its cores are not the host's);
  // asking for some there is a FlagError. Throws FlagError when the trace file cannot be
  // written or the list is malformed.
  RuntimeObserver* start(int argc, const char* const* argv, std::ostream& log,
                                     bool simulated = false);
  // finish closes the trace (reporting what it wrote) and prints the profile, on `out`.
  void finish(std::ostream& out);
  // finish_failed closes the trace of a run that failed, saying on `log` what it holds: the
  // run until it failed. Never throws: a trace it cannot finish reads as cut.
  void finish_failed(std::ostream& log) noexcept;

 private:
  std::string trace_path_;
  std::string counters_;
  bool profile_ = false;
  bool no_os_time_ = false;
  struct Sinks;
  std::unique_ptr<Sinks> sinks_;
};

}  // namespace moirai::program

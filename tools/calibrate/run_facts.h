// RunFacts: what one trace of a real run tells the fit (moirai-calibrate --fit): each unit's
// declared work against its measured work and how busy the machine was, and the runtime's steps
// sample by sample.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "fit.h"

namespace moirai::calibrate {

// Observation is one unit of a real run whose program declared its work.
struct Observation {
  std::string site;       // the call site that ended it, "file:line"
  std::uint32_t core = 0;
  double declared = 0;    // cycles
  double work_ns = 0;     // measured work, less what the OS took
  double others = 0;      // other cores busy on average during it, machine-wide
  double others_socket = 0;  // ... of its own socket
};

// RunFacts is what one trace gives the fit.
struct RunFacts {
  std::string path;
  std::uint32_t cores = 0;
  std::string declared_from;  // "recorded" or "re-run on sim:N"
  std::string declares_nothing;  // why it gives runtime steps only, when its program declares no work
  std::vector<Observation> units;
  // Runtime steps in ns, per sample. A handler whose lock another core held last (`handed`)
  // also waits for the lines that core wrote.
  std::map<std::string, std::vector<double>> handlers, handed;
  // From the lock taken to the handler's end, after the core waited for the lock: the holder
  // that released it has just written the lines this hold reads.
  std::map<std::string, std::vector<double>> after_wait;
  // From the release by the core that held the lock last to the acquisition by a core that
  // waited for it: the waiter sees the release only when the lock's line reaches it.
  std::vector<double> handover;
  std::map<std::string, std::vector<double>> communication;  // by the construct that ended the unit
  std::vector<double> decision;
  std::vector<double> empty_units;  // the work of units that declared none: the switch and the VP's side of a construct
  std::vector<double> wake, wake_parked;  // an idle core woken while it spins, or once parked
};

// read_run reads what the trace at `path` says about the machine, writing what it found (and
// the reader's warnings) to `log`; a partial trace (a killed run, a recording that stopped) is
// left out (nullopt), said on `log`: its last units and idle are missing, and the fit would take
// the rest for the whole run. Throws std::runtime_error for a trace of a simulated machine, one
// without units, or one whose declared work cannot be learnt (options.rerun).
std::optional<RunFacts> read_run(const std::string& path, const FitOptions& options, std::ostream& log);

}  // namespace moirai::calibrate

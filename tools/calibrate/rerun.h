// Re-running a real run's recorded command on the simulated machine: what an old trace's units
// declared (--fit with --rerun) and what a model predicts (--predict).
#pragma once

#include <string>
#include <vector>

#include "moirai/trace/reader.h"

namespace moirai::calibrate {

// sim_command turns the command line `real` (read from `trace_path`) records into the same
// program on sim:N (N its cores) with declared work, recording into `into`: flags that choose
// the machine, record or check are replaced, a relative program path starts at `rerun_dir`.
// Throws std::runtime_error when the trace records no command line.
std::vector<std::string> sim_command(const std::string& trace_path, const trace::Trace& real, const std::string& rerun_dir,
                                     const std::string& into);

// run_on_sim runs `argv` (a sim_command, recording into `into`), its output kept aside; a
// failure throws std::runtime_error naming the trace `path`, how the child ended and its last
// lines of stderr.
void run_on_sim(const std::string& path, const std::vector<std::string>& argv, const std::string& into);

}  // namespace moirai::calibrate

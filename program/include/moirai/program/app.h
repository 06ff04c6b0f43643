// App: the standard flags and main of a Moirai program, for the bundled apps and users alike.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "moirai/program/flags.h"
#include "moirai/program/machine_flags.h"
#include "moirai/program/recording.h"
#include "moirai/core/runtime_observer.h"
#include "moirai/proto_runtime/machine.h"

namespace moirai::program {

// App declares the flags every Moirai program shares (--cores, --machine, --sim-work,
// --sim-factor, --cost-model, --trace, --counters, --profile, --help) and runs the program's
// body with what they chose:
//
//   program::App app("hello", "Says hello from a VP.");
//   app.flags().integer("n", n, 1, 100, "how many VPs");            // the program's own flags
//   return app.main(argc, argv, [&] {
//     ssr::run(app.machine(), seed, {.observer = app.observer()});
//     return 0;
//   });
class App {
 public:
  // App starts the flags of the program `name`, whose help begins with `summary`, with the
  // standard ones; their checks run before the program's, which may then read cores().
  // `declares_work` says whether its units declare their work (ctx.charge_work), which makes
  // --sim-work default to declared.
  App(std::string name, std::string summary, bool declares_work = false);
  App(const App&) = delete;
  App& operator=(const App&) = delete;

  // flags is where the program declares its own flags and checks, before main.
  Flags& flags() noexcept { return flags_; }
  // cores is the chosen machine's core count, valid in checks and once main parsed the flags.
  std::size_t cores() const noexcept { return cores_; }
  // simulated is true when --machine chose a simulated machine, once main parsed the flags.
  bool simulated() const noexcept { return machine_.simulated(); }
  // machine is the machine the flags chose, built on first use (inside main's body).
  proto::Machine& machine() { return machine_.machine(); }
  // observer is what records the run (--trace, --profile) for RunOptions::observer, or nullptr;
  // valid inside main's body.
  RuntimeObserver* observer() const noexcept { return observer_; }
  // finish closes the trace and prints what it wrote, the profile and a simulated machine's
  // virtual time on stdout. main calls it after the body; call it earlier to print those
  // before the program's own results. Later calls do nothing.
  void finish();

  // main parses argv (--help: prints the help, exits 0; bad input: prints the error and the
  // usage line, exits 2), starts recording, runs `body` and finishes. It returns the process
  // exit code: the body's result, or for an exception the mapping of run_app (app_main.h): 2
  // for a configuration the machine cannot honour, 1 for a failed run (out of memory included),
  // whose trace is finished too, holding the run until it failed (said on stderr).
  int main(int argc, const char* const* argv, const std::function<int()>& body);

 private:
  Flags flags_;
  std::size_t cores_;
  MachineFlags machine_;
  Recording recording_;
  RuntimeObserver* observer_ = nullptr;
  bool started_ = false;
  bool finished_ = false;
};

}  // namespace moirai::program

// moirai-scenarios: runs one scenario of the report's suite (apps/scenarios/scenarios.h), planted
// or fixed, on real cores or a simulated machine, and records its trace.
#include <cstdio>
#include <iostream>

#include "moirai/apps/app_main.h"
#include "moirai/apps/flags.h"
#include "moirai/apps/machine_flags.h"
#include "moirai/apps/recording.h"
#include "scenarios.h"

int main(int argc, char** argv) {
  using namespace moirai;
  std::string name;
  bool fixed = false, list = false;
  std::size_t cores = apps::available_cores();
  apps::Flags flags("moirai-scenarios",
                    "Runs one of the report's scenarios: a small SSR program planting one known\n"
                    "pathology of lost time (--fixed: the same work with the cause removed).");
  flags.text("scenario", name, "NAME", "the scenario to run (--list names them)");
  flags.toggle("fixed", fixed, "run the fixed variant");
  flags.toggle("list", list, "list the scenarios and exit");
  apps::MachineFlags machine(flags, cores, /*declares_work=*/true);
  apps::Recording recording(flags);
  flags.parse_or_exit(argc, argv);
  return apps::run_app(flags.app(), [&] {
    if (list) {
      for (const scenarios::Scenario& s : scenarios::all()) {
        std::printf("%-28s %3zu cores  %-20s %s\n", s.name.c_str(), s.cores, s.rule.empty() ? "(clean)" : s.rule.c_str(),
                    s.pathology.c_str());
      }
      return 0;
    }
    const scenarios::Scenario* scenario = scenarios::find(name);
    if (scenario == nullptr) throw apps::FlagError("--scenario: no scenario named '" + name + "' (see --list)");
    auto* observer = recording.start(argc, argv, std::cerr, machine.simulated());
    const scenarios::Outcome outcome = scenarios::run(*scenario, fixed ? scenarios::Variant::fixed : scenarios::Variant::planted,
                                                      machine.machine(), observer, !machine.simulated());
    recording.finish(std::cout);
    machine.report(std::cout);
    std::printf("%s (%s): expected first hint %s%s%s\n", scenario->name.c_str(), fixed ? "fixed" : "planted",
                scenario->rule.empty() ? "none" : scenario->rule.c_str(), outcome.site.empty() ? "" : " at ",
                outcome.site.c_str());
    return 0;
  });
}

// moirai-scenarios: runs one scenario of the report's suite (apps/scenarios/scenarios.h), planted
// or fixed, on real cores or a simulated machine, and records its trace.
#include <cstdio>
#include <iostream>

#include "moirai/program/app.h"
#include "scenarios.h"

int main(int argc, char** argv) {
  using namespace moirai;
  std::string name;
  bool fixed = false, list = false;
  program::App app("moirai-scenarios",
                   "Runs one of the report's scenarios: a small SSR program planting one known\n"
                   "pathology of lost time (--fixed: the same work with the cause removed).",
                   /*declares_work=*/true);
  program::Flags& flags = app.flags();
  flags.text("scenario", name, "NAME", "the scenario to run (--list names them)");
  flags.toggle("fixed", fixed, "run the fixed variant");
  flags.toggle("list", list, "list the scenarios and exit");
  return app.main(argc, argv, [&] {
    if (list) {
      for (const scenarios::Scenario& s : scenarios::all()) {
        std::printf("%-28s %3zu cores  %-20s %s\n", s.name.c_str(), s.cores, s.rule.empty() ? "(clean)" : s.rule.c_str(),
                    s.pathology.c_str());
      }
      return 0;
    }
    const scenarios::Scenario* scenario = scenarios::find(name);
    if (scenario == nullptr) throw program::FlagError("--scenario: no scenario named '" + name + "' (see --list)");
    const scenarios::Outcome outcome = scenarios::run(*scenario, fixed ? scenarios::Variant::fixed : scenarios::Variant::planted,
                                                      app.machine(), app.observer(), !app.simulated());
    app.finish();
    std::printf("%s (%s): expected first hint %s%s%s\n", scenario->name.c_str(), fixed ? "fixed" : "planted",
                scenario->rule.empty() ? "none" : scenario->rule.c_str(), outcome.site.empty() ? "" : " at ",
                outcome.site.c_str());
    return 0;
  });
}

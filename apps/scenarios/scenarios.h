// Scenarios: small SSR programs that each plant one known pathology of lost time, each with a
// fixed variant (the same total work, the cause removed), so that the report's first hint and its
// loss can be checked against the gain the fix really brings (tests/scenario_test.cpp). Work is
// declared (ctx.charge_work), so runs on the simulated machine are exact; on real cores the
// scenarios spin for the declared time instead (scripts/scenarios_real.sh).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "moirai/core/runtime_observer.h"
#include "moirai/proto_runtime/machine.h"
#include "moirai/ssr/context.h"

namespace moirai::scenarios {

// Variant is the program with its pathology, or the same work with the cause removed.
enum class Variant { planted, fixed };

// Scenario is one program, the machine it is meant for and what the report should say about it.
struct Scenario {
  std::string name;
  std::string pathology;                  // what it plants, in words
  std::size_t cores = 0;                  // simulated cores it runs on
  std::string rule;                       // the first hint expected ("" for a clean control)
  std::vector<std::uint32_t> hint_cores;  // the first hint's cores (empty: none expected)
  std::string second_rule;                // mixed pairs: the smaller pathology's rule
  std::function<void(ssr::Context&, Variant)> main;
};

// all lists the scenarios.
const std::vector<Scenario>& all();
// find returns the scenario named `name`, or nullptr.
const Scenario* find(const std::string& name);

// Outcome is what one run of a scenario noted: the call site its first hint should name.
struct Outcome {
  std::string site;  // "file:line" as a trace names it ("" when the hint names none)
};

// run animates a scenario's variant on `machine`; with `spin`, units also burn their declared
// work in real time (for real cores, where charge_work does nothing).
Outcome run(const Scenario& scenario, Variant variant, proto::Machine& machine,
            RuntimeObserver* observer, bool spin);

}  // namespace moirai::scenarios

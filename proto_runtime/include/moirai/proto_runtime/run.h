// Running a program in any language: the options every run takes, and run itself.
#pragma once

#include <concepts>
#include <cstddef>
#include <string>
#include <utility>

#include "moirai/core/ids.h"
#include "moirai/core/runtime_observer.h"
#include "moirai/proto_runtime/language_plugin.h"
#include "moirai/proto_runtime/machine.h"
#include "moirai/proto_runtime/real_machine.h"
#include "moirai/proto_runtime/runtime.h"
#include "moirai/proto_runtime/virtual_processor.h"

namespace moirai::proto {

// RunOptions configures one run, whatever its language.
struct RunOptions {
  std::size_t cores = 0;                            // real cores to use, 0 = all (run without a machine)
  std::size_t stack_size = 256 * 1024;              // default VP stack in bytes
  RuntimeObserver* observer = nullptr;  // receives the instrumentation points
  std::string seed_name = "main";                   // display name of the first VP
  CoreId seed_core = kAnyCore;                      // pin the first VP to a core
};

// run animates `seed` as the first VP of `language` on `machine` and returns when every VP has
// ended; options.cores is ignored. Throws DeadlockError, VpFailure or ConfigError.
RunStats run(Machine& machine, LanguagePlugin& language, VpFunction seed, const RunOptions& options,
             const CallSite& where);

// SeededLanguage is a language `run` can make for itself: a LanguagePlugin built from the run's
// core count, whose seed(body, options, where) turns the program's first body into the function
// its first VP animates.
template <class Language, class Body>
concept SeededLanguage =
    std::derived_from<Language, LanguagePlugin> && std::constructible_from<Language, std::size_t> &&
    requires(Language& language, Body body, const RunOptions& options, const CallSite& where) {
      { language.seed(std::move(body), options, where) } -> std::same_as<VpFunction>;
    };

// run makes a `Language` for `machine`'s cores and animates `seed` in it, as above.
template <class Language, class Body>
  requires SeededLanguage<Language, Body>
RunStats run(Machine& machine, Body seed, const RunOptions& options, const CallSite& where) {
  Language language(machine.core_count());
  VpFunction first = language.seed(std::move(seed), options, where);
  return run(machine, language, std::move(first), options, where);
}

// run does the same on `options.cores` hwloc-pinned real cores.
template <class Language, class Body>
  requires SeededLanguage<Language, Body>
RunStats run(Body seed, const RunOptions& options, const CallSite& where) {
  RealMachine machine(options.cores);
  return run<Language>(machine, std::move(seed), options, where);
}

}  // namespace moirai::proto

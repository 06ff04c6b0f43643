#include "moirai/vss/run.h"

#include <utility>

#include "moirai/proto_runtime/real_machine.h"
#include "vss_language.h"

namespace moirai::vss {

proto::RunStats run(proto::Machine& machine, TaskBody seed, const RunOptions& options,
                    std::source_location where) {
  VssLanguage language(machine.core_count());
  proto::Runtime runtime(machine, language, proto::RuntimeConfig{options.stack_size, options.observer});
  const CallSite site = CallSite::from(where);
  runtime.run(language.seed(std::move(seed), options.seed_name, site),
              proto::VpOptions{options.seed_name, options.seed_core, 0}, site);
  return runtime.stats();
}

proto::RunStats run(TaskBody seed, const RunOptions& options, std::source_location where) {
  proto::RealMachine machine(options.cores);
  return run(machine, std::move(seed), options, where);
}

}  // namespace moirai::vss

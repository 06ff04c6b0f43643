#include "moirai/ssr/run.h"

#include <utility>

#include "moirai/proto_runtime/real_machine.h"
#include "ssr_language.h"

namespace moirai::ssr {

proto::RunStats run(proto::Machine& machine, VpBody seed,
                    const RunOptions& options, std::source_location where) {
  SsrLanguage language(machine.core_count());
  proto::Runtime runtime(machine, language, proto::RuntimeConfig{options.stack_size, options.observer});
  runtime.run(language.wrap(std::move(seed)), proto::VpOptions{options.seed_name, options.seed_core, 0},
              CallSite::from(where));
  return runtime.stats();
}

proto::RunStats run(VpBody seed, const RunOptions& options,
                    std::source_location where) {
  proto::RealMachine machine(options.cores);
  return run(machine, std::move(seed), options, where);
}

}  // namespace moirai::ssr

#include "moirai/proto_runtime/run.h"

#include <utility>

namespace moirai::proto {

RunStats run(Machine& machine, LanguagePlugin& language, VpFunction seed, const RunOptions& options,
             const CallSite& where) {
  Runtime runtime(machine, language, RuntimeConfig{options.stack_size, options.observer});
  runtime.run(std::move(seed), VpOptions{options.seed_name, options.seed_core, 0}, where);
  return runtime.stats();
}

}  // namespace moirai::proto

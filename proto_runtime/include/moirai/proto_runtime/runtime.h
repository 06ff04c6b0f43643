// The proto-runtime: animates a language's VPs on a machine until every VP has ended.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "moirai/core/ids.h"
#include "moirai/core/runtime_observer.h"
#include "moirai/proto_runtime/language_plugin.h"
#include "moirai/proto_runtime/machine.h"
#include "moirai/proto_runtime/virtual_processor.h"

namespace moirai::proto {

// kMinStackSize is the smallest VP stack the runtime accepts, in bytes.
inline constexpr std::size_t kMinStackSize = 16 * 1024;

// RuntimeConfig holds the settings of one runtime.
struct RuntimeConfig {
  std::size_t default_stack_size = 256 * 1024;         // bytes per VP stack, guard page extra
  RuntimeObserver* observer = nullptr;     // receives the instrumentation points
};

// RunStats counts what a run did.
struct RunStats {
  std::uint64_t vps_created = 0;
  std::uint64_t units_animated = 0;
  std::uint64_t requests_handled = 0;  // construct requests, kEndVp included
  // units started by a core that waited for work, with the VP the assigner chose for it handed
  // over by the core that made the VP ready (real cores only; a woken core takes no lock then)
  std::uint64_t units_handed_over = 0;
  // VPs created into the fiber and stack of a VP that had ended (a hull), not new ones
  std::uint64_t vps_reused = 0;
};

// Runtime is the VMS-like proto-runtime: per-core scheduler loops, the runtime lock, VP
// lifecycle, deadlock detection. It knows nothing of any language.
class Runtime final : private CoreScheduler {
 public:
  Runtime(Machine& machine, LanguagePlugin& language, RuntimeConfig config = {});
  ~Runtime() override;
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  // run creates the seed VP and animates VPs until every VP has ended. It throws DeadlockError
  // when VPs remain blocked with nothing running or ready, and VpFailure when an exception
  // escaped a VP; either way every remaining VP is unwound first. A Runtime runs once.
  void run(VpFunction seed, VpOptions options = {},
           const CallSite& created_at = CallSite::from(std::source_location::current()));

  // stats counts what the run did so far.
  RunStats stats() const;
  // machine is the machine this runtime animates.
  Machine& machine() noexcept;

 private:
  friend class RuntimeServices;
  struct Impl;
  Step step(CoreId core) override;
  bool handed_work(CoreId core) const noexcept override;
  std::unique_ptr<Impl> impl_;
};

}  // namespace moirai::proto

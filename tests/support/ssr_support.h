// Helpers for the SSR tests: a guarded ssr::run and a way for a VP to let others run.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <utility>

#include "moirai/proto_runtime/sim_machine.h"
#include "moirai/ssr/ssr.h"
#include "support/test_support.h"

namespace moirai::test {

// run_ssr runs `seed` under the watchdog on `cores` real cores, or on the simulated machine
// sim:kSimulatedCores (declared work) when `cores` is kSimulatedCores, and returns the run's
// statistics.
inline proto::RunStats run_ssr(std::size_t cores, ssr::VpBody seed,
                               ssr::RunOptions options = {},
                               std::chrono::seconds limit = kRunLimit) {
  options.cores = cores;
  if (cores == kSimulatedCores) {
    return within(limit, "ssr::run on sim:" + std::to_string(cores), [&] {
      proto::SimMachine machine(proto::SimConfig{.topology = {1, cores}});
      return ssr::run(machine, std::move(seed), options);
    });
  }
  return within(limit, "ssr::run on " + std::to_string(cores) + " core(s)",
                [&] { return ssr::run(std::move(seed), options); });
}

// Ticker gives VPs a way to yield: tick() is a send_of_type to a ticker VP that receives and
// discards ticks, so the caller's unit ends and the assigner may run someone else before the
// caller continues. It lets a VP wait for an event the language does not order (with a probe),
// without spinning on a core that another VP needs.
class Ticker {
 public:
  explicit Ticker(std::string name) : channel_(std::move(name)) {}
  // start creates the ticker VP; call it once per run. Some VP must call stop() once every tick
  // is done, or the ticker waits forever (and the run ends in a deadlock).
  void start(ssr::Context& ctx) {
    ctx.create_vp(
        [this](ssr::Context& me) {
          while (me.receive_of_type(channel_) != 0) {
          }
        },
        ssr::CreateOptions{.name = "ticker"});
  }
  void tick(ssr::Context& ctx) { ctx.send_of_type(channel_, 1); }
  void stop(ssr::Context& ctx) { ctx.send_of_type(channel_, 0); }

 private:
  ssr::MessageType<int> channel_;
};

}  // namespace moirai::test

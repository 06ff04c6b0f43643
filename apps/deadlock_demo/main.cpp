// deadlock_demo: what the runtime does when VPs wait for each other forever.
//
// VP "alice" waits to receive_from_to VP "bob" while bob waits to receive_from_to alice; neither
// ever sends. Once no VP is running or ready, the runtime stops the run and throws
// proto::DeadlockError, which lists every blocked VP with the construct it waits in and its call
// site. The app prints that report and exits 1, the expected outcome of this demo; it exits 3 if
// the runtime failed to report the deadlock as described.
#include <iostream>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string_view>

#include "moirai/program/app.h"
#include "moirai/ssr/ssr.h"

namespace {

using namespace moirai;

// partner_then_wait learns its partner's name from the main VP, then waits for a message the
// partner never sends, because the partner waits just the same.
void partner_then_wait(ssr::Context& ctx, ssr::VpRef main_vp) {
  const auto partner = ctx.receive_from_to<ssr::VpRef>(main_vp);
  ctx.receive_from_to<int>(partner);
}

}  // namespace

int main(int argc, char** argv) {
  bool same_core = false;

  program::App app("deadlock_demo",
                   "Two VPs each wait to receive from the other; the runtime detects the\n"
                   "deadlock and reports the blocked VPs with their call sites (exit 1).");
  program::Flags& flags = app.flags();
  flags.toggle("same-core", same_core, "pin both VPs to core 0 instead of cores 0 and 1");

  return app.main(argc, argv, [&] {
    const auto main_vp = [&](ssr::Context& ctx) {
      const CoreId bob_core = same_core ? 0 : static_cast<CoreId>(1 % ctx.core_count());
      const auto body = [self = ctx.self()](ssr::Context& c) { partner_then_wait(c, self); };
      const ssr::VpRef alice = ctx.create_vp(body, {.name = "alice", .core = 0});
      const ssr::VpRef bob = ctx.create_vp(body, {.name = "bob", .core = bob_core});
      // Each needs the other's name, which only exists once both were created.
      ctx.send_from_to(alice, bob);
      ctx.send_from_to(bob, alice);
    };

    ssr::RunOptions options;
    options.observer = app.observer();
    const auto start = std::chrono::steady_clock::now();
    try {
      ssr::run(app.machine(), main_vp, options);
    } catch (const proto::DeadlockError& error) {
      app.finish();
      const double ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
      std::printf("the runtime reported, after %.1f ms:\n%s\n", ms, error.what());
      const auto listed = [&](std::string_view name) {
        return std::ranges::any_of(error.blocked(), [name](const proto::BlockedVp& vp) {
          return vp.name == name && std::string_view(vp.site.file).ends_with("main.cpp") &&
                 vp.site.line > 0;
        });
      };
      const bool alice = listed("alice");
      const bool bob = listed("bob");
      if (!alice || !bob) {
        std::printf(
            "deadlock_demo: FAILED, the report should list alice and bob at their call sites\n");
        return 3;
      }
      std::printf("deadlock_demo: deadlock detected as expected (exit 1)\n");
      return 1;
    }
    std::printf("deadlock_demo: FAILED, the run ended without reporting a deadlock\n");
    return 3;
  });
}

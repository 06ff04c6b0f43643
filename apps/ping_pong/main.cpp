// ping_pong: send_from_to / receive_from_to, the rendezvous where both sides name each other.
//
// VP "ping" sends a counter to VP "pong", which adds one and sends it back; after --rounds round
// trips the counter must be 2 x rounds. Each send blocks until its receive took it, so the time
// per round trip is the cost of two rendezvous, within a core (--same-core) or across two.
#include <iostream>
#include <chrono>
#include <cstdint>
#include <cstdio>

#include "moirai/program/app.h"
#include "moirai/ssr/ssr.h"

int main(int argc, char** argv) {
  using namespace moirai;
  std::int64_t rounds = 10000;
  bool same_core = false;

  program::App app("ping_pong",
                   "Two VPs bounce a counter with send_from_to / receive_from_to and report the\n"
                   "time per round trip.");
  program::Flags& flags = app.flags();
  flags.integer("rounds", rounds, 1, 100'000'000, "round trips");
  flags.toggle("same-core", same_core, "pin both VPs to core 0 instead of cores 0 and 1");

  return app.main(argc, argv, [&] {
    std::int64_t final_count = 0;
    CoreId ping_core = 0;
    CoreId pong_core = 0;
    double seconds = 0.0;

    const auto ping = [&](ssr::Context& ctx) {
      pong_core = same_core ? 0 : static_cast<CoreId>(1 % ctx.core_count());
      const ssr::VpRef pong = ctx.create_vp(
          [rounds, ping_vp = ctx.self()](ssr::Context& c) {
            for (std::int64_t i = 0; i < rounds; ++i) {
              const auto count = c.receive_from_to<std::int64_t>(ping_vp);
              c.send_from_to(ping_vp, count + 1);
            }
          },
          {.name = "pong", .core = pong_core});
      ping_core = ctx.core();
      const auto start = std::chrono::steady_clock::now();
      std::int64_t count = 0;
      for (std::int64_t i = 0; i < rounds; ++i) {
        ctx.send_from_to(pong, count + 1);
        count = ctx.receive_from_to<std::int64_t>(pong);
      }
      seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      final_count = count;
    };

    ssr::RunOptions options;
    options.observer = app.observer();
    options.seed_name = "ping";
    options.seed_core = 0;
    const proto::RunStats stats = ssr::run(app.machine(), ping, options);
    app.finish();

    const bool ok = final_count == 2 * rounds;
    std::printf("ping on core %u, pong on core %u (%zu cores)\n", ping_core, pong_core, app.cores());
    std::printf("rounds: %lld, final counter: %lld (expected %lld)\n",
                static_cast<long long>(rounds), static_cast<long long>(final_count),
                static_cast<long long>(2 * rounds));
    std::printf("time: %.4f s, %.3f us per round trip (2 rendezvous)\n", seconds,
                seconds * 1e6 / static_cast<double>(rounds));
    std::printf("units animated: %llu\n", static_cast<unsigned long long>(stats.units_animated));
    std::printf("%s\n", ok ? "ping_pong: ok" : "ping_pong: FAILED, counter is wrong");
    return ok ? 0 : 1;
  });
}

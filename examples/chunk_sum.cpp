// chunk_sum: an SSR program written outside Moirai, with Moirai's standard flags.
//
// The seed VP cuts 1..--n into --chunks chunks and hands each to a worker VP that owns its
// chunk (a std::unique_ptr captured by the VP body: bodies may be move-only). Each worker sums
// its chunk, declares the work it did (so a simulated run with --sim-work declared is exact)
// and sends the sum to the seed with send_of_type_to. The seed checks the total against
// n (n + 1) / 2: exit 0 when it matches, 1 when not. The standard flags come from Moirai::program:
// --cores, --machine, --sim-work, --trace, --counters, --profile, --help (bad input: exit 2).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "moirai/program/app.h"
#include "moirai/ssr/ssr.h"

namespace {

using namespace moirai;

// A message type is a typed channel: the workers' partial sums go to the seed on it.
const ssr::MessageType<std::uint64_t> kPartialSum{"partial sum"};

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t n = 1'000'000;
  std::uint64_t chunks = 16;

  program::App app("chunk_sum",
                   "Sums 1..N in chunks, one worker VP per chunk, and checks the total.",
                   /*declares_work=*/true);
  app.flags().integer("n", n, 1, 100'000'000, "sum the integers 1..N");
  app.flags().integer("chunks", chunks, 1, 4096, "worker VPs, one chunk each");
  app.flags().check([&] {
    if (chunks > n) {
      throw program::FlagError("--chunks " + std::to_string(chunks) + ": more chunks than numbers (--n " +
                               std::to_string(n) + ")");
    }
  });

  return app.main(argc, argv, [&] {
    std::uint64_t total = 0;
    const auto seed = [&](ssr::Context& ctx) {
      const ssr::VpRef parent = ctx.self();
      for (std::uint64_t c = 0; c < chunks; ++c) {
        auto chunk = std::make_unique<std::vector<std::uint64_t>>(n / chunks + (c < n % chunks));
        const std::uint64_t first = c * (n / chunks) + std::min(c, n % chunks) + 1;
        std::iota(chunk->begin(), chunk->end(), first);
        ctx.create_vp(
            [parent, chunk = std::move(chunk)](ssr::Context& worker) {
              const std::uint64_t sum = std::accumulate(chunk->begin(), chunk->end(), std::uint64_t{0});
              worker.charge_work(chunk->size());
              worker.send_of_type_to(kPartialSum, parent, sum);
            },
            {.name = "chunk " + std::to_string(c),
             .core = static_cast<CoreId>(c % ctx.core_count())});
      }
      for (std::uint64_t c = 0; c < chunks; ++c) total += ctx.receive_of_type_to(kPartialSum);
    };
    ssr::run(app.machine(), seed, {.observer = app.observer()});
    app.finish();

    const std::uint64_t expected = n * (n + 1) / 2;
    std::printf("sum of 1..%llu in %llu chunks on %zu cores: %llu (expected %llu)\n",
                static_cast<unsigned long long>(n), static_cast<unsigned long long>(chunks),
                app.cores(), static_cast<unsigned long long>(total),
                static_cast<unsigned long long>(expected));
    std::printf("%s\n", total == expected ? "chunk_sum: ok" : "chunk_sum: FAILED");
    return total == expected ? 0 : 1;
  });
}

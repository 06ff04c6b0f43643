// singleton_demo: the singleton construct, a block that runs once however many VPs reach it.
//
// --vps racers, spread over the cores, all reach the same singleton whose block builds a shared
// table (the primes below 2,000,000). The first to arrive runs the block; any that arrive while
// it runs wait until it completed. Each racer then reads the table and reports what it saw to
// the main VP with send_of_type_to. The app checks that the block ran exactly once and that
// every racer saw the complete table.
#include <iostream>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "moirai/program/app.h"
#include "moirai/ssr/ssr.h"

namespace {

using namespace moirai;
using Clock = std::chrono::steady_clock;

constexpr std::uint32_t kPrimeLimit = 2'000'000;
// pi(2,000,000): the number of primes below the limit, known independently of this program.
constexpr std::size_t kPrimeCount = 148'933;

// Table is the shared data the singleton initialises; only the singleton's block writes it.
struct Table {
  std::vector<std::uint32_t> primes;
  std::size_t builds = 0;
  VpId built_by = 0;
  Clock::time_point built_at;
};

// Report is what one racer saw after passing the singleton.
struct Report {
  std::size_t racer = 0;
  CoreId core = 0;
  std::size_t primes_seen = 0;
  std::uint32_t largest_prime = 0;
  bool ran_block = false;
  bool arrived_while_running = false;
};

const ssr::MessageType<Report> kReport{"report"};

std::vector<std::uint32_t> primes_below(std::uint32_t limit) {
  std::vector<bool> composite(limit, false);
  std::vector<std::uint32_t> primes;
  for (std::uint32_t i = 2; i < limit; ++i) {
    if (composite[i]) continue;
    primes.push_back(i);
    for (std::uint64_t m = std::uint64_t{i} * i; m < limit; m += i) composite[m] = true;
  }
  return primes;
}

void racer(ssr::Context& ctx, ssr::Singleton& build, Table& table, std::size_t index,
           ssr::VpRef main_vp) {
  const Clock::time_point arrived = Clock::now();
  ctx.singleton(build, [&] {
    table.primes = primes_below(kPrimeLimit);
    ++table.builds;
    table.built_by = ctx.self().id();
    table.built_at = Clock::now();
  });
  const bool ran_block = table.built_by == ctx.self().id();
  ctx.send_of_type_to(kReport, main_vp,
                      Report{index, ctx.core(), table.primes.size(),
                             table.primes.empty() ? 0 : table.primes.back(), ran_block,
                             !ran_block && arrived < table.built_at});
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t vps = 8;

  program::App app("singleton_demo",
                   "Many VPs race into one singleton that builds a shared table; the app shows\n"
                   "the block ran once and every VP saw the table complete.");
  program::Flags& flags = app.flags();
  flags.integer("vps", vps, 1, 1024, "racing VPs");

  return app.main(argc, argv, [&] {
    ssr::Singleton build{"build prime table"};
    Table table;
    std::vector<Report> reports;

    const auto main_vp = [&](ssr::Context& ctx) {
      // Racers fill the other cores first: a racer queued on main's own core would overtake main
      // and keep it from creating the rest while the block runs (the paper's section 3.4.1).
      for (std::size_t i = 0; i < vps; ++i) {
        ctx.create_vp([&, i, self = ctx.self()](ssr::Context& c) { racer(c, build, table, i, self); },
                      {.name = "racer " + std::to_string(i),
                       .core = static_cast<CoreId>((i + 1) % ctx.core_count())});
      }
      for (std::size_t i = 0; i < vps; ++i) reports.push_back(ctx.receive_of_type_to(kReport));
    };
    ssr::RunOptions options;
    options.observer = app.observer();
    options.seed_core = 0;
    ssr::run(app.machine(), main_vp, options);
    app.finish();

    std::size_t complete = 0;
    std::size_t ran = 0;
    std::size_t waited = 0;
    std::printf("%zu racers on %zu cores, reports in the order they arrived:\n", vps, app.cores());
    for (const Report& report : reports) {
      const bool saw_all = report.primes_seen == kPrimeCount && report.largest_prime == 1'999'993;
      if (saw_all) ++complete;
      if (report.ran_block) ++ran;
      if (report.arrived_while_running) ++waited;
      std::printf("  racer %zu on core %u: %s%s, saw %zu primes\n", report.racer, report.core,
                  report.ran_block ? "ran the block" : "skipped the block",
                  report.arrived_while_running ? " (arrived while it ran, waited)" : "",
                  report.primes_seen);
    }
    std::printf("block ran %zu time(s); %zu racer(s) say they ran it; %zu waited for it\n",
                table.builds, ran, waited);
    std::printf("%zu of %zu racers saw the complete table (%zu primes below %u)\n", complete, vps,
                kPrimeCount, kPrimeLimit);
    const bool ok = table.builds == 1 && ran == 1 && complete == vps && reports.size() == vps;
    std::printf("%s\n", ok ? "singleton_demo: ok" : "singleton_demo: FAILED");
    return ok ? 0 : 1;
  });
}

// dc_sum: send_of_type_to / receive_of_type_to, replies to a named receiver from anonymous senders.
//
// Sums 1..N by divide and conquer. A VP whose range is longer than --leaf splits it in two,
// creates a child VP for each half and takes their two partial sums with receive_of_type_to:
// it names no sender, so the halves may arrive in either order. A child sends its sum to its
// parent with send_of_type_to. The root compares the total with N (N + 1) / 2.
#include <iostream>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <map>
#include <string>
#include <utility>

#include "moirai/program/app.h"
#include "moirai/ssr/ssr.h"

namespace {

using namespace moirai;

// kMaxLeaves bounds the VPs one run may hold at once: each has its own stack mapping.
constexpr std::uint64_t kMaxLeaves = 4096;
// The VPs only add integers, so a small stack lets thousands of them exist at once.
constexpr std::size_t kStackSize = 64 * 1024;

const ssr::MessageType<std::uint64_t> kPartialSum{"partial sum"};

// leaf_count is how many leaf VPs sum_range makes for a range of `length`: each level halves every
// range longer than `leaf`, and a level holds at most two distinct lengths.
std::uint64_t leaf_count(std::uint64_t length, std::uint64_t leaf) {
  std::uint64_t leaves = 0;
  std::map<std::uint64_t, std::uint64_t> level{{length, 1}};  // range length -> how many
  while (!level.empty()) {
    std::map<std::uint64_t, std::uint64_t> next;
    for (const auto& [range, count] : level) {
      if (range <= leaf) {
        leaves += count;
      } else {
        next[range - range / 2] += count;
        next[range / 2] += count;
      }
    }
    level = std::move(next);
  }
  return leaves;
}

// sum_range returns first + ... + last, splitting ranges longer than `leaf` between two children.
std::uint64_t sum_range(ssr::Context& ctx, std::uint64_t first, std::uint64_t last,
                        std::uint64_t leaf) {
  if (last - first + 1 <= leaf) {
    std::uint64_t sum = 0;
    for (std::uint64_t i = first; i <= last; ++i) sum += i;
    return sum;
  }
  const std::uint64_t middle = first + (last - first) / 2;
  const ssr::VpRef parent = ctx.self();
  for (const auto& [lo, hi] : {std::pair{first, middle}, std::pair{middle + 1, last}}) {
    ctx.create_vp(
        [lo, hi, leaf, parent](ssr::Context& child) {
          child.send_of_type_to(kPartialSum, parent, sum_range(child, lo, hi, leaf));
        },
        {.name = "sum " + std::to_string(lo) + ".." + std::to_string(hi)});
  }
  return ctx.receive_of_type_to(kPartialSum) + ctx.receive_of_type_to(kPartialSum);
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t n = 10'000'000;
  std::uint64_t leaf = 100'000;

  program::App app("dc_sum",
                   "Sums 1..N by recursive divide and conquer over SSR VPs and checks the total\n"
                   "against N (N + 1) / 2.");
  program::Flags& flags = app.flags();
  // 4e9 keeps N (N + 1) / 2 within 64 bits.
  flags.integer("n", n, 1, 4'000'000'000, "sum the integers 1..N");
  flags.integer("leaf", leaf, 1, 4'000'000'000, "ranges up to this length are summed without splitting");
  flags.check([&] {
    if (const std::uint64_t leaves = leaf_count(n, leaf); leaves > kMaxLeaves) {
      throw program::FlagError("--leaf " + std::to_string(leaf) + " cuts --n " + std::to_string(n) +
                               " into " + std::to_string(leaves) + " leaves, more than " +
                               std::to_string(kMaxLeaves) + "; raise --leaf");
    }
  });

  return app.main(argc, argv, [&] {
    std::uint64_t total = 0;
    ssr::RunOptions options;
    options.observer = app.observer();
    options.stack_size = kStackSize;
    options.seed_name = "sum 1.." + std::to_string(n);
    const proto::RunStats stats =
        ssr::run(app.machine(), [&](ssr::Context& ctx) { total = sum_range(ctx, 1, n, leaf); }, options);
    app.finish();

    const std::uint64_t expected = n % 2 == 0 ? n / 2 * (n + 1) : (n + 1) / 2 * n;
    std::printf("sum of 1..%llu with leaves of up to %llu on %zu cores\n",
                static_cast<unsigned long long>(n), static_cast<unsigned long long>(leaf), app.cores());
    std::printf("VPs created: %llu (%llu leaves)\n",
                static_cast<unsigned long long>(stats.vps_created),
                static_cast<unsigned long long>(leaf_count(n, leaf)));
    std::printf("total: %llu, N (N + 1) / 2: %llu\n", static_cast<unsigned long long>(total),
                static_cast<unsigned long long>(expected));
    const bool ok = total == expected;
    std::printf("%s\n", ok ? "dc_sum: ok" : "dc_sum: FAILED, the sums differ");
    return ok ? 0 : 1;
  });
}

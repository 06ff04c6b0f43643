// producer_consumer: send_of_type / receive_of_type, a global channel between anonymous VPs.
//
// --producers VPs put --items numbered items (split between them) on the channel "item"; any of
// --consumers VPs takes each one. Neither side names the other. A send returns only once some
// consumer took the item, so when every producer reported done, every item was taken; then the
// main VP puts one stop item per consumer on the same channel. Each consumer sends the ids it
// took back to main, which checks that every item was consumed exactly once.
#include <iostream>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "moirai/program/app.h"
#include "moirai/ssr/ssr.h"

namespace {

using moirai::ssr::MessageType;

// Item is one unit of work on the global channel; a stop item tells a consumer to finish.
struct Item {
  std::int64_t id = 0;
  bool stop = false;
};

// Tally is what one consumer took.
struct Tally {
  std::size_t consumer = 0;
  std::vector<std::int64_t> ids;
};

const MessageType<Item> kItem{"item"};
const MessageType<std::size_t> kProducerDone{"producer done"};
const MessageType<Tally> kTally{"tally"};

}  // namespace

int main(int argc, char** argv) {
  using namespace moirai;
  std::size_t producers = 2;
  std::size_t consumers = 3;
  std::int64_t items = 1000;

  program::App app("producer_consumer",
                   "Producers and consumers meet on a global send_of_type channel; the app\n"
                   "verifies that every item was consumed exactly once.");
  program::Flags& flags = app.flags();
  flags.integer("producers", producers, 1, 256, "producer VPs");
  flags.integer("consumers", consumers, 1, 256, "consumer VPs");
  flags.integer("items", items, 0, 10'000'000, "items in total, split between the producers");

  return app.main(argc, argv, [&] {
    std::vector<Tally> tallies;

    const auto main_vp = [&](ssr::Context& ctx) {
      const ssr::VpRef self = ctx.self();
      for (std::size_t c = 0; c < consumers; ++c) {
        ctx.create_vp(
            [c, self](ssr::Context& vp) {
              Tally tally{c, {}};
              for (Item item = vp.receive_of_type(kItem); !item.stop;
                   item = vp.receive_of_type(kItem)) {
                tally.ids.push_back(item.id);
              }
              vp.send_of_type_to(kTally, self, std::move(tally));
            },
            {.name = "consumer " + std::to_string(c)});
      }
      for (std::size_t p = 0; p < producers; ++p) {
        const auto first = items * static_cast<std::int64_t>(p) / static_cast<std::int64_t>(producers);
        const auto last = items * static_cast<std::int64_t>(p + 1) / static_cast<std::int64_t>(producers);
        ctx.create_vp(
            [p, first, last, self](ssr::Context& vp) {
              for (std::int64_t id = first; id < last; ++id) vp.send_of_type(kItem, Item{id, false});
              vp.send_of_type_to(kProducerDone, self, p);
            },
            {.name = "producer " + std::to_string(p)});
      }
      for (std::size_t p = 0; p < producers; ++p) ctx.receive_of_type_to(kProducerDone);
      for (std::size_t c = 0; c < consumers; ++c) ctx.send_of_type(kItem, Item{0, true});
      for (std::size_t c = 0; c < consumers; ++c) tallies.push_back(ctx.receive_of_type_to(kTally));
    };

    ssr::RunOptions options;
    options.observer = app.observer();
    ssr::run(app.machine(), main_vp, options);
    app.finish();

    std::vector<int> times_taken(static_cast<std::size_t>(items), 0);
    std::vector<std::size_t> per_consumer(consumers, 0);
    std::size_t stray = 0;
    for (const Tally& tally : tallies) {
      if (tally.consumer < consumers) per_consumer[tally.consumer] = tally.ids.size();
      for (const std::int64_t id : tally.ids) {
        if (id < 0 || id >= items) {
          ++stray;
        } else {
          ++times_taken[static_cast<std::size_t>(id)];
        }
      }
    }
    std::size_t missing = 0;
    std::size_t duplicated = 0;
    for (const int taken : times_taken) {
      if (taken == 0) ++missing;
      if (taken > 1) ++duplicated;
    }

    std::printf("%zu producers, %zu consumers, %lld items, %zu cores\n", producers, consumers,
                static_cast<long long>(items), app.cores());
    for (std::size_t c = 0; c < consumers; ++c) {
      std::printf("  consumer %zu took %zu items\n", c, per_consumer[c]);
    }
    std::printf("tallies received: %zu of %zu; items missing: %zu, taken twice or more: %zu, "
                "unknown ids: %zu\n",
                tallies.size(), consumers, missing, duplicated, stray);
    const bool ok = tallies.size() == consumers && missing == 0 && duplicated == 0 && stray == 0;
    std::printf("%s\n", ok ? "producer_consumer: ok, every item consumed exactly once"
                           : "producer_consumer: FAILED");
    return ok ? 0 : 1;
  });
}

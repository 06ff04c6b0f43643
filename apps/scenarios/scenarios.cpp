#include "scenarios.h"

#include <algorithm>
#include <memory>
#include <mutex>
#include <source_location>

#include "moirai/instrument/clock.h"
#include "moirai/ssr/ssr.h"

namespace moirai::scenarios {

namespace {

using Where = std::source_location;
constexpr std::uint64_t kW = 1'000'000;  // one unit of work: 1 ms at the cost model's 1 GHz

// The state of the run in progress (runs are one at a time).
std::mutex g_mutex;
bool g_spin = false;
std::string g_site;

// work declares `ticks` of work; on real cores (spin) it also burns them, as nanoseconds. It
// spins on the recording clock (the TSC where there is one): a read costs a few ns where
// steady_clock's costs tens in a VM, and a spin overshoots by about a read, which made the
// 100-tick units of lock-contention last 2.5 times what they declared.
void work(ssr::Context& ctx, std::uint64_t ticks) {
  ctx.charge_work(ticks);
  if (!g_spin) return;
  static const double clock_per_ns = instrument::Clock::info().hz / 1e9;
  const std::uint64_t until = instrument::Clock::now() + static_cast<std::uint64_t>(static_cast<double>(ticks) * clock_per_ns);
  while (instrument::Clock::now() < until) {
  }
}

// expect_site notes the call site the first hint should name.
void expect_site(const Where& where) {
  std::lock_guard<std::mutex> hold(g_mutex);
  g_site = std::string(where.file_name()) + ":" + std::to_string(where.line());
}

using Body = std::function<void(ssr::Context&, std::size_t)>;

// spawn creates worker i on core_of[i], those on the creator's own core last: a VP created
// there runs before its creator goes on (SSR's FIFO), which would hold up the other creations.
void spawn(ssr::Context& ctx, const std::vector<CoreId>& core_of, const Body& body, Where where = Where::current()) {
  const CoreId own = ctx.core();
  for (int pass = 0; pass < 2; ++pass) {
    for (std::size_t i = 0; i < core_of.size(); ++i) {
      if ((core_of[i] == own) != (pass == 1)) continue;
      ctx.create_vp([body, i](ssr::Context& c) { body(c, i); }, {.name = "worker " + std::to_string(i), .core = core_of[i]}, where);
    }
  }
}

// round_robin places n workers on cores first, first + 1, ... (mod cores).
std::vector<CoreId> round_robin(std::size_t n, std::size_t cores, std::size_t first = 0, std::size_t used = 0) {
  if (used == 0) used = cores;
  std::vector<CoreId> core_of(n);
  for (std::size_t i = 0; i < n; ++i) core_of[i] = static_cast<CoreId>((first + i % used) % cores);
  return core_of;
}

const ssr::MessageType<int> kDone{"done"};
const ssr::MessageType<int> kFromTop{"from top"};
const ssr::MessageType<int> kFromLeft{"from left"};

// --- the pathologies -------------------------------------------------------------------------

// Creator starvation (3.4.1): workers round-robin from the creator's own core: the first runs
// before the creator makes the next, while 15 cores wait. Fixed: the creator's core last.
void creator_starvation(ssr::Context& ctx, Variant v) {
  const std::size_t cores = ctx.core_count(), n = 2 * cores;
  const Body body = [](ssr::Context& c, std::size_t) { work(c, kW); };
  if (v == Variant::fixed) return spawn(ctx, round_robin(n, cores), body);
  for (std::size_t i = 0; i < n; ++i) {
    const Where where = Where::current(); expect_site(where);
    ctx.create_vp([body, i](ssr::Context& c) { body(c, i); }, {.name = "worker", .core = static_cast<CoreId>(i % cores)}, where);
  }
}

// Unused cores: 16 workers placed on cores 1-4 of 8 (a placement bug; on any machine, on half
// its cores from core 1, so 2 real cores leave core 0 unused). Fixed: on all cores.
void unused_cores(ssr::Context& ctx, Variant v) {
  const std::size_t cores = ctx.core_count();
  const Body body = [](ssr::Context& c, std::size_t) { work(c, kW); };
  spawn(ctx, v == Variant::fixed ? round_robin(16, cores) : round_robin(16, cores, 1, std::max<std::size_t>(cores / 2, 1)), body);
}

// An idle tail (3.4.2): 12 equal pieces on 8 cores (one and a half waves on any machine: 3 on 2
// cores), the second wave half empty. Fixed: one piece per core, of the same total work.
struct TailPieces {
  std::size_t count;
  std::uint64_t each;  // ticks of work per piece
};
TailPieces tail_pieces(std::size_t cores, Variant v) {
  const std::size_t pieces = cores + cores / 2, n = v == Variant::fixed ? cores : pieces;
  return {n, pieces * kW / n};
}
void idle_tail(ssr::Context& ctx, Variant v) {
  const TailPieces t = tail_pieces(ctx.core_count(), v);
  spawn(ctx, round_robin(t.count, ctx.core_count()), [each = t.each](ssr::Context& c, std::size_t) { work(c, each); });
}

// An idle tail seen through a collector (matmul's shape, 3.4.2): the idle tail's pieces each
// report to a collector on the last core, so that core's idle ends with the last report, not
// with the run, and on 2 cores the last piece runs alone beside the idle core. Fixed: one piece
// per core, of the same total work.
void idle_tail_collected(ssr::Context& ctx, Variant v) {
  const std::size_t cores = ctx.core_count();
  const TailPieces t = tail_pieces(cores, v);
  const ssr::VpRef collector = ctx.create_vp(
      [n = t.count](ssr::Context& c) {
        for (std::size_t i = 0; i < n; ++i) (void)c.receive_of_type_to(kDone);
      },
      {.name = "collector", .core = static_cast<CoreId>(cores - 1)});
  spawn(ctx, round_robin(t.count, cores), [each = t.each, collector](ssr::Context& c, std::size_t) {
    work(c, each);
    c.send_of_type_to(kDone, collector, 1);
  });
}

// Grain too fine (3.4.3): each worker cuts its work into 2000 units of 400 ticks, each ended by a
// construct (a singleton of its own, which never waits). Fixed: 20 units of 100 times the work.
void grain(ssr::Context& ctx, Variant v, std::size_t iterations, std::uint64_t ticks, std::uint64_t phase) {
  const std::size_t k = v == Variant::fixed ? iterations / 100 : iterations;
  const std::uint64_t each = v == Variant::fixed ? ticks * 100 : ticks;
  const std::size_t cores = ctx.core_count();
  spawn(ctx, round_robin(cores, cores), [k, each, cores, phase](ssr::Context& c, std::size_t i) {
    std::unique_ptr<ssr::Singleton[]> own(new ssr::Singleton[k]);
    work(c, phase * i);  // out of step with the other workers, as real cores would be
    for (std::size_t j = 0; j < k; ++j) {
      work(c, each);
      const Where where = Where::current(); if (i == 0 && j == 0) expect_site(where);
      c.singleton(own[j], [] {}, where);
    }
    work(c, phase * (cores - 1 - i));
  });
}
void grain_too_fine(ssr::Context& ctx, Variant v) { grain(ctx, v, 2000, 400, 250); }
// The same on 16 cores with units of 150 ticks: too small on any core, and on 16 their constructs
// also queue for the runtime lock; bigger units cure both.
void grain_too_fine_16(ssr::Context& ctx, Variant v) { grain(ctx, v, 1000, 150, 50); }

// Runtime lock contention: units big enough for one core (the runtime's own work per unit is
// about a tenth of theirs), but every worker checks in at one shared singleton after each unit,
// so all cores' constructs queue for that singleton's lock domain. Fixed: 100 times fewer
// constructs.
void checkpoint_grain(ssr::Context& ctx, Variant v, std::size_t iterations, std::uint64_t ticks) {
  const std::size_t k = v == Variant::fixed ? iterations / 100 : iterations;
  const std::uint64_t each = v == Variant::fixed ? ticks * 100 : ticks;
  auto checkpoint = std::make_shared<ssr::Singleton>("checkpoint");
  spawn(ctx, round_robin(ctx.core_count(), ctx.core_count()), [k, each, checkpoint](ssr::Context& c, std::size_t i) {
    for (std::size_t j = 0; j < k; ++j) {
      work(c, each);
      const Where where = Where::current(); if (i == 0 && j == 0) expect_site(where);
      c.singleton(*checkpoint, [] {}, where);
    }
  });
}
void lock_contention(ssr::Context& ctx, Variant v) { checkpoint_grain(ctx, v, 300, 300); }
void lock_contention_64(ssr::Context& ctx, Variant v) { checkpoint_grain(ctx, v, 300, 600); }
// The control: on 16 cores one domain keeps up with units that are not too small for one core
// (a hold of the checkpoint is a tenth of a unit's cycle or less), so nobody waits long for it:
// with lock domains a lone lock-bound domain needs many cores or units too small to tell apart.
void checkpoint_keeps_up_16(ssr::Context& ctx, Variant v) { checkpoint_grain(ctx, v, 300, 400); }

// A long singleton body (3.4.2's copy-transpose): every worker passes a singleton whose body is
// 5 units of work; the others wait. Fixed: the same work, split among the workers.
void long_singleton(ssr::Context& ctx, Variant v) {
  auto once = std::make_shared<ssr::Singleton>("prepare");
  spawn(ctx, round_robin(ctx.core_count(), ctx.core_count()), [once, v](ssr::Context& c, std::size_t i) {
    if (v == Variant::fixed) work(c, 5 * kW / c.core_count());
    const Where where = Where::current(); if (i == 0) expect_site(where);
    c.singleton(*once, [&] { if (v == Variant::planted) work(c, 5 * kW); }, where);
    work(c, kW);
  });
}

// A singleton granted late (3.4.6): VP A on core 1 is granted the singleton, but X, made ready
// on core 1 before the grant, runs first; 15 VPs wait for the singleton's end. Fixed: A creates
// X after the singleton, so X's work runs after the body.
void exclusive_late(ssr::Context& ctx, Variant v) {
  constexpr std::uint64_t kX = kW, kBody = 20'000, kBefore = 20'000, kTotal = 2 * kW;
  auto once = std::make_shared<ssr::Singleton>("init");
  const auto x = [](ssr::Context& c) { work(c, kX); };
  const std::size_t cores = ctx.core_count();
  ctx.create_vp([once, v, x](ssr::Context& c) {
    work(c, kBefore);
    const Where where = Where::current(); expect_site(where);
    c.singleton(*once, [&] { work(c, kBody); }, where);
    if (v == Variant::fixed) c.create_vp(x, {.name = "X", .core = 1});
    work(c, kTotal - kX - kBody);
  }, {.name = "A", .core = 1});
  if (v == Variant::planted) ctx.create_vp(x, {.name = "X", .core = 1});
  std::vector<CoreId> others;
  for (std::size_t core = 0; core < cores; ++core) {
    if (core != 1) others.push_back(static_cast<CoreId>(core));
  }
  spawn(ctx, others, [once](ssr::Context& c, std::size_t) {
    work(c, 2 * kBefore);
    c.singleton(*once, [&] { work(c, kBody); });
    work(c, kTotal);
  });
}

// Idle bands between waves (3.4.2): wave 1's pieces on cores 0-3 are half again as long as
// those on cores 4-7, which then wait for wave 2 (made once all of wave 1 reported). Fixed: wave
// 1 balanced.
void idle_bands(ssr::Context& ctx, Variant v) {
  const std::size_t cores = ctx.core_count();
  const ssr::VpRef self = ctx.self();
  spawn(ctx, round_robin(cores, cores), [v, cores, self](ssr::Context& c, std::size_t i) {
    work(c, v == Variant::fixed ? 5 * kW / 4 : i < cores / 2 ? 3 * kW / 2 : kW);
    c.send_of_type_to(kDone, self, 1);
  });
  // Wave 1's senders on cores 4-7 wait for these receives, which wait for the long pieces.
  for (std::size_t i = 0; i < cores; ++i) {
    const Where where = Where::current(); expect_site(where);
    (void)ctx.receive_of_type_to(kDone, where);
  }
  spawn(ctx, round_robin(cores, cores), [](ssr::Context& c, std::size_t) { work(c, kW); });
}

// A critical-path-bound wavefront: 8 x 8 blocks, each waiting for the block above and the one to
// its left, on 64 cores; only 8-way parallelism at best. Fixed: 64 independent blocks.
void wavefront(ssr::Context& ctx, Variant v) {
  constexpr std::size_t kSide = 8;
  if (v == Variant::fixed) {
    return spawn(ctx, round_robin(kSide * kSide, ctx.core_count()), [](ssr::Context& c, std::size_t) { work(c, kW); });
  }
  auto refs = std::make_shared<std::vector<ssr::VpRef>>(kSide * kSide);
  // Made from the bottom right, so every block's successors exist when it runs; (0,0) last.
  for (std::size_t b = kSide * kSide; b-- > 0;) {
    const std::size_t i = b / kSide, j = b % kSide;
    (*refs)[b] = ctx.create_vp([refs, i, j](ssr::Context& c) {
      if (i > 0) (void)c.receive_of_type_to(kFromTop);
      if (j > 0) (void)c.receive_of_type_to(kFromLeft);
      work(c, kW);
      const Where where = Where::current(); if (i == 0 && j == 0) expect_site(where);
      if (i + 1 < kSide) c.send_of_type_to(kFromTop, (*refs)[(i + 1) * kSide + j], 1, where);
      if (j + 1 < kSide) c.send_of_type_to(kFromLeft, (*refs)[i * kSide + j + 1], 1);
    }, {.name = "block " + std::to_string(i) + "," + std::to_string(j), .core = static_cast<CoreId>(b % ctx.core_count())});
  }
}

// A long serial reduction: 8 workers report to main, which then reduces alone for 3 units of
// work. Fixed: each worker reduces its share before reporting.
void serial_reduction(ssr::Context& ctx, Variant v) {
  const std::size_t cores = ctx.core_count();
  const ssr::VpRef self = ctx.self();
  spawn(ctx, round_robin(cores, cores), [v, self, cores](ssr::Context& c, std::size_t) {
    work(c, kW + (v == Variant::fixed ? 3 * kW / cores : 0));
    c.send_of_type_to(kDone, self, 1);
  });
  for (std::size_t i = 0; i < cores; ++i) (void)ctx.receive_of_type_to(kDone);
  if (v == Variant::planted) work(ctx, 3 * kW);
  const Where where = Where::current(); expect_site(where);
  ctx.end_vp(where);
}

// Idle bands behind a serial reduction: 4 iterations of a wave of 8 workers that report to main,
// which then reduces alone for a unit of work while the other 7 cores idle, before it starts the
// next wave. The critical path runs through every wave and every reduction, but only the
// reductions leave cores idle: they, not the workers' blocks, are what to split. Fixed: each
// worker reduces its share before reporting.
void reduction_bands(ssr::Context& ctx, Variant v) {
  constexpr std::size_t kIterations = 4;
  const std::size_t cores = ctx.core_count();
  const ssr::VpRef self = ctx.self();
  std::unique_ptr<ssr::Singleton[]> publish(new ssr::Singleton[kIterations]);
  for (std::size_t it = 0; it < kIterations; ++it) {
    spawn(ctx, round_robin(cores, cores), [v, self, cores](ssr::Context& c, std::size_t) {
      work(c, kW + (v == Variant::fixed ? kW / cores : 0));
      c.send_of_type_to(kDone, self, 1);
    });
    for (std::size_t i = 0; i < cores; ++i) (void)ctx.receive_of_type_to(kDone);
    if (v == Variant::planted) work(ctx, kW);
    const Where where = Where::current(); expect_site(where);
    ctx.singleton(publish[it], [] {}, where);  // the reduced result published: ends the reduction's unit
  }
}

// Two causes on 2 cores: main prepares alone for 2 units of work while core 1 idles (long
// serial), then 3 equal pieces leave one core idle at the end (an idle tail of a unit). Fixed:
// the bigger cause removed, the preparation split in two halves, one per core.
void two_causes_two_cores(ssr::Context& ctx, Variant v) {
  const std::size_t cores = ctx.core_count();
  if (v == Variant::planted) {
    work(ctx, 2 * kW);
  } else {
    const ssr::VpRef self = ctx.self();
    spawn(ctx, round_robin(cores, cores), [self](ssr::Context& c, std::size_t) {
      work(c, 2 * kW / 2);
      c.send_of_type_to(kDone, self, 1);
    });
    for (std::size_t i = 0; i < cores; ++i) (void)ctx.receive_of_type_to(kDone);
  }
  const Where where = Where::current(); expect_site(where);
  spawn(ctx, round_robin(3, cores), [](ssr::Context& c, std::size_t) { work(c, kW); }, where);
}

// Creations that target the creator's own core: all 8 workers on core 0 of 4; the creator is
// never starved (its core's other VPs are what it made), the other cores are unused. Fixed:
// spread.
void own_core(ssr::Context& ctx, Variant v) {
  const Body body = [](ssr::Context& c, std::size_t) { work(c, kW); };
  if (v == Variant::fixed) return spawn(ctx, round_robin(8, ctx.core_count()), body);
  for (std::size_t i = 0; i < 8; ++i) ctx.create_vp([body, i](ssr::Context& c) { body(c, i); }, {.name = "worker", .core = ctx.core()});
}

// Mixed: unused cores and an idle tail. `big_unused`: 14 pieces on cores 0-3 of 8 (4 unused
// cores, a one-piece tail on 2 cores); else 31 pieces on cores 0-14 of 16 (one unused core, a
// one-piece tail on 14 cores). Fixed: the bigger cause removed.
void unused_and_tail(ssr::Context& ctx, Variant v, bool big_unused) {
  const std::size_t cores = ctx.core_count();
  const Body one = [](ssr::Context& c, std::size_t) { work(c, kW); };
  if (big_unused) return spawn(ctx, v == Variant::fixed ? round_robin(14, cores) : round_robin(14, cores, 0, 4), one);
  if (v == Variant::planted) return spawn(ctx, round_robin(31, cores, 0, 15), one);
  spawn(ctx, round_robin(15, cores, 0, 15), [](ssr::Context& c, std::size_t) { work(c, 31 * kW / 15); });
}
void mixed_unused_big(ssr::Context& ctx, Variant v) { unused_and_tail(ctx, v, true); }
void mixed_tail_big(ssr::Context& ctx, Variant v) { unused_and_tail(ctx, v, false); }

// Mixed: creator starvation and an idle tail on 16 cores, workers made round-robin from the
// creator's own core. `big_starvation`: 32 pieces (the creator's core holds up 15 cores, then
// idles at the end); else the first piece is short (a short hold-up) and 3 extra pieces leave 14
// cores idle at the end. Fixed: the bigger cause removed (the creator's core last; or the extra
// pieces' work spread over the others).
void starvation_and_tail(ssr::Context& ctx, Variant v, bool big_starvation) {
  const std::size_t cores = ctx.core_count();
  if (big_starvation && v == Variant::fixed) {
    return spawn(ctx, round_robin(2 * cores, cores), [](ssr::Context& c, std::size_t) { work(c, kW); });
  }
  const std::size_t n = big_starvation ? 2 * cores : v == Variant::fixed ? cores : cores + 3;
  for (std::size_t i = 0; i < n; ++i) {
    std::uint64_t ticks = kW;
    if (!big_starvation && i == 0) ticks = kW / 4;
    if (!big_starvation && v == Variant::fixed && i > 0) ticks += 3 * kW / (cores - 1);
    const Where where = Where::current(); if (i == 1 && big_starvation) expect_site(where);
    ctx.create_vp([ticks](ssr::Context& c) { work(c, ticks); }, {.name = "worker", .core = static_cast<CoreId>(i % cores)}, where);
  }
}
void mixed_starvation_big(ssr::Context& ctx, Variant v) { starvation_and_tail(ctx, v, true); }
void mixed_tail_over_starvation(ssr::Context& ctx, Variant v) { starvation_and_tail(ctx, v, false); }

// A ring exchange with tiny steps: one VP per core, each step a tiny unit of work, then a send to
// the next VP and a receive from the previous (odd VPs receive first, so the rendezvous pair up
// instead of deadlocking). The work is a sliver of the runtime's cost of the two constructs, so
// every core idles while its partners are busy with the runtime's overhead, not with work: no
// band between waves, but units too small (issue 36). Fixed: 10 times fewer exchanges, 10 times
// the work each.
const ssr::MessageType<int> kRing{"ring"};
void ring_step(ssr::Context& c, std::size_t i, ssr::VpRef next, std::uint64_t each, std::size_t step) {
  work(c, each);
  if (i % 2 == 1) (void)c.receive_of_type_to(kRing);
  const Where where = Where::current(); if (i == 0 && step == 0) expect_site(where);
  c.send_of_type_to(kRing, next, static_cast<int>(step), where);
  if (i % 2 == 0) (void)c.receive_of_type_to(kRing);
}
void ring(ssr::Context& ctx, Variant v) {
  constexpr std::size_t kSteps = 2000;
  constexpr std::uint64_t kTicks = 4;
  const std::size_t steps = v == Variant::fixed ? kSteps / 10 : kSteps, cores = ctx.core_count();
  const std::uint64_t each = v == Variant::fixed ? 10 * kTicks : kTicks;
  // Made from the last back to the first, so that each VP's successor exists; the seed is VP 0.
  ssr::VpRef next = ctx.self();
  for (std::size_t i = cores; i-- > 1;) {
    next = ctx.create_vp([i, next, each, steps](ssr::Context& c) {
      for (std::size_t k = 0; k < steps; ++k) ring_step(c, i, next, each, k);
    }, {.name = "ring " + std::to_string(i), .core = static_cast<CoreId>(i)});
  }
  for (std::size_t k = 0; k < steps; ++k) ring_step(ctx, 0, next, each, k);
}

// --- clean controls --------------------------------------------------------------------------

// Two full waves of equal pieces on 8 cores, reported to main.
void clean_waves(ssr::Context& ctx, Variant) {
  const std::size_t cores = ctx.core_count();
  const ssr::VpRef self = ctx.self();
  spawn(ctx, round_robin(2 * cores, cores), [self](ssr::Context& c, std::size_t) {
    work(c, kW);
    c.send_of_type_to(kDone, self, 1);
  });
  for (std::size_t i = 0; i < 2 * cores; ++i) (void)ctx.receive_of_type_to(kDone);
}

// Four long-lived VPs on 4 cores, each 10 units of work ended by a construct that never waits.
void clean_loops(ssr::Context& ctx, Variant) {
  spawn(ctx, round_robin(ctx.core_count(), ctx.core_count()), [](ssr::Context& c, std::size_t) {
    std::unique_ptr<ssr::Singleton[]> own(new ssr::Singleton[10]);
    for (std::size_t j = 0; j < 10; ++j) {
      work(c, kW);
      c.singleton(own[j], [] {});
    }
  });
}

}  // namespace

const std::vector<Scenario>& all() {
  static const std::vector<Scenario> list = {
      {"creator-starvation", "workers round-robin from the creator's own core", 16, "creator-starvation", {0}, "", creator_starvation},
      {"unused-cores", "16 workers placed on 4 of 8 cores", 8, "unused-cores", {0, 5, 6, 7}, "", unused_cores},
      {"idle-tail", "12 equal pieces on 8 cores", 8, "idle-tail", {4, 5, 6, 7}, "", idle_tail},
      {"idle-tail-collected", "12 equal pieces on 8 cores, reported to core 7", 8, "idle-tail", {4, 5, 6, 7}, "", idle_tail_collected},
      {"idle-tail-two-cores", "3 equal pieces on 2 cores, reported to core 1", 2, "idle-tail", {1}, "", idle_tail_collected},
      {"grain-too-fine", "2000 units of 400 ticks per core", 2, "unit-size", {}, "", grain_too_fine},
      {"lock-contention", "300 units of 300 ticks per core on 32 cores, one shared checkpoint", 32, "lock-contention", {}, "", lock_contention},
      {"grain-too-fine-16", "1000 units of 150 ticks per core on 16 cores", 16, "unit-size", {}, "", grain_too_fine_16},
      {"checkpoint-keeps-up-16", "300 units of 400 ticks per core on 16 cores, one shared checkpoint", 16, "", {}, "", checkpoint_keeps_up_16},
      {"lock-contention-64", "300 units of 600 ticks per core on 64 cores, one shared checkpoint", 64, "lock-contention", {}, "", lock_contention_64},
      {"long-singleton", "a singleton body of 5 units of work", 8, "long-serial", {1}, "", long_singleton},
      {"exclusive-late", "the singleton's owner waits behind other work", 16, "exclusive-late", {1}, "", exclusive_late},
      {"idle-bands", "half of wave 1 runs longer; wave 2 waits for it", 8, "idle-band", {4, 5, 6, 7}, "", idle_bands},
      {"wavefront", "an 8 x 8 blocked wavefront on 64 cores", 64, "critical-path", {}, "", wavefront},
      {"ring-16", "a ring exchange of tiny steps on 16 cores", 16, "unit-size", {}, "", ring},
      {"ring-64", "a ring exchange of tiny steps on 64 cores", 64, "unit-size", {}, "", ring},
      {"serial-reduction", "main reduces 3 units of work alone", 8, "long-serial", {0}, "", serial_reduction},
      {"reduction-bands", "4 waves on 8 cores, each reduced by main alone", 8, "critical-path", {0}, "", reduction_bands},
      {"two-causes-two-cores", "a serial start, then 3 pieces on 2 cores", 2, "long-serial", {0}, "idle-tail", two_causes_two_cores},
      {"own-core-creations", "all workers created on the creator's own core", 4, "unused-cores", {1, 2, 3}, "", own_core},
      {"mixed-unused-big", "4 unused cores, a small tail", 8, "unused-cores", {4, 5, 6, 7}, "idle-tail", mixed_unused_big},
      {"mixed-tail-big", "a big tail, one unused core", 16, "idle-tail", {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14}, "unused-cores", mixed_tail_big},
      {"mixed-starvation-big", "creator starvation, a small tail", 16, "creator-starvation", {0}, "idle-tail", mixed_starvation_big},
      {"mixed-tail-over-starvation", "a big tail, a short creator starvation", 16, "idle-tail", {}, "creator-starvation", mixed_tail_over_starvation},
      {"clean-waves", "two full waves of equal pieces", 8, "", {}, "", clean_waves},
      {"clean-loops", "four long-lived VPs with big units", 4, "", {}, "", clean_loops},
  };
  return list;
}

const Scenario* find(const std::string& name) {
  for (const Scenario& s : all()) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

Outcome run(const Scenario& scenario, Variant variant, proto::Machine& machine, RuntimeObserver* observer,
            bool spin) {
  {
    std::lock_guard<std::mutex> hold(g_mutex);
    g_spin = spin;
    g_site.clear();
  }
  ssr::RunOptions options;
  options.observer = observer;
  options.seed_core = 0;
  ssr::run(machine, [&](ssr::Context& ctx) { scenario.main(ctx, variant); }, options);
  std::lock_guard<std::mutex> hold(g_mutex);
  return Outcome{g_site};
}

}  // namespace moirai::scenarios

// moirai-gen-trace: writes a synthetic run of any size in the real trace format, for measuring
// the post-processor at scale (bench/scale_bench.sh). The run is simulated, not drawn at random
// record by record, so its records obey what a recorded SSR run obeys: each core's time is tiled
// by units and idle spans, every freed unit has the constraint that freed it, and a VP's units
// follow one another; one unit in ten follows a wake-up chore of its core. Same flags, same seed:
// the same file, byte for byte.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <iostream>
#include <new>
#include <queue>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "moirai/trace/builder.h"
#include "moirai/trace/ssr_constructs.h"

namespace {

using moirai::trace::TraceBuilder;

constexpr const char* kUsage = "usage: moirai-gen-trace --units N --cores C [--seed S] [--counters] -o FILE\n";
constexpr const char* kHelp =
    "\nWrites a synthetic SSR run of exactly N units over C cores in Moirai's trace format\n"
    "(docs/trace-format.md): a creator VP on core 0 creates a results VP and worker VPs placed\n"
    "round-robin over the cores (so the creator competes with workers on its own core, as in\n"
    "the paper's section 3.4.1); each worker enters a singleton (a few of them), then computes\n"
    "units of varied sizes (log-uniform, 20 us .. 2 ms), each ended by a send_of_type_to to the\n"
    "results VP, which receives them one by one; some units wait for the runtime lock. Cores\n"
    "idle when nothing is ready. The trace is complete (it has its end chunk) and the same\n"
    "seed gives the same file.\n\n"
    "  --units N     units in the trace, 20 .. 1000000000\n"
    "  --cores C     cores, 1 .. 4096\n"
    "  --seed S      random seed (default 1)\n"
    "  --counters    record two counters per unit (PAPI_TOT_INS, PAPI_L1_DCM)\n"
    "  -o FILE       the trace to write (also --output FILE)\n"
    "  --version     print the version and exit\n\n"
    "Exit status: 0 written, 2 bad flags, 1 the file could not be written.\n";

// SSR's construct kinds, as moirai::trace::kSsrConstructNames names them.
constexpr std::uint16_t kEndVp = 0, kCreateVp = 1, kSendOfTypeTo = 4, kReceiveOfTypeTo = 5, kSingleton = 8,
                        kSingletonEnd = 9;
constexpr std::uint32_t kCreateSite = 1, kSendSite = 2, kReceiveSite = 3, kSingletonSite = 4, kBodySite = 5,
                        kEndSite = 6;
constexpr std::uint64_t kResultsGroup = 1, kSingletonGroup = 2;
constexpr std::uint64_t kCreator = 1, kResults = 2;

// Rng is SplitMix64: small, fast, and the same sequence on every platform for a seed.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // between returns a number in [lo, hi].
  std::uint64_t between(std::uint64_t lo, std::uint64_t hi) { return lo + next() % (hi - lo + 1); }
  // log_between returns a number in [lo, hi] whose logarithm is uniform: many small, few large.
  std::uint64_t log_between(std::uint64_t lo, std::uint64_t hi) {
    const double u = static_cast<double>(next() >> 11) / 9007199254740992.0;
    double x = static_cast<double>(lo) * std::exp(u * std::log(static_cast<double>(hi) / static_cast<double>(lo)));
    return static_cast<std::uint64_t>(x);
  }

 private:
  std::uint64_t state_;
};

// What a VP does next, and what it waits for.
struct Vp {
  std::uint32_t core = 0;
  std::uint64_t next_unit = 0;  // id of its next unit, given when a handler frees it (0: none yet)
  std::uint64_t done = 0;       // creator: VPs created; worker: sends done; results: messages taken
  std::uint64_t sends = 0;      // worker: sends it makes
  bool singleton = false;       // worker: enters the singleton first
  bool in_body = false;         // worker: runs the singleton's body next
  bool waiting = false;         // blocked in a construct
  std::uint64_t waiting_unit = 0;  // the unit whose construct call it waits in
};

// Event is a VP becoming ready on its core at `time` (or, with vp 0, a core looking for work).
struct Event {
  std::uint64_t time, sequence, vp;
  std::uint32_t core;
  bool operator>(const Event& other) const {
    return time != other.time ? time > other.time : sequence > other.sequence;
  }
};

class SyntheticRun {
 public:
  SyntheticRun(std::uint64_t units, std::uint32_t cores, std::uint64_t seed, bool counters, TraceBuilder& out)
      : cores_(cores), rng_(seed), counters_(counters), out_(out), queues_(cores), free_at_(cores, 0),
        busy_(cores, false) {
    // units = (workers + 2) creator + (sends + 1) results + (sends + workers) workers + (entrants + 1)
    // singleton; the singleton's entrants (2 or 3) fix the parity, the rest is split between
    // workers and their sends, two sends per worker on average.
    const std::uint64_t entrants = 2 + units % 2;
    const std::uint64_t pairs = (units - entrants - 4) / 2;  // workers + sends
    const std::uint64_t workers = std::max<std::uint64_t>(entrants, pairs / 3);
    sends_ = pairs - workers;
    vps_.resize(workers + 3);
    vps_[kCreator].core = 0;
    vps_[kResults].core = cores > 1 ? 1 : 0;
    for (std::uint64_t w = 0; w < workers; ++w) {
      Vp& vp = vps_[3 + w];
      vp.core = static_cast<std::uint32_t>(w % cores);
      vp.sends = 1;
      vp.singleton = w < entrants;
    }
    for (std::uint64_t extra = sends_ - workers; extra > 0; --extra) ++vps_[3 + rng_.next() % workers].sends;
  }

  void run() {
    out_.vp(kCreator, "main", 0, 0);
    vps_[kCreator].next_unit = ++last_unit_;
    ready(kCreator, 0);
    while (!events_.empty()) {
      const Event event = events_.top();
      events_.pop();
      if (event.vp != 0) {
        queues_[event.core].push_back(event.vp);
        if (!busy_[event.core]) {
          if (free_at_[event.core] < event.time) out_.idle(event.core, free_at_[event.core], event.time);
          free_at_[event.core] = std::max(free_at_[event.core], event.time);
          animate(event.core);
        }
      } else {
        busy_[event.core] = false;
        if (!queues_[event.core].empty()) animate(event.core);
      }
    }
    std::uint64_t end = 0;
    for (std::uint64_t t : free_at_) end = std::max(end, t);
    for (std::uint32_t core = 0; core < cores_; ++core) {
      if (free_at_[core] < end) out_.idle(core, free_at_[core], end);
    }
    out_.finish(end);
  }

 private:
  void ready(std::uint64_t vp, std::uint64_t time) { events_.push(Event{time, sequence_++, vp, vps_[vp].core}); }

  // animate runs the next unit of the first VP in the core's queue and applies its construct.
  void animate(std::uint32_t core) {
    busy_[core] = true;
    const std::uint64_t id = queues_[core].front();
    queues_[core].pop_front();
    Vp& vp = vps_[id];
    moirai::trace::UnitRecord r{};
    r.unit = vp.next_unit;
    vp.next_unit = 0;
    r.vp = id;
    r.assign = free_at_[core];
    r.begin = r.assign + rng_.between(150, 400);
    // One unit in ten starts after its core woke another (a chore after the lock, format 3.2): the
    // wake-up lies in this unit's decision span, as on real cores.
    if (cores_ > 1 && rng_.next() % 10 == 0) out_.chore(core, moirai::Chore::wake_up, r.assign + 10, r.begin - 10, 1);
    std::uint64_t work = 0;
    if (id == kCreator) {
      work = rng_.between(1500, 4000);
      r.ended_by = vp.done < vps_.size() - 2 ? kCreateVp : kEndVp;
      r.site = r.ended_by == kCreateVp ? kCreateSite : kEndSite;
    } else if (id == kResults) {
      work = rng_.between(800, 2500);
      r.ended_by = vp.done < sends_ ? kReceiveOfTypeTo : kEndVp;
      r.site = r.ended_by == kReceiveOfTypeTo ? kReceiveSite : kEndSite;
    } else if (vp.in_body) {
      work = rng_.between(50000, 200000);
      r.ended_by = kSingletonEnd;
      r.site = kBodySite;
    } else if (vp.singleton) {
      work = rng_.between(2000, 8000);
      r.ended_by = kSingleton;
      r.site = kSingletonSite;
    } else {
      work = vp.done < vp.sends ? rng_.log_between(20000, 2000000) : rng_.between(500, 1500);
      r.ended_by = vp.done < vp.sends ? kSendOfTypeTo : kEndVp;
      r.site = r.ended_by == kSendOfTypeTo ? kSendSite : kEndSite;
    }
    r.end = r.begin + work;
    // One unit in twenty finds the runtime lock held by another core.
    const bool contended = cores_ > 1 && rng_.next() % 20 == 0;
    r.locked = r.end + (contended ? rng_.log_between(50, 5000) : 0);
    r.handler = r.locked + rng_.between(80, 300);
    r.handler_end = r.handler + rng_.between(100, 600);
    const std::uint64_t t = r.handler_end;
    std::uint64_t deltas[2] = {work * 2 + rng_.between(0, work / 4 + 1), work / 200 + rng_.between(0, work / 100 + 1)};
    out_.unit(core, r, counters_ ? std::span<const std::uint64_t>(deltas, 2) : std::span<const std::uint64_t>());
    if (contended) out_.lock_handoff(core, static_cast<std::uint32_t>((core + 1 + rng_.next() % (cores_ - 1)) % cores_), r.end, r.locked);
    handle(core, id, r, t);
    free_at_[core] = t;
    events_.push(Event{t, sequence_++, 0, core});
  }

  // handle is the construct's request handler: who is freed, with which constraint records.
  void handle(std::uint32_t core, std::uint64_t id, const moirai::trace::UnitRecord& r, std::uint64_t t) {
    Vp& vp = vps_[id];
    const auto free = [&](std::uint64_t to_vp, std::uint16_t construct, std::uint64_t match) {
      Vp& to = vps_[to_vp];
      if (to.next_unit == 0) to.next_unit = ++last_unit_;
      out_.constraint(core, construct, r.unit, to.next_unit, t, match);
      return to.next_unit;
    };
    const auto continue_self = [&] {
      if (vp.next_unit == 0) vp.next_unit = ++last_unit_;
    };
    switch (r.ended_by) {
      case kCreateVp: {
        const std::uint64_t created = 2 + vp.done++;
        out_.vp(created, created == kResults ? "results" : "worker", vps_[created].core, kCreateSite);
        free(created, kCreateVp, 0);
        continue_self();
        ready(created, t);  // SSR queues the new VP before its creator
        ready(id, t);
        return;
      }
      case kSendOfTypeTo:
        ++vp.done;
        out_.group_member(core, kResultsGroup, 1, r.unit);
        vp.waiting = true;
        vp.waiting_unit = r.unit;
        mailbox_.push_back(id);
        return meet(core, t);
      case kReceiveOfTypeTo:
        out_.group_member(core, kResultsGroup, 2, r.unit);
        vp.waiting = true;
        vp.waiting_unit = r.unit;
        return meet(core, t);
      case kSingleton:
        vp.singleton = false;
        out_.group_member(core, kSingletonGroup, 1, r.unit);
        if (!singleton_entered_) {  // the first to arrive runs the body
          singleton_entered_ = true;
          vp.in_body = true;
          continue_self();
          out_.constraint(core, kSingleton, r.unit, vp.next_unit, t, 0);
          ready(id, t);
        } else if (singleton_done_) {  // the body ran: freed at once, by the body's unit
          if (vp.next_unit == 0) vp.next_unit = ++last_unit_;
          out_.constraint(core, kSingletonEnd, body_unit_, vp.next_unit, t, 0);
          out_.group_member(core, kSingletonGroup, 2, vp.next_unit);
          ready(id, t);
        } else {
          vp.waiting = true;
          singleton_waiters_.push_back(id);
        }
        return;
      case kSingletonEnd:
        vp.in_body = false;
        singleton_done_ = true;
        body_unit_ = r.unit;
        continue_self();
        ready(id, t);
        for (std::uint64_t waiter : singleton_waiters_) {
          out_.group_member(core, kSingletonGroup, 2, free(waiter, kSingletonEnd, 0));
          vps_[waiter].waiting = false;
          ready(waiter, t);
        }
        singleton_waiters_.clear();
        return;
      default:  // end_vp: the VP is gone
        return;
    }
  }

  // meet matches the results VP, when it waits in a receive, with the first waiting sender: both
  // crossing dependencies are recorded with one match id and both VPs become ready.
  void meet(std::uint32_t core, std::uint64_t t) {
    Vp& results = vps_[kResults];
    if (!results.waiting || mailbox_.empty()) return;
    const std::uint64_t sender = mailbox_.front();
    mailbox_.pop_front();
    Vp& from = vps_[sender];
    const std::uint64_t match = ++last_match_;
    if (results.next_unit == 0) results.next_unit = ++last_unit_;
    if (from.next_unit == 0) from.next_unit = ++last_unit_;
    out_.constraint(core, kSendOfTypeTo, from.waiting_unit, results.next_unit, t, match);
    out_.constraint(core, kReceiveOfTypeTo, results.waiting_unit, from.next_unit, t, match);
    results.waiting = from.waiting = false;
    ++results.done;
    ready(kResults, t);
    ready(sender, t);
  }

  std::uint32_t cores_;
  Rng rng_;
  bool counters_;
  TraceBuilder& out_;
  std::vector<Vp> vps_;  // by VP id; 0 unused
  std::vector<std::deque<std::uint64_t>> queues_;  // ready VPs per core, FIFO as SSR's assigner
  std::vector<std::uint64_t> free_at_;
  std::vector<bool> busy_;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events_;
  std::deque<std::uint64_t> mailbox_;  // senders waiting for the results VP
  std::vector<std::uint64_t> singleton_waiters_;
  bool singleton_entered_ = false, singleton_done_ = false;
  std::uint64_t sends_ = 0, body_unit_ = 0, last_unit_ = 0, last_match_ = 0, sequence_ = 0;
};

int bad(const std::string& message) {
  std::cerr << "moirai-gen-trace: error: " << message << '\n' << kUsage;
  return 2;
}

// generate writes the trace the flags ask for; the exit status.
int generate(int argc, char** argv) {
  std::uint64_t units = 0, cores = 0, seed = 1;
  bool counters = false;
  std::string output;
  CLI::App cli("", "moirai-gen-trace");
  cli.set_help_flag();  // --help prints the usage and the prose above
  bool help = false;
  cli.add_flag("-h,--help", help);
  cli.set_version_flag("--version", std::string("moirai-gen-trace (Moirai) ") + MOIRAI_VERSION_TEXT);
  cli.add_option("--units", units)->check(CLI::Range(std::uint64_t{20}, std::uint64_t{1000000000}));
  cli.add_option("--cores", cores)->check(CLI::Range(std::uint64_t{1}, std::uint64_t{4096}));
  cli.add_option("--seed", seed);
  cli.add_flag("--counters", counters);
  cli.add_option("-o,--output", output);
  cli.allow_extras();
  try {
    cli.parse(argc, argv);
  } catch (const CLI::CallForVersion& version) {
    std::cout << version.what() << '\n';
    return 0;
  } catch (const CLI::ParseError& error) {
    // CLI11 names the flag; these words also say what it takes.
    const std::string what = error.what();
    for (const auto& [flag, range] : {std::pair{"--units", "20 to 1000000000"}, std::pair{"--cores", "1 to 4096"},
                                      std::pair{"--seed", "0 to 18446744073709551615"}}) {
      if (what.find(flag) != std::string::npos) {
        const CLI::Option* option = cli.get_option(flag);
        const std::string given = option->count() > 0 && !option->results().empty() ? option->results().back() : "";
        return bad(std::string(flag) + " '" + given + "': must be a whole number from " + range);
      }
    }
    return bad(what);
  }
  if (help) {
    std::cout << kUsage << kHelp;
    return 0;
  }
  if (!cli.remaining().empty()) return bad("unknown argument '" + cli.remaining().front() + "'");
  if (units == 0) return bad("--units is required");
  if (cores == 0) return bad("--cores is required");
  if (output.empty()) return bad("no output file given (-o FILE)");
  if (output == "-") return bad("-o -: a trace is written in chunks it seeks back to and cannot go to standard output; name a file");
  // The recorded command line leaves out the output file, so one seed gives one file anywhere.
  const std::string command_line = "moirai-gen-trace --units " + std::to_string(units) + " --cores " +
                                   std::to_string(cores) + " --seed " + std::to_string(seed) +
                                   (counters ? " --counters" : "");
  try {
    moirai::trace::BuilderOptions options;
    options.cores = static_cast<std::uint32_t>(cores);
    options.command_line = command_line;
    options.language = "SSR";  // a synthetic SSR run, with SSR's constructs
    options.constructs = moirai::trace::kFormat2SsrConstructs;
    options.choices = moirai::LanguageChoices{.placement = moirai::LanguagePlacement::last_core, .words = {}};
    if (counters) options.counters = {"PAPI_TOT_INS", "PAPI_L1_DCM"};
    TraceBuilder out(output, options);
    out.site(kCreateSite, "synthetic/main.cpp", 12, "main");
    out.site(kSendSite, "synthetic/worker.cpp", 30, "worker");
    out.site(kReceiveSite, "synthetic/main.cpp", 20, "collect");
    out.site(kSingletonSite, "synthetic/worker.cpp", 18, "worker");
    out.site(kBodySite, "synthetic/worker.cpp", 19, "init_table");
    out.site(kEndSite, "synthetic/worker.cpp", 34, "worker");
    out.group(kResultsGroup, kSendOfTypeTo, "message type 'partial result'");
    out.group(kSingletonGroup, kSingleton, "singleton 'init table'");
    SyntheticRun(units, static_cast<std::uint32_t>(cores), seed, counters, out).run();
    return 0;
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& error) {
    std::cerr << "moirai-gen-trace: error: " << output << ": " << error.what() << '\n';
    return 1;
  }
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return generate(argc, argv);
  } catch (const std::bad_alloc& error) {
    std::cerr << "moirai-gen-trace: error: out of memory: " << error.what() << '\n';
    return 1;
  }
}

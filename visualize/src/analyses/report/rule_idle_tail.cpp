// An idle tail (paper section 3.4.2): cores that worked run out of units well before the end,
// because the last wave has fewer units than cores or its units ran longer on some cores. The
// idle core sits at the end of the run, or waits for the last units' results (a VP that collects
// them, as matmul's results and divider do) and then runs only the small units that finish the
// run: both are the tail. Cores that never worked are not a tail (unused-cores). A loop split
// unevenly among threads (a static schedule) is such a wave too. The hint names where the wave's
// last piece ended: its call site is where the split is made.
#include <algorithm>

#include "output/text_format.h"
#include "analyses/report/analysis.h"

namespace moirai::visualize::report {
namespace {

constexpr double kIdleTail = 0.10;    // idle in the tail: 10% of the run or more
constexpr double kFinishUnit = 0.02;  // a unit of the finish: under 2% of a core's share of the run's work...
constexpr double kFinishWork = 0.05;  // ...and the finish in all under 5% of it

// tail_begin is when core `core` ran out of the run's work: the end of its last unit that is not
// part of the finish (0: every unit it ran is small, so it has no tail, only little work). The
// finish is measured against the work, not the makespan: a run that mostly waited (a critical
// section every thread queues for) would otherwise count most of its units as its finish.
std::uint64_t tail_begin(const Analysis& a, std::uint32_t core) {
  const auto& units = a.units_on_core[core];
  const double run = static_cast<double>(a.work) / static_cast<double>(std::max<std::size_t>(a.units_on_core.size(), 1));
  std::uint64_t finish = 0;
  for (auto it = units.rbegin(); it != units.rend(); ++it) {
    const std::uint64_t work = a.unit(*it).work();
    if (static_cast<double>(work) >= kFinishUnit * run || static_cast<double>(finish + work) > kFinishWork * run) {
      return a.unit(*it).record.handler_end;
    }
    finish += work;
  }
  return 0;
}

void run(const Analysis& a, Ledger& ledger, RuleOutput& out) {
  const std::size_t cores_in_run = a.units_on_core.size();
  std::vector<std::uint64_t> begins(cores_in_run, 0);  // 0: no tail
  for (std::uint32_t core = 0; core < cores_in_run; ++core) {
    if (a.core_work[core] > 0) begins[core] = tail_begin(a, core);
  }
  // One pass over the partition: each core's idle and end-of-run entries inside its tail.
  std::vector<std::vector<std::size_t>> tails(cores_in_run);
  std::vector<std::uint64_t> idle(cores_in_run, 0);
  for (std::size_t i = 0; i < a.entries.size(); ++i) {
    const LossEntry& e = a.entries[i];
    if (e.core >= cores_in_run || begins[e.core] == 0 || e.owner != kNone || e.begin < begins[e.core]) continue;
    if (e.kind != LossKind::run_end && e.kind != LossKind::idle) continue;
    tails[e.core].push_back(i);
    idle[e.core] += e.ticks;
  }
  std::vector<std::uint32_t> cores;
  std::uint64_t lost = 0, longest = 0;
  // The hint's call site: where the longest piece ended that worked through the longest tail wait
  // on another core (the wave's last piece, reaching its barrier or sending its result). A wait
  // that ended before the run did comes first: at the very end only the finish runs.
  std::uint64_t longest_wait = 0;
  bool waited = false;  // longest_entry is an idle wait, not the end of the run
  std::size_t longest_entry = SIZE_MAX;
  for (std::uint32_t core = 0; core < cores_in_run; ++core) {
    if (static_cast<double>(idle[core]) < kIdleTail * static_cast<double>(a.makespan)) continue;
    std::uint64_t claimed = 0;
    for (std::size_t i : tails[core]) {
      const std::uint64_t ticks = ledger.claim(i);
      claimed += ticks;
      const bool wait = a.entries[i].kind == LossKind::idle;
      if (ticks > 0 && (wait > waited || (wait == waited && ticks > longest_wait))) longest_wait = ticks, longest_entry = i, waited = wait;
    }
    if (claimed == 0) continue;
    lost += claimed;
    cores.push_back(core);
    longest = std::max(longest, claimed);
  }
  if (lost == 0) return;
  std::uint32_t last_piece = kNone;
  if (longest_entry != SIZE_MAX) {
    const LossEntry& wait = a.entries[longest_entry];
    for (std::uint32_t core = 0; core < cores_in_run; ++core) {
      if (core == wait.core) continue;
      for (std::uint32_t u : a.units_on_core[core]) {
        const trace::UnitRecord& r = a.unit(u).record;
        if (r.begin < wait.end && wait.begin < r.end && (last_piece == kNone || a.unit(u).work() > a.unit(last_piece).work())) last_piece = u;
      }
    }
  }
  out.hints.push_back(make_hint(
      "idle-tail",
      a.words.core_set(cores) + " idle at the end, up to " + a.ms(longest) +
          ": too few units remain for the last wave, or its units ran longer on other cores; " + a.words.tail_cure + " (paper 3.4.2)",
      cores, a.makespan - longest, a.makespan, a.site_of(last_piece), lost));
}

}  // namespace

extern const Rule rule_idle_tail{70, "idle-tail", run};

}  // namespace moirai::visualize::report

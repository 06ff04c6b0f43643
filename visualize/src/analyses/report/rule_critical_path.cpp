// Critical-path bound (paper section 4: the consequence graph's longest chain of program
// dependencies bounds the run): the program's parallelism (total work / critical-path work) is
// below the core count. Then no placement can fill the cores: up to cores x critical path - total
// work of the idle time no narrower rule explained is the chain's, and the fix is to split the
// chain's units, not to move VPs: those that ran while the other cores sat idle (a reduction
// every worker waits for), not merely the longest (a worker's block ran beside its siblings, and
// splitting it frees no core).
// The critical path's share of the makespan alone is no premise: any program of balanced waves
// separated by barriers has a critical path as long as its run, and loses nothing to it. Two
// chains are not the program's: one that is mostly a unit which ran beside its wave's siblings
// (idle-tail's), and waits for a turn in a mutual exclusion (idle-cause's); nor is a chain on one
// VP where each core runs one VP (idle-cause names the late arrival the others waited for).
#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <utility>
#include <vector>

#include "output/text_format.h"
#include "analyses/report/analysis.h"

namespace moirai::visualize::report {
namespace {

constexpr double kParallelismShare = 0.80; // parallelism of the core count
constexpr std::uint64_t kMinCrossings = 3;  // a chain's crossings between VPs by one dependence
constexpr double kListedShare = 0.10;
constexpr double kOneVpShare = 0.75;        // a chain mostly one VP's: that VP's share of its work       // a unit listed to split: of the listed first one's idle beside it

// IdleBeside integrates how many cores sat idle over time, so that the idle core time beside any
// span is two lookups.
class IdleBeside {
 public:
  explicit IdleBeside(const Analysis& a) {
    std::vector<std::pair<std::uint64_t, int>> steps;
    for (const LossEntry& e : a.entries) {
      if (e.end <= e.begin || (e.kind != LossKind::idle && e.kind != LossKind::run_end && e.kind != LossKind::run_start)) continue;
      steps.emplace_back(e.begin, 1);
      steps.emplace_back(e.end, -1);
    }
    std::sort(steps.begin(), steps.end());
    std::int64_t idle = 0;
    long double area = 0;
    std::uint64_t last = steps.empty() ? 0 : steps.front().first;
    for (const auto& [tick, step] : steps) {
      area += static_cast<long double>(idle) * static_cast<long double>(tick - last);
      idle += step;
      last = tick;
      if (!at_.empty() && at_.back().tick == tick) {
        at_.back() = {tick, area, idle};
      } else {
        at_.push_back({tick, area, idle});
      }
    }
  }
  // over is the idle core time (core-ticks) within [begin, end).
  std::uint64_t over(std::uint64_t begin, std::uint64_t end) const {
    return end > begin ? static_cast<std::uint64_t>(area_until(end) - area_until(begin)) : 0;
  }

 private:
  struct Step {
    std::uint64_t tick;
    long double area;  // idle core time before `tick`
    std::int64_t idle; // cores idle from `tick` on
  };
  long double area_until(std::uint64_t tick) const {
    auto after = std::upper_bound(at_.begin(), at_.end(), tick, [](std::uint64_t t, const Step& s) { return t < s.tick; });
    if (after == at_.begin()) return 0;
    const Step& s = *std::prev(after);
    return s.area + static_cast<long double>(s.idle) * static_cast<long double>(tick - s.tick);
  }
  std::vector<Step> at_;
};

// waits_for_a_turn: an idle entry is a wait for a turn in a mutual exclusion (a critical section,
// a lock): the exclusive section's end freed a unit that is itself such a section's body. Its
// chain is the order the runtime chose, not a dependence of the program, so idle-cause names the
// section and its cure. A wait for a singleton's result (the freed unit goes on to other work) is
// a dependence and stays the chain's.
bool waits_for_a_turn(const Analysis& a, const LossEntry& e) {
  if (e.kind != LossKind::idle || e.freed_by == kNone) return false;
  const trace::ConstraintRecord& c = a.trace.constraints[e.freed_by];
  if (a.trace.construct_role(c.construct) != ConstructRole::exclusive_end) return false;
  const auto freed = a.unit_index.find(c.to);
  return freed != a.unit_index.end() && a.trace.construct_role(a.unit(freed->second).record.ended_by) == ConstructRole::exclusive_end;
}

// mostly_one_vps: the chain's work is mostly one VP's. Where every core runs one VP of its own
// (MPI's ranks), the other cores sat idle waiting for that VP's constraints (a late arrival at a
// message or a collective, whatever arcs the chain took back to it), and which construct freed
// them, on which core and at which call is the finding (idle-cause's): splitting the chain is no
// placement's to do, it is that VP's excess of work.
bool mostly_one_vps(const Analysis& a, const CriticalPath& path) {
  std::map<std::uint64_t, std::uint64_t> work_of_vp;
  for (std::uint32_t node : path.nodes) {
    const trace::Unit& unit = a.unit(a.graph.nodes[node].trace_index);
    work_of_vp[unit.record.vp] += unit.work();
  }
  std::uint64_t most = 0;
  for (const auto& [vp, work] : work_of_vp) most = std::max(most, work);
  return static_cast<double>(most) >= kOneVpShare * static_cast<double>(path.work);
}

void run(const Analysis& a, Ledger& ledger, RuleOutput& out) {
  const trace::Trace& trace = a.trace;
  const CriticalPath& path = a.path;
  if (trace.core_count < 2 || path.work == 0 || a.makespan == 0) return;
  // A chain mostly one VP's, where every core runs one VP of its own, is idle-cause's (above).
  if (a.own_cores && mostly_one_vps(a, path)) return;
  const double share = static_cast<double>(path.work) / static_cast<double>(a.makespan);
  if (path.parallelism >= kParallelismShare * trace.core_count) return;
  // A chain that is mostly one unit which ran beside its wave's siblings (a loop's chunks split
  // unevenly) is that wave's tail: idle-tail names it with the cure of the split.
  std::uint32_t longest = kNone;
  for (std::uint32_t node : path.nodes) {
    const std::uint32_t u = a.graph.nodes[node].trace_index;
    if (longest == kNone || a.unit(u).work() > a.unit(longest).work()) longest = u;
  }
  if (longest != kNone && 2 * a.unit(longest).work() >= path.work && a.last_of_a_wave(longest)) return;
  // The idle time the chain forces: even scheduled perfectly, the run lasts the critical path,
  // and the cores can fill only total-work of cores x critical-path. Only that much is claimed
  // (idle beyond it has another cause: a placement that leaves cores empty, say), and first on
  // the cores that worked, so unused-cores still finds the cores a placement left empty.
  const std::uint64_t forced = trace.core_count * path.work > a.work ? trace.core_count * path.work - a.work : 0;
  std::uint64_t lost = 0;
  for (int pass = 0; pass < 2 && lost < forced; ++pass) {
    for (std::size_t i = 0; i < a.entries.size() && lost < forced; ++i) {
      const LossEntry e = a.entries[i];
      if (e.owner != kNone || (e.kind != LossKind::idle && e.kind != LossKind::run_end && e.kind != LossKind::run_start)) continue;
      if ((a.core_work[e.core] > 0) != (pass == 0)) continue;
      if (waits_for_a_turn(a, e)) continue;
      if (e.ticks <= forced - lost) {
        lost += ledger.claim(i);
      } else {  // the part of this span that fills the bound, from its start
        const auto length = static_cast<std::uint64_t>(static_cast<long double>(e.end - e.begin) * (forced - lost) / e.ticks);
        lost += ledger.claim_within(i, e.begin, e.begin + std::max<std::uint64_t>(length, 1));
      }
    }
  }
  if (lost == 0) return;
  // The chain's units that ran while the most core time sat idle beside them, with their call
  // sites: splitting those frees the idle cores; a long unit that ran beside others frees none.
  const IdleBeside idle_beside(a);
  std::vector<std::pair<std::uint64_t, std::uint32_t>> ranked;  // idle beside, unit
  for (std::uint32_t node : path.nodes) {
    const std::uint32_t u = a.graph.nodes[node].trace_index;
    if (a.unit(u).work() == 0) continue;
    ranked.emplace_back(idle_beside.over(a.unit(u).record.begin, a.unit(u).record.end), u);
  }
  // Idle within 1% of another's is a tie, kept in the chain's order: the first such unit holds up the rest.
  std::uint64_t most = 0;
  for (const auto& [idle, u] : ranked) most = std::max(most, idle);
  const std::uint64_t grain = std::max<std::uint64_t>(1, most / 100);
  std::stable_sort(ranked.begin(), ranked.end(), [grain](const auto& x, const auto& y) { return x.first / grain > y.first / grain; });
  // The hint names those tied with the first (its what-if shares their work out) and lists at
  // most three, none far below the first: splitting a unit nobody waited on gains nothing.
  std::vector<std::uint64_t> named;
  std::uint64_t idle_all = 0, idle_named = 0;
  for (const auto& [idle, u] : ranked) {
    idle_all += idle;
    if (idle / grain == ranked.front().first / grain) named.push_back(a.unit(u).record.unit), idle_named += idle;
  }
  ranked.resize(std::min<std::size_t>(ranked.size(), 3));
  while (ranked.size() > 1 && static_cast<double>(ranked.back().first) < kListedShare * static_cast<double>(ranked.front().first)) ranked.pop_back();
  std::vector<std::uint32_t> chain;
  for (const auto& [idle, u] : ranked) chain.push_back(u);
  for (std::size_t k = 0; k < chain.size(); ++k) {
    const std::uint64_t id = a.unit(chain[k]).record.unit;
    if (std::find(named.begin(), named.end(), id) == named.end()) named.push_back(id), idle_named += ranked[k].first;
  }
  // Where the idle beside the chain is spread over its units and the chain goes from VP to VP by
  // one dependence again and again (kMinCrossings times or more: a wavefront), none stands out to
  // split: that dependence binds it, and the cure is fewer of them (or finer pieces). The what-if
  // then lifts it. A chain that stays on one VP (a creator's sequence of calls) stays the split's.
  std::string binding;
  if (2 * idle_named < idle_all) {
    std::uint64_t most_arcs = 0;
    for (const auto& [kind, count] : path.arcs_by_kind) {
      if (kind != "same VP" && count > most_arcs) binding = kind, most_arcs = count;
    }
    if (most_arcs < kMinCrossings) binding.clear();
  }
  std::string listed;
  std::vector<std::uint32_t> cores;
  for (std::uint32_t u : chain) {
    listed += (listed.empty() ? "" : ", ") + std::string("unit ") + std::to_string(a.unit(u).record.unit) + " (" + a.ms(a.unit(u).work()) +
              " of work, ending at " + a.site_of(u) + ", " +
              a.ms(idle_beside.over(a.unit(u).record.begin, a.unit(u).record.end)) + " of core time idle beside it)";
    cores.push_back(a.unit(u).core);
  }
  const auto usable = static_cast<std::uint64_t>(std::max(1.0, std::ceil(path.parallelism - 1e-9)));
  const std::uint64_t unusable = usable < trace.core_count ? trace.core_count - usable : 0;
  Hint& hint = out.hints.emplace_back(make_hint(
      "critical-path",
      "the run is bound by its critical path: " + a.ms(path.work) + " of work in a chain of " +
          detail::plural(path.nodes.size(), "unit") + " (" + detail::fixed(100 * share, 1) + "% of the makespan); parallelism " +
          detail::fixed(path.parallelism, 2) + " on " + detail::plural(trace.core_count, "core") + ", so " +
          (unusable > 0 ? detail::plural(unusable, "core") + " cannot be used" : std::string("the cores cannot all be kept busy")) +
          " whatever the placement. Split the chain's units that ran while other cores sat idle: " + listed +
          (named.size() > chain.size() ? " and " + std::to_string(named.size() - chain.size()) + " more like the first" : std::string()) +
          (binding.empty() ? std::string()
                           : "; no unit of the chain stands out (those named ran beside " +
                                 detail::fixed(100.0 * static_cast<double>(idle_named) / static_cast<double>(idle_all), 0) +
                                 "% of the idle beside it): " + std::to_string(path.arcs_by_kind.at(binding)) + " of its " +
                                 std::to_string(path.arcs.size()) + " arcs are " + binding +
                                 " dependences between VPs, and fewer of them, or finer pieces, would shorten it") +
          " (paper section 4)",
      cores, 0, a.makespan, chain.empty() ? std::string() : a.site_of(chain.front()), lost));
  hint.units = std::move(named);
  hint.construct = binding;
}

}  // namespace

extern const Rule rule_critical_path{30, "critical-path", run};

}  // namespace moirai::visualize::report

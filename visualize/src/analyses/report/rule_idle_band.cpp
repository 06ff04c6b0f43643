// Idle bands between waves of units (paper sections 3.4.2 and 3.4.3): a quarter of the cores or
// more sit idle together mid-run (after their first unit), until the next wave becomes ready.
// A band lists only the cores idle for most of it; the loss is the idle time inside the bands. A
// band that spans nearly the whole run is not between waves, and is left to the other rules; nor
// are cores that each run one VP of their own (MPI's ranks), which have no waves.
#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "output/text_format.h"
#include "analyses/report/analysis.h"

namespace moirai::visualize::report {
namespace {

constexpr double kBandCores = 0.25;   // a quarter of the cores (2 at least)
constexpr double kBandLength = 0.02;  // idle together for 2% of the run or more
// A band over 90% of the run or more spans it: no wave ran before it nor after it, and the cores
// sat idle throughout (units too small, a chain of waits), which is not a band between waves.
constexpr double kWholeRun = 0.90;

void run(const Analysis& a, Ledger& ledger, RuleOutput& out) {
  const trace::Trace& trace = a.trace;
  // Where each core runs one VP of its own, no runtime hands out waves: cores idle together wait
  // for the constraints of a late VP, which idle-cause names.
  if (a.own_cores) return;
  const std::size_t band_cores = std::max<std::size_t>(2, static_cast<std::size_t>(std::ceil(kBandCores * trace.core_count)));
  const auto mid_run = [&](const LossEntry& e) {
    if (e.kind != LossKind::idle || e.owner != kNone) return false;
    const auto& units = a.units_on_core[e.core];
    return !units.empty() && e.begin >= a.unit(units.front()).record.assign;
  };
  std::vector<std::pair<std::uint64_t, int>> edges;  // (tick, +1 idle begins / -1 ends)
  for (const LossEntry& e : a.entries) {
    if (!mid_run(e)) continue;
    edges.emplace_back(e.begin, +1);
    edges.emplace_back(e.end, -1);
  }
  std::sort(edges.begin(), edges.end());  // at one tick, ends (-1) before begins (+1)
  std::vector<Window> bands;
  std::uint64_t open_at = 0;
  int count = 0;
  for (const auto& [tick, step] : edges) {
    const bool was = count >= static_cast<int>(band_cores);
    count += step;
    const bool is = count >= static_cast<int>(band_cores);
    if (!was && is) open_at = tick;
    const double length = static_cast<double>(tick - open_at), run = static_cast<double>(a.makespan);
    if (was && !is && length >= kBandLength * run && length < kWholeRun * run) bands.push_back({open_at, tick});
  }
  if (bands.empty()) return;
  // Per band: idle ticks per core and per cause (construct, site), before claiming.
  std::vector<std::map<std::uint32_t, std::uint64_t>> band_core_idle(bands.size());
  std::vector<std::map<std::pair<std::string, std::string>, std::uint64_t>> band_causes(bands.size());
  for (const LossEntry& e : a.entries) {
    if (!mid_run(e)) continue;
    auto b = std::partition_point(bands.begin(), bands.end(), [&](const Window& w) { return w.end <= e.begin; });
    for (; b != bands.end() && b->begin < e.end; ++b) {
      const std::uint64_t inside = std::min(e.end, b->end) - std::max(e.begin, b->begin);
      const std::size_t k = static_cast<std::size_t>(b - bands.begin());
      band_core_idle[k][e.core] += inside;
      band_causes[k][{a.construct_of(e), a.site_of(a.freeing_unit(e))}] += inside;
    }
  }
  std::vector<std::uint64_t> per_band;
  const std::uint64_t lost = ledger.claim_windows(bands, [&](const LossEntry& e, const Window&) { return mid_run(e); }, &per_band);
  if (lost == 0) return;
  std::vector<std::size_t> order(bands.size());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return bands[x].end - bands[x].begin > bands[y].end - bands[y].begin; });
  std::string listed, site;
  std::vector<std::uint32_t> longest_cores;
  for (std::size_t n = 0; n < std::min<std::size_t>(order.size(), 3); ++n) {
    const std::size_t k = order[n];
    const Window& band = bands[k];
    std::vector<std::uint32_t> cores;  // idle for at least half the band
    for (const auto& [core, ticks] : band_core_idle[k]) {
      if (2 * ticks >= band.end - band.begin) cores.push_back(core);
    }
    // The most idle time; on a tie the first cause by name.
    const auto cause = std::max_element(band_causes[k].begin(), band_causes[k].end(), [](const auto& x, const auto& y) {
      return x.second != y.second ? x.second < y.second : y.first < x.first;
    });
    const bool known = cause != band_causes[k].end();
    listed += std::string(n ? "; " : "") + a.at(band.begin) + " .. " + a.at(band.end) + " (" +
              detail::fixed(100.0 * static_cast<double>(band.end - band.begin) / static_cast<double>(a.makespan), 1) + "% of the run, " +
              a.words.core_set(cores) + ", most until a " + (known ? cause->first.first : std::string("?")) +
              (known && !cause->first.second.empty() ? " at " + cause->first.second : "") + ")";
    if (n == 0) {
      longest_cores = cores;
      if (known) site = cause->first.second;
    }
  }
  const Window& longest = bands[order.front()];
  // The unit the longest band waited behind: the longest that worked through it on a core that
  // did not idle. Its wave, evened out over the cores, is what the what-if tries (balance).
  std::uint32_t behind = kNone;
  for (std::uint32_t core = 0; core < a.units_on_core.size(); ++core) {
    if (std::find(longest_cores.begin(), longest_cores.end(), core) != longest_cores.end()) continue;
    for (std::uint32_t u : a.units_on_core[core]) {
      const trace::UnitRecord& r = a.unit(u).record;
      if (r.begin < longest.end && longest.begin < r.end && (behind == kNone || a.unit(u).work() > a.unit(behind).work())) behind = u;
    }
  }
  Hint& hint = out.hints.emplace_back(make_hint(
      "idle-band",
      detail::plural(bands.size(), "idle band") + " between waves of units (at least " + std::to_string(band_cores) +
          " cores idle at once), longest first: " + listed +
          ". The next wave became ready late: make its units ready sooner (create them earlier or on a dedicated core), or choose a unit size whose waves fill the cores (paper 3.4.2, 3.4.3)",
      longest_cores, longest.begin - a.first, longest.end - a.first, site, lost));
  if (behind != kNone) hint.units = {a.unit(behind).record.unit};
}

}  // namespace

extern const Rule rule_idle_band{80, "idle-band", run};

}  // namespace moirai::visualize::report

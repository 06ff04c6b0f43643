// A clean run: a cause that cost under a few per cent of the core time is not worth tuning. Such
// hints move below the line; when none is left above it, the report says the run has no problem
// worth tuning, unless the small causes add up to much (then it says so, with the largest kinds).
// Runs last, over what the other rules found.
#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "output/text_format.h"
#include "analyses/report/analysis.h"

namespace moirai::visualize::report {
namespace {

constexpr double kWorthTuning = 0.03;  // of the run's core time
constexpr double kCleanTotal = 0.10;   // all lost time but the OS's, of the run's core time

void run(const Analysis& a, Ledger&, RuleOutput& out) {
  const auto small = [&](const Hint& h) { return a.share(h.lost) < kWorthTuning; };
  for (const Hint& h : out.hints) {
    if (small(h)) out.minor.push_back(h);
  }
  out.hints.erase(std::remove_if(out.hints.begin(), out.hints.end(), small), out.hints.end());
  if (!out.hints.empty()) return;
  // Small causes can add up: a run is clean only when its lost time is small in all.
  std::array<std::uint64_t, kLossKinds> by_kind{};
  std::uint64_t lost = 0;
  for (const LossEntry& e : a.entries) {
    if (e.kind == LossKind::os) continue;  // the busy-machine warning's, not the program's
    by_kind[static_cast<std::size_t>(e.kind)] += e.ticks;
    lost += e.ticks;
  }
  if (a.share(lost) < kCleanTotal) {
    out.notes.push_back("no problem worth tuning: every cause of lost time found is under " +
                        detail::fixed(kWorthTuning * 100, 0) + "% of the core time");
    return;
  }
  std::vector<std::size_t> kinds(kLossKinds);
  for (std::size_t k = 0; k < kLossKinds; ++k) kinds[k] = k;
  std::stable_sort(kinds.begin(), kinds.end(), [&](std::size_t x, std::size_t y) { return by_kind[x] > by_kind[y]; });
  std::string largest;
  for (std::size_t i = 0; i < 3 && by_kind[kinds[i]] > 0; ++i) {
    largest += std::string(i == 0 ? "" : ", ") + loss_kind_name(static_cast<LossKind>(kinds[i])) + " " +
               detail::fixed(100 * a.share(by_kind[kinds[i]]), 1) + "%";
  }
  out.notes.push_back("no hint is worth tuning (each is under " + detail::fixed(kWorthTuning * 100, 0) +
                      "% of the core time), but the run lost " + detail::fixed(100 * a.share(lost), 1) +
                      "% of it in all, most in: " + largest);
}

}  // namespace

extern const Rule rule_clean_run{1000, "clean-run", run};

}  // namespace moirai::visualize::report

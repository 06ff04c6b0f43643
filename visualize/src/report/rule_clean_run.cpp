// A clean run: a cause that cost under a few per cent of the core time is not worth tuning. Such
// hints move below the line; when none is left above it, the report says the run has no problem
// worth tuning. Runs last, over what the other rules found.
#include <algorithm>

#include "../text_format.h"
#include "analysis.h"

namespace moirai::visualize::report {
namespace {

constexpr double kWorthTuning = 0.03;  // of the run's core time

void run(const Analysis& a, Ledger&, RuleOutput& out) {
  const auto small = [&](const Hint& h) { return a.share(h.lost) < kWorthTuning; };
  for (const Hint& h : out.hints) {
    if (small(h)) out.minor.push_back(h);
  }
  out.hints.erase(std::remove_if(out.hints.begin(), out.hints.end(), small), out.hints.end());
  if (out.hints.empty()) {
    out.notes.push_back("no problem worth tuning: every cause of lost time found is under " +
                        detail::fixed(kWorthTuning * 100, 0) + "% of the core time");
  }
}

}  // namespace

extern const Rule rule_clean_run{1000, "clean-run", run};

}  // namespace moirai::visualize::report

// Unused cores (paper section 3.4, the misplaced brace of run a): some cores did almost no work
// while others did. The loss is those cores' idle time (and the start and end of the run there).
#include "output/text_format.h"
#include "analyses/report/analysis.h"

namespace moirai::visualize::report {
namespace {

constexpr double kUnusedCoreWork = 0.10;  // a core working under 10% of the makespan

void run(const Analysis& a, Ledger& ledger, RuleOutput& out) {
  std::vector<std::uint32_t> unused;
  std::uint64_t never = 0;
  for (std::uint32_t core = 0; core < a.core_work.size(); ++core) {
    if (static_cast<double>(a.core_work[core]) < kUnusedCoreWork * static_cast<double>(a.makespan)) {
      unused.push_back(core);
      never += a.core_work[core] == 0;
    }
  }
  if (unused.empty() || unused.size() == a.core_work.size()) return;
  std::vector<bool> is_unused(a.core_work.size(), false);
  for (std::uint32_t core : unused) is_unused[core] = true;
  std::uint64_t lost = 0;
  for (std::size_t i = 0; i < a.entries.size(); ++i) {
    const LossEntry& e = a.entries[i];
    if (is_unused[e.core] && (e.kind == LossKind::idle || e.kind == LossKind::run_end || e.kind == LossKind::run_start)) {
      lost += ledger.claim(i);
    }
  }
  if (lost == 0) return;
  out.hints.push_back(make_hint(
      "unused-cores",
      a.words.core_set(unused) + " did under " + detail::fixed(kUnusedCoreWork * 100, 0) + "% of the run in work (" +
          detail::plural(never, "core") + " none at all): " + a.words.unused_cure,
      unused, 0, a.makespan, "", lost));
}

}  // namespace

extern const Rule rule_unused_cores{60, "unused-cores", run};

}  // namespace moirai::visualize::report

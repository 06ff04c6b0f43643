// A busy machine (not a pattern of the program): on real cores the OS gave some of a core's time
// to other threads or the hypervisor while a unit ran there. That time is in the unit's span but
// not in its work (Unit::work), so no rule reads it as work; still, every time the report and the
// SCG show for those cores is longer than the program made it. When the OS's share of a core is
// above kBusyShare, the report says so first, before any figure: which cores, how much, which
// units, and what else ran on their CPUs. Claims nothing: the taken time stays its own entry.
#include <string>

#include "output/text_format.h"
#include "analyses/report/analysis.h"
#include "moirai/visualize/analyses/os_load.h"

namespace moirai::visualize::report {
namespace {

std::string percent(double share) { return detail::fixed(share * 100, 1) + "%"; }

void run(const Analysis& a, Ledger&, RuleOutput& out) {
  const OsLoad load = os_load(a.trace);
  if (!load.measured) return;
  const std::vector<std::uint32_t> busy = load.busy_cores();
  std::string moved;
  for (const CoreOsLoad& core : load.cores) {
    if (core.migrations == 0) continue;
    moved += std::string(moved.empty() ? "" : "; ") + "core " + std::to_string(core.core) + "'s thread moved to another CPU " +
             detail::plural(core.migrations, "time") + " inside units";
  }
  if (busy.empty() && moved.empty()) return;
  std::string text = "machine was busy: ";
  if (busy.empty()) {
    text = "threads not pinned: ";
  } else {
    text += "the OS took ";
    for (std::size_t i = 0; i < busy.size(); ++i) {
      const CoreOsLoad& core = load.cores[busy[i]];
      text += std::string(i == 0 ? "" : i + 1 == busy.size() ? " and " : ", ") + percent(core.share) + " of core " +
              std::to_string(core.core) + "'s time";
    }
    text += " from the units running there, to run something else (";
    for (std::size_t i = 0; i < busy.size(); ++i) {
      const CoreOsLoad& core = load.cores[busy[i]];
      text += std::string(i ? "; " : "") + "core " + std::to_string(core.core) + ": ";
      if (core.per_run) {
        text += "its thread waited for a CPU " + detail::fixed(static_cast<double>(core.taken) * 1e3 / a.trace.clock_hz, 1) +
                " ms over the run (measured per run, not per unit)";
      } else {
        text += std::to_string(core.units_hit) + " of " + detail::plural(a.units_on_core[core.core].size(), "unit") + " hit, " +
                std::to_string(core.switches) + " involuntary switch" + (core.switches == 1 ? "" : "es");
      }
      if (core.cpu >= 0 && core.other_busy_ns >= 0) {
        text += ", on CPU " + std::to_string(core.cpu) + " other work ran " +
                detail::fixed(core.other_busy_ns / 1e6, 1) + " ms";
        if (core.steal_ns > 0) text += " and the hypervisor stole " + detail::fixed(core.steal_ns / 1e6, 1) + " ms";
      }
    }
    const bool per_run = load.cores[busy.front()].per_run;
    text += std::string("). ") + (per_run ? "Every time below for " : "Those units' spans, and every time below for ") +
            a.words.core_set(busy) + ", are inflated by it: " +
            (per_run ? "measured over the run, not per unit, it is in the work figures too, and waits for those cores "
                       "lasted longer; a late arrival there may be the OS's, not the program's"
                     : "the work figures leave it out (the SCG draws it in gold), but waits on those cores lasted longer too") +
            ". Rerun on an idle machine for figures to compare";
  }
  if (!moved.empty()) text += std::string(busy.empty() ? "" : ". ") + moved + " (pinned threads never do)";
  out.warnings.push_back(text + ".");
}

}  // namespace

extern const Rule rule_machine_busy{1, "machine-busy", run};

}  // namespace moirai::visualize::report

// Creator starvation (paper section 3.4.1): the core of a creating VP runs other VPs' units
// between two of its creations while other cores sit idle waiting for creations it has not made
// yet. Premise: an idle core waited for a creation of that VP made after such a delay; the loss
// is only the part of that wait inside the delay.
// The creator itself may hold its creations back: a producer whose own work between two
// creations is at least that of the unit it then creates, and half the run's work or more, makes
// work no faster than one core does it (a divider's creations of a few instructions each are not
// such work). Its own units between creations are then delays too.
#include <algorithm>
#include <map>
#include <unordered_map>

#include "output/text_format.h"
#include "analyses/report/analysis.h"

namespace moirai::visualize::report {
namespace {

constexpr double kProducerShare = 0.50;  // a creator's own work between its creations, of all work

// Delay is a stretch in which a creator's core ran other VPs (or the creator's own work) between
// two of its creations.
struct Delay {
  std::uint64_t begin, end;
  std::uint32_t core;
  std::uint32_t units;        // other VPs' units in it (0: the creator's own work)
  std::uint32_t next_create;  // unit index of the creation after it
};

using Delays = std::map<std::uint64_t, std::vector<Delay>>;  // by creator VP, in time order

// claim takes the idle time other cores waited for a creator's creations, inside its delays
// before the creation they waited for; `by_delay` gets each delay's share.
std::uint64_t claim(const Analysis& a, Ledger& ledger, const Delays& delays, std::map<const Delay*, std::uint64_t>& by_delay) {
  const trace::Trace& trace = a.trace;
  std::uint64_t lost = 0;
  const std::size_t count = a.entries.size();
  for (std::size_t i = 0; i < count; ++i) {
    const LossEntry e = a.entries[i];
    if (e.kind != LossKind::idle || e.owner != kNone || e.freed_by == kNone) continue;
    if (trace.construct_role(trace.constraints[e.freed_by].construct) != ConstructRole::create) continue;
    const std::uint32_t creation = a.freeing_unit(e);
    if (creation == kNone) continue;
    const trace::UnitRecord& made = a.unit(creation).record;
    auto found = delays.find(made.vp);
    if (found == delays.end()) continue;
    // Every delay of this creator before the creation the idle core waited for, inside the wait.
    std::size_t piece = i;
    for (const Delay& d : found->second) {
      if (d.end > (d.units == 0 ? made.end : made.assign) || d.end <= e.begin || d.begin >= e.end || d.core == e.core) continue;
      const std::size_t before = a.entries.size();
      const std::uint64_t got = ledger.claim_within(piece, d.begin, d.end);
      lost += got;
      by_delay[&d] += got;
      if (a.entries.size() > before && a.entries.back().begin >= d.end) piece = a.entries.size() - 1;
      else break;
    }
  }
  return lost;
}

void run(const Analysis& a, Ledger& ledger, RuleOutput& out) {
  const trace::Trace& trace = a.trace;
  Delays delays, own;
  std::map<std::uint64_t, std::uint64_t> own_work;  // by creator VP
  std::unordered_map<std::uint64_t, std::uint64_t> created_work;  // creating unit id -> the created unit's work
  for (const trace::ConstraintRecord& c : trace.constraints) {
    if (trace.construct_role(c.construct) != ConstructRole::create) continue;
    auto made = a.unit_index.find(c.to);
    if (made != a.unit_index.end()) created_work[c.from] = std::max(created_work[c.from], a.unit(made->second).work());
  }
  for (std::uint32_t core = 0; core < a.units_on_core.size(); ++core) {
    const auto& units = a.units_on_core[core];
    std::map<std::uint64_t, std::size_t> last_create;  // VP -> position of its last creation here
    for (std::size_t i = 0; i < units.size(); ++i) {
      const trace::UnitRecord& r = a.unit(units[i]).record;
      if (trace.construct_role(r.ended_by) != ConstructRole::create) continue;
      auto previous = last_create.find(r.vp);
      if (previous != last_create.end()) {
        auto made = created_work.find(r.unit);
        if (made != created_work.end() && made->second > 0 && a.unit(units[i]).work() >= made->second) {
          own_work[r.vp] += a.unit(units[i]).work();
          own[r.vp].push_back(Delay{r.begin, r.end, core, 0, units[i]});
        }
        // Each unit of another VP between the two creations is a delay, from when the creating
        // unit was ready: while the creator still waited for a message, say, the creation could
        // not have been made sooner, and the idle time is not this pattern's.
        auto freeing = a.freed_by.find(r.unit);
        const std::uint64_t ready = freeing == a.freed_by.end() ? 0 : trace.constraints[freeing->second].time;
        for (std::size_t k = previous->second + 1; k < i; ++k) {
          trace::UnitRecord other = a.unit(units[k]).record;
          other.assign = std::max(other.assign, ready);
          if (other.vp == r.vp || other.assign >= other.handler_end) continue;
          auto& list = delays[r.vp];
          if (!list.empty() && list.back().next_create == units[i] && list.back().end == other.assign) {
            list.back().end = other.handler_end;  // back to back: one delay
            ++list.back().units;
          } else {
            list.push_back(Delay{other.assign, other.handler_end, core, 1, units[i]});
          }
        }
      }
      last_create[r.vp] = i;
    }
  }
  for (auto& [vp, list] : delays) {
    std::sort(list.begin(), list.end(), [](const Delay& x, const Delay& y) { return x.begin < y.begin; });
  }
  for (auto it = own.begin(); it != own.end();) {
    it = static_cast<double>(own_work[it->first]) >= kProducerShare * static_cast<double>(a.work) ? std::next(it) : own.erase(it);
  }
  std::map<const Delay*, std::uint64_t> by_delay;
  const std::uint64_t lost = claim(a, ledger, own, by_delay) + claim(a, ledger, delays, by_delay);
  if (lost == 0) return;
  const auto worst = std::max_element(by_delay.begin(), by_delay.end(),
                                      [](const auto& x, const auto& y) { return x.second < y.second; });
  const Delay& d = *worst->first;
  const trace::Unit& next = a.unit(d.next_create);
  const std::string site = a.site_of(d.next_create);
  const std::string what =
      d.units == 0 ? "worked alone between its creations (e.g. from " + a.at(d.begin) + " to " + a.at(d.end) +
                         ", before its creation in unit " + std::to_string(next.record.unit) +
                         "), while other cores sat idle waiting for its creations"
                   : "waited behind " + detail::plural(d.units, "unit") + " of other " + a.words.vps + " there from " + a.at(d.begin) +
                         " to " + a.at(d.end) + " before its next creation (unit " + std::to_string(next.record.unit) +
                         "), while other cores sat idle waiting for creations";
  Hint& hint = out.hints.emplace_back(make_hint(
      "creator-starvation",
      "the creating " + a.words.vp + " on " + a.words.core_set({d.core}) + " " + what + ": " + a.words.creator_cure + " (paper 3.4.1)",
      {d.core}, d.begin - a.first, d.end - a.first, site, lost));
  // A creator that worked alone names its own units that kept others waiting: where every core
  // already takes from one queue, sharing that work out is the cure, not another placement.
  if (d.units == 0) {
    for (const auto& [delay, got] : by_delay) {
      if (delay->units == 0 && got > 0) hint.units.push_back(a.unit(delay->next_create).record.unit);
    }
    std::sort(hint.units.begin(), hint.units.end());
  }
}

}  // namespace

extern const Rule rule_creator_starvation{20, "creator-starvation", run};

}  // namespace moirai::visualize::report

#include "moirai/replay/replay.h"

#include <algorithm>
#include <charconv>
#include <iterator>
#include <map>
#include <source_location>
#include <sstream>

#include "moirai/proto_runtime/run.h"
#include "recorded_run.h"
#include "replay_language.h"

namespace moirai::replay {

namespace {

// Named is a choice as a flag spells it.
template <class Choice>
struct Named {
  Choice choice;
  std::string_view name;
};
constexpr Named<Placement> kPlacements[] = {{Placement::language, "language"},
                                            {Placement::recorded, "recorded"},
                                            {Placement::last_core, "last-core"},
                                            {Placement::any_core, "any-core"}};
constexpr Named<Pinning> kPinnings[] = {
    {Pinning::automatic, "auto"}, {Pinning::keep, "keep"}, {Pinning::spread, "spread"}, {Pinning::free, "free"}};

// parse_choice reads `text` as one of `table`'s names; throws std::invalid_argument naming them.
template <class Choice, std::size_t N>
Choice parse_choice(const Named<Choice> (&table)[N], std::string_view text, const char* what) {
  std::string choices;
  for (const Named<Choice>& named : table) {
    if (named.name == text) return named.choice;
    choices += (choices.empty() ? "" : ", ") + std::string(named.name);
  }
  throw std::invalid_argument("unknown " + std::string(what) + " '" + std::string(text) + "' (choose one of " + choices + ")");
}

// name_of spells `choice` as `table` does.
template <class Choice, std::size_t N>
std::string_view name_of(const Named<Choice> (&table)[N], Choice choice) {
  for (const Named<Choice>& named : table) {
    if (named.choice == choice) return named.name;
  }
  return "?";
}

constexpr Named<Cause> kCauses[] = {{Cause::none, "none"},
                                    {Cause::lock_contention, "lock-contention"},
                                    {Cause::unit_size, "unit-size"},
                                    {Cause::waking_cores, "waking-cores"},
                                    {Cause::work_at, "work-at"},
                                    {Cause::work_of, "work-of"},
                                    {Cause::split, "split"},
                                    {Cause::share, "share"},
                                    {Cause::balance, "balance"},
                                    {Cause::exclusive_first, "exclusive-first"},
                                    {Cause::unchain, "unchain"},
                                    {Cause::placement, "placement"},
                                    {Cause::even, "even"}};

// unit_with_id is the run's unit the trace numbered `id`; ReplayError naming `cause` when none is.
detail::RecordedUnit& unit_with_id(detail::RecordedRun& run, std::uint64_t id, const RemovedCause& cause) {
  const auto found = std::find_if(run.units.begin(), run.units.end(), [id](const detail::RecordedUnit& u) { return u.id == id; });
  if (found == run.units.end()) throw ReplayError("the trace has no unit " + std::to_string(id) + " (--remove-cause " + cause_text(cause) + ")");
  return *found;
}

// balance makes the wave of units `at` fill every core that ran them, as a count of pieces that
// fills the cores would: the pieces a core ran beyond the number every core ran (the last wave's,
// which left the others idle) do no work, and theirs goes to the others in proportion to their
// own; where every core ran as many, each core's total is evened out (longer and shorter pieces).
// Units without work (a creator's calls at the same site) are not pieces.
void balance(const std::vector<detail::RecordedUnit*>& at) {
  std::map<std::uint32_t, std::vector<detail::RecordedUnit*>> by_core;  // in the recorded order
  double total = 0;
  for (detail::RecordedUnit* unit : at) {
    if (unit->work_seconds <= 0) continue;
    by_core[unit->core].push_back(unit);
    total += unit->work_seconds;
  }
  if (by_core.empty()) return;
  std::size_t fewest = SIZE_MAX;
  for (const auto& [core, pieces] : by_core) fewest = std::min(fewest, pieces.size());
  double kept = 0;
  bool folded = false;
  for (auto& [core, pieces] : by_core) {
    for (std::size_t i = 0; i < pieces.size(); ++i) {
      if (i < fewest) {
        kept += pieces[i]->work_seconds;
      } else {
        pieces[i]->work_seconds = 0;
        folded = true;
      }
    }
  }
  for (auto& [core, pieces] : by_core) {
    double own = 0;
    for (std::size_t i = 0; i < fewest; ++i) own += pieces[i]->work_seconds;
    const double scale = folded ? total / kept : total / static_cast<double>(by_core.size()) / own;
    for (std::size_t i = 0; i < fewest; ++i) pieces[i]->work_seconds *= scale;
  }
}

// even_out shares the work of `late` and of the units that waited for it evenly among them: on
// each other VP a constraint of `late` freed, the unit before the one it freed (the one whose
// end began the wait). The late arrival's excess then costs no one idle time, the work is kept.
void even_out(detail::RecordedRun& run, detail::RecordedUnit& late) {
  std::vector<detail::RecordedUnit*> group{&late};
  for (std::uint32_t c = late.first_out; c < late.first_out + late.out_count; ++c) {
    const detail::RecordedUnit& freed = run.units[run.out[c].to];
    if (freed.vp == late.vp || run.out[c].dropped) continue;
    const std::vector<std::uint32_t>& on_vp = run.vps[freed.vp].units;
    const auto at = std::find(on_vp.begin(), on_vp.end(), run.out[c].to);
    if (at == on_vp.begin() || at == on_vp.end()) continue;
    detail::RecordedUnit* waited = &run.units[*std::prev(at)];
    if (std::find(group.begin(), group.end(), waited) == group.end()) group.push_back(waited);
  }
  double total = 0;
  for (const detail::RecordedUnit* unit : group) total += unit->work_seconds;
  for (detail::RecordedUnit* unit : group) unit->work_seconds = total / static_cast<double>(group.size());
}

// remove_cause changes the machine and the run so that `cause` costs nothing (placement is
// chosen by replay itself).
void remove_cause(const RemovedCause& cause, const trace::Trace& trace, proto::SimConfig& config, detail::RecordedRun& run) {
  proto::CostModel& costs = config.costs;
  const auto no_lock = [&] {
    costs.lock = costs.lock_handoff = costs.lock_contended = 0;
    config.lock_excludes = false;
  };
  const auto no_wake = [&] { costs.wake = costs.wake_parked = 0; };
  switch (cause.cause) {
    case Cause::none:
    case Cause::placement:
      return;
    case Cause::lock_contention:
      no_lock();
      return;
    case Cause::waking_cores:
      no_wake();
      return;
    case Cause::unit_size:
      no_lock();
      no_wake();
      costs.switch_ticks = costs.communication = costs.assigner = costs.handler = 0;
      costs.communications.clear();
      costs.handlers.clear();
      config.language_costs = false;  // nor what the recording measured
      return;
    case Cause::work_at:
    case Cause::balance: {
      const auto site_of = [](const detail::RecordedUnit& unit) { return std::string(unit.site.file) + ":" + std::to_string(unit.site.line); };
      std::string site = cause.site;
      if (site.empty() && !cause.units.empty()) site = site_of(unit_with_id(run, cause.units.front(), cause));  // balance:UNIT
      std::vector<detail::RecordedUnit*> at;
      for (detail::RecordedUnit& unit : run.units) {
        if (site_of(unit) == site) at.push_back(&unit);
      }
      if (at.empty()) throw ReplayError("no unit of the trace ends at " + site + " (--remove-cause " + cause_text(cause) + ")");
      if (cause.cause == Cause::work_at) {
        for (detail::RecordedUnit* unit : at) unit->work_seconds = 0;
        return;
      }
      balance(at);
      return;
    }
    case Cause::exclusive_first:
      run.exclusive_first = true;
      return;
    case Cause::unchain: {
      std::size_t found = 0;
      for (detail::RecordedConstraint& c : run.out) {
        if (c.dropped || trace.construct_name(c.construct) != cause.site) continue;
        c.dropped = true;
        --run.units[c.to].constraints;
        ++found;
      }
      if (found == 0) throw ReplayError("the trace has no constraint of " + cause.site + " (--remove-cause " + cause_text(cause) + ")");
      for (detail::RecordedVp& vp : run.vps) vp.at_start = !vp.units.empty() && run.units[vp.units.front()].constraints == 0;
      return;
    }
    case Cause::even:
      for (const std::uint64_t id : cause.units) even_out(run, unit_with_id(run, id, cause));
      return;
    case Cause::work_of:
    case Cause::split:
    case Cause::share:
      // split: the cure the long-serial and critical-path hints give, the work shared out evenly
      // over the cores that sat idle beside it, so that 1/N of it stays on the chain. share: the
      // cure of a creator that prepared its tasks alone, the rest done by the tasks it created,
      // as when every thread prepares and creates its share: the work is kept, not dropped.
      for (const std::uint64_t id : cause.units) {
        detail::RecordedUnit& unit = unit_with_id(run, id, cause);
        const double kept = cause.cause == Cause::work_of ? 0.0 : unit.work_seconds / static_cast<double>(config.topology.cores());
        const double moved = unit.work_seconds - kept;
        unit.work_seconds = kept;
        if (cause.cause != Cause::share) continue;
        std::vector<std::uint32_t> made;
        for (std::uint32_t c = unit.first_out; c < unit.first_out + unit.out_count; ++c) {
          if (trace.construct_role(run.out[c].construct) == ConstructRole::create && run.first_of(run.out[c].to)) made.push_back(run.out[c].to);
        }
        for (const std::uint32_t to : made) run.units[to].work_seconds += moved / static_cast<double>(made.size());
      }
      return;
  }
}

}  // namespace

Placement language_placement(const trace::Trace& trace) {
  return trace.language_choices.placement == LanguagePlacement::last_core ? Placement::last_core : Placement::any_core;
}

RemovedCause parse_cause(std::string_view text) {
  for (const Cause sited : {Cause::work_at, Cause::balance}) {
    const std::string prefix = std::string(name_of(kCauses, sited)) + ":";
    if (!text.starts_with(prefix)) continue;
    const std::string_view site = text.substr(prefix.size());
    std::uint64_t unit = 0;
    if (sited == Cause::balance && std::from_chars(site.data(), site.data() + site.size(), unit).ptr == site.data() + site.size() && !site.empty()) {
      return {sited, {}, {unit}};  // balance:UNIT: at the call site where that unit ended
    }
    const std::size_t colon = site.rfind(':');
    if (colon == std::string_view::npos || colon == 0 || colon + 1 == site.size() ||
        site.find_first_not_of("0123456789", colon + 1) != std::string_view::npos) {
      throw std::invalid_argument("--remove-cause " + std::string(text) + ": " + prefix.substr(0, prefix.size() - 1) + " takes a call site FILE:LINE");
    }
    return {sited, std::string(site), {}};
  }
  for (const Cause listed : {Cause::work_of, Cause::split, Cause::share, Cause::even}) {
    const std::string prefix = std::string(name_of(kCauses, listed)) + ":";
    if (!text.starts_with(prefix)) continue;
    RemovedCause cause{listed, {}, {}};
    std::string_view list = text.substr(prefix.size());
    while (true) {
      const std::string_view id = list.substr(0, list.find(','));
      std::uint64_t unit = 0;
      const auto [end, error] = std::from_chars(id.data(), id.data() + id.size(), unit);
      if (id.empty() || error != std::errc() || end != id.data() + id.size()) {
        throw std::invalid_argument("--remove-cause " + std::string(text) + ": " + prefix.substr(0, prefix.size() - 1) + " takes unit ids: " + prefix + "UNIT[,UNIT...]");
      }
      cause.units.push_back(unit);
      if (id.size() == list.size()) break;
      list.remove_prefix(id.size() + 1);
    }
    return cause;
  }
  if (text.starts_with("unchain:") && text.size() > 8) return {Cause::unchain, std::string(text.substr(8)), {}};
  const Cause cause = parse_choice(kCauses, text, "cause");
  if (cause == Cause::work_at || cause == Cause::balance) {
    const std::string name(name_of(kCauses, cause));
    throw std::invalid_argument("--remove-cause " + name + " takes a call site: " + name + ":FILE:LINE");
  }
  if (cause == Cause::unchain) throw std::invalid_argument("--remove-cause unchain takes a construct's name: unchain:CONSTRUCT");
  if (cause == Cause::work_of || cause == Cause::split || cause == Cause::share || cause == Cause::even) {
    const std::string name(name_of(kCauses, cause));
    throw std::invalid_argument("--remove-cause " + name + " takes unit ids: " + name + ":UNIT[,UNIT...]");
  }
  return {cause, {}, {}};
}

std::string cause_text(const RemovedCause& cause) {
  const std::string name(name_of(kCauses, cause.cause));
  if ((cause.cause == Cause::work_at || cause.cause == Cause::balance || cause.cause == Cause::unchain) && !cause.site.empty()) return name + ":" + cause.site;
  if (cause.cause == Cause::work_of || cause.cause == Cause::split || cause.cause == Cause::share || cause.cause == Cause::even ||
      cause.cause == Cause::balance) {
    std::string text = name + ":";
    for (std::size_t i = 0; i < cause.units.size(); ++i) text += (i ? "," : "") + std::to_string(cause.units[i]);
    return text;
  }
  return name;
}

RemovedCause cause_for_rule(std::string_view rule, std::string_view site, const std::vector<std::uint64_t>& units,
                            std::string_view construct) {
  // Both claim what fewer construct calls save: the lock waits and the runtime's own steps.
  if (rule == "lock-contention" || rule == "unit-size") return {Cause::unit_size, {}, {}};
  if (rule == "waking-cores") return {Cause::waking_cores, {}, {}};
  // Both name the serial work at fault; doing none of it bounds what splitting it gains.
  if (rule == "long-serial" && !units.empty()) return {Cause::split, {}, units};
  if (rule == "long-serial" && !site.empty()) return {Cause::work_at, std::string(site), {}};
  if (rule == "critical-path" && !construct.empty()) return {Cause::unchain, std::string(construct), {}};
  if (rule == "critical-path" && !units.empty()) return {Cause::split, {}, units};
  if (rule == "idle-tail" && !site.empty()) return {Cause::balance, std::string(site), {}};
  if (rule == "exclusive-late") return {Cause::exclusive_first, {}, {}};
  // A wait for one's turn in an exclusive section: the section excluding no one bounds what
  // moving its work out gains.
  if (rule == "idle-cause" && !construct.empty()) return {Cause::unchain, std::string(construct), {}};
  // Idle cores a late arrival freed (a late sender, the last rank at a collective): its excess
  // of work shared with those that waited for it, the cure its hint gives.
  if (rule == "idle-cause" && !units.empty()) return {Cause::even, {}, units};
  if (rule == "idle-band" && !units.empty()) return {Cause::balance, {}, {units.front()}};
  if (rule == "unused-cores" || rule == "creator-starvation") return {Cause::placement, {}, {}};
  return {};
}

Pinning parse_pinning(std::string_view text) { return parse_choice(kPinnings, text, "pinning"); }

std::string_view pinning_name(Pinning pinning) { return name_of(kPinnings, pinning); }

Placement parse_placement(std::string_view text) { return parse_choice(kPlacements, text, "placement"); }

std::string_view placement_name(Placement placement) { return name_of(kPlacements, placement); }

ReplayResult replay(const trace::Trace& recorded, const ReplayOptions& options) {
  if (!(options.work_scale > 0) || options.work_scale > 1e6) {
    throw ReplayError("the work scale must be above 0 and at most 1e6, not " + std::to_string(options.work_scale));
  }
  detail::RecordedRun run = detail::rebuild(recorded);
  ReplayResult result;
  // The what-if without the recorded placement; share too: the tasks a creator's work moved into
  // go to whichever core is free, as when every thread creates its share.
  const bool free_placement = options.removed.cause == Cause::placement || options.removed.cause == Cause::share;
  result.placement = free_placement ? Placement::any_core
                     : options.placement == Placement::language ? language_placement(recorded)
                                                                : options.placement;
  result.pinning = free_placement ? Pinning::free : options.pinning;
  result.recorded_seconds = run.makespan_seconds;
  result.notes = run.notes;

  proto::SimConfig config;
  config.topology = options.machine;
  config.work = proto::SimWork::declared;
  config.costs = options.costs;
  // Recorded work is replayed as measured, less the slowdown of the cores that worked beside it
  // (the model's stretch, the recording's cores taken as one socket); the machine then slows it
  // by the cores busy beside it there. Rates and the cores' spread are the program's on the
  // recording machine: already in what was measured.
  const proto::WorkModel& given = options.costs.work;
  const double stretch = given.stretch_machine + given.stretch_socket;
  config.costs.work = proto::WorkModel{};
  config.costs.work.stretch_machine = given.stretch_machine;
  config.costs.work.stretch_socket = given.stretch_socket;
  if (stretch > 0) {
    std::ostringstream said;
    said << "work converted by the model's stretch (" << stretch
         << " per core busy beside a unit): to what it cost alone, then slowed by the cores busy beside it here";
    result.notes.push_back(said.str());
  }
  config.language_costs = true;            // handlers the model does not name cost what was measured
  remove_cause(options.removed, recorded, config, run);
  proto::SimMachine machine(config);
  if (result.pinning == Pinning::automatic) {
    result.pinning = recorded.core_count == machine.core_count() ? Pinning::keep : Pinning::spread;
  }
  detail::pin_vps(run, result.pinning, machine.core_count());

  const proto::LanguageTable table = detail::language_table(recorded, run, config.costs.clock_hz);
  detail::ReplayLanguage language(run, table, result.placement, machine.core_count(),
                                  config.costs.clock_hz * options.work_scale, stretch);
  const detail::RecordedVp& seed = run.vps[run.seed];
  proto::RunOptions run_options;
  run_options.observer = options.observer;
  run_options.seed_name = seed.name;
  run_options.seed_core = seed.target_core;
  proto::run(machine, language, language.body_of(run.seed), run_options, CallSite::from(std::source_location::current()));

  result.units = machine.units();
  result.makespan_ticks = machine.makespan();
  result.makespan_seconds = static_cast<double>(result.makespan_ticks) / config.costs.clock_hz;
  return result;
}

}  // namespace moirai::replay

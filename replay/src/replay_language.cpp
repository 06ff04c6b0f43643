#include "replay_language.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "moirai/proto_runtime/request.h"
#include "moirai/proto_runtime/runtime_services.h"

namespace moirai::replay::detail {

proto::LanguageTable language_table(const trace::Trace& trace, const RecordedRun& run, double clock_hz) {
  std::size_t kinds = std::max<std::size_t>({trace.constructs.size(), run.handler_seconds.size(), 1});
  for (const RecordedConstraint& c : run.out) kinds = std::max<std::size_t>(kinds, c.construct + 1u);
  std::vector<proto::ConstructRow> rows;
  proto::CostModel costs = proto::CostModel::default_model();
  for (std::size_t kind = 0; kind < kinds; ++kind) {
    const auto k = static_cast<ConstructKind>(kind);
    ConstructInfo info{trace.construct_name(k), trace.construct_role(k),
                       kind < trace.construct_colours.size() ? trace.construct_colours[kind] : std::string()};
    if (kind < run.handler_seconds.size() && run.handler_seconds[kind] >= 0) {
      costs.handlers[info.name] = static_cast<std::uint64_t>(std::llround(run.handler_seconds[kind] * clock_hz));
    }
    rows.push_back({k, std::move(info)});
  }
  const auto language = trace.metadata.find("language");
  // The replayed trace speaks the recorded language's words and keeps its placement for the next replay.
  return proto::LanguageTable(language != trace.metadata.end() ? language->second : "replay", rows, std::move(costs),
                              trace.language_choices);
}

ReplayLanguage::ReplayLanguage(const RecordedRun& run, const proto::LanguageTable& table, Placement placement,
                               std::size_t cores, double ticks_per_second, double stretch)
    : proto::LanguagePlugin(table),
      run_(run),
      placement_(placement),
      cores_(cores),
      ticks_per_second_(ticks_per_second),
      stretch_(stretch),
      states_(run.vps.size()),
      id_(run.units.size(), 0),
      queues_(cores) {
  for (std::size_t v = 0; v < states_.size(); ++v) states_[v].index = static_cast<std::uint32_t>(v);
  waiting_for_.reserve(run.units.size());
  for (const RecordedUnit& unit : run.units) waiting_for_.push_back(unit.constraints);
}

proto::VpFunction ReplayLanguage::body_of(std::uint32_t vp) {
  return [this, vp](proto::VirtualProcessor& self) { animate(self, vp); };
}

void ReplayLanguage::animate(proto::VirtualProcessor& self, std::uint32_t vp) {
  const std::vector<std::uint32_t>& units = run_.vps[vp].units;
  // The other VPs that exist from the recording's start (an MPI job's ranks) start with the seed,
  // not when its first unit ends: the seed's first request, before any work, creates them.
  const auto at_start = [&](const RecordedVp& other) { return other.at_start && !other.units.empty(); };
  if (vp == run_.seed && !started_ && !units.empty() && run_.units[units.front()].ended_by != proto::kEndVp &&
      std::count_if(run_.vps.begin(), run_.vps.end(), at_start) > 1) {
    proto::Request request;
    request.kind = run_.units[units.front()].ended_by;
    request.site = run_.units[units.front()].site;
    starting_ = true;
    if (!self.call_runtime(request)) return;
  }
  for (std::size_t k = 0; k < units.size(); ++k) {
    const RecordedUnit& unit = run_.units[units[k]];
    const double alone = unit.work_seconds / (1.0 + stretch_ * unit.busy_beside);
    self.charge_work(static_cast<std::uint64_t>(std::llround(alone * ticks_per_second_)));
    if (unit.ended_by == proto::kEndVp) return;  // the runtime ends the VP with its last unit
    proto::Request request;
    request.kind = unit.ended_by;
    request.site = unit.site;
    if (!self.call_runtime(request)) return;
  }
}

void ReplayLanguage::vp_created(proto::VirtualProcessor& vp, CoreId /*core*/) {
  VpState& state = creating_ != nullptr ? *creating_ : states_[run_.seed];
  creating_ = nullptr;
  state.vp = &vp;
  state.created = true;
  vp.language_slot = &state;
}

proto::LockDomains ReplayLanguage::domains(const proto::Request& request) const {
  const VpState& state = *static_cast<const VpState*>(request.requester->language_slot);
  const std::vector<std::uint32_t>& units = run_.vps[state.index].units;
  proto::LockDomains set = proto::LockDomains::none();
  if (state.position >= units.size()) return set;
  const RecordedUnit& ended = run_.units[units[state.position]];
  for (std::uint8_t k = 0; k < ended.domain_count; ++k) set.add(ended.domains[k]);
  return set;
}

std::string ReplayLanguage::describe_domain(LockDomain domain) const {
  auto named = run_.domain_names.find(domain);
  return named != run_.domain_names.end() ? named->second : std::string();
}

void ReplayLanguage::handle(proto::Request& request, proto::RuntimeServices& services) {
  VpState& state = *static_cast<VpState*>(request.requester->language_slot);
  if (starting_) {  // the seed's start request: no recorded unit ended
    starting_ = false;
    started_ = true;
    for (VpState& other : states_) {
      if (!other.created && run_.vps[other.index].at_start && !run_.vps[other.index].units.empty()) create(other, request.site, services);
    }
    services.make_ready(*request.requester);
    return;
  }
  if (!started_) {
    // The VPs nothing freed in the recording exist from its start: here, from the first handler.
    started_ = true;
    for (VpState& other : states_) {
      const RecordedVp& vp = run_.vps[other.index];
      if (!other.created && vp.at_start && !vp.units.empty()) create(other, request.site, services);
    }
  }
  const std::vector<std::uint32_t>& units = run_.vps[state.index].units;
  if (state.position < units.size()) {
    const RecordedUnit& ended = run_.units[units[state.position]];
    for (std::uint32_t k = 0; k < ended.out_count; ++k) {
      satisfy(run_.out[ended.first_out + k], request.unit, request.site, services);
    }
    ++state.position;
  }
  if (request.kind == proto::kEndVp) {
    state.vp = nullptr;
    return;
  }
  if (state.position >= units.size()) {  // the recording ended the VP with its last construct call
    services.make_ready(*request.requester);
    return;
  }
  reach(state, units[state.position], services);
}

void ReplayLanguage::reach(VpState& state, std::uint32_t unit, proto::RuntimeServices& services) {
  identify(unit, state.vp->unit(), services);
  if (waiting_for_[unit] == 0) {
    services.make_ready(*state.vp);
  } else {
    state.waiting = true;
  }
}

void ReplayLanguage::satisfy(const RecordedConstraint& constraint, UnitId from, const CallSite& site,
                             proto::RuntimeServices& services) {
  if (constraint.dropped) return;
  std::uint64_t match = 0;
  if (constraint.match != 0) {
    auto found = matches_.find(constraint.match);
    if (found == matches_.end()) found = matches_.emplace(constraint.match, services.new_match()).first;
    match = found->second;
  }
  if (id_[constraint.to] != 0) {
    services.record_constraint(constraint.construct, from, id_[constraint.to], match);
  } else {
    deferred_[constraint.to].push_back({constraint.construct, from, match});
  }
  if (--waiting_for_[constraint.to] == 0) release(constraint.to, site, services);
}

void ReplayLanguage::release(std::uint32_t unit, const CallSite& site, proto::RuntimeServices& services) {
  VpState& state = states_[run_.units[unit].vp];
  if (!state.created) {
    create(state, site, services);
  } else if (state.waiting && run_.vps[state.index].units[state.position] == unit) {
    state.waiting = false;
    services.make_ready(*state.vp);
  }
}

void ReplayLanguage::create(VpState& state, const CallSite& site, proto::RuntimeServices& services) {
  const RecordedVp& recorded = run_.vps[state.index];
  creating_ = &state;  // vp_created fills the state in
  (void)services.create_vp(body_of(state.index), proto::VpOptions{recorded.name, recorded.target_core, 0}, site);
  reach(state, recorded.units.front(), services);
}

void ReplayLanguage::identify(std::uint32_t unit, UnitId id, proto::RuntimeServices& services) {
  id_[unit] = id;
  const auto found = deferred_.find(unit);
  if (found == deferred_.end()) return;
  for (const Deferred& d : found->second) services.record_constraint(d.construct, d.from, id, d.match);
  deferred_.erase(found);
}

std::string ReplayLanguage::describe_wait(const proto::Request& request) const {
  const auto* state = static_cast<const VpState*>(request.requester->language_slot);
  if (state == nullptr || state->position >= run_.vps[state->index].units.size()) return {};
  return "its next recorded unit, freed by " +
         std::to_string(waiting_for_[run_.vps[state->index].units[state->position]]) + " more construct call(s)";
}

CoreId ReplayLanguage::on_ready(proto::VirtualProcessor& vp) {
  const VpState& state = *static_cast<const VpState*>(vp.language_slot);
  const RecordedVp& recorded = run_.vps[state.index];
  CoreId core = kAnyCore;
  if (recorded.target_core != kAnyCore) {
    core = recorded.target_core;
  } else if (placement_ == Placement::recorded) {
    const std::size_t at = std::min<std::size_t>(state.position, recorded.units.size() - 1);
    core = on_target(run_.units[recorded.units[at]].core);
  } else if (placement_ == Placement::last_core) {
    core = vp.last_core() != kAnyCore ? vp.last_core() : on_target(static_cast<CoreId>(next_core_++));
  }
  const bool body = state.position < recorded.units.size() && run_.units[recorded.units[state.position]].exclusive_body;
  return queues_.push(vp, core, run_.exclusive_first && body);
}

proto::VirtualProcessor* ReplayLanguage::next_for(CoreId core) { return queues_.pop(core); }

}  // namespace moirai::replay::detail

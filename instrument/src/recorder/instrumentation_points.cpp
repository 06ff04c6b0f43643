// The instrumentation points: what the recorder does at each call of the runtime's observer,
// on the thread of the core it names. Each core builds its unit's record in place and appends
// fixed-size records to its own buffer (core_buffers.cpp); names (call sites, VPs, groups, user
// events) go to the definitions batch once, under a lock.
#include <sched.h>

#include <algorithm>
#include <cstdio>

#include "recorder/impl.h"

namespace moirai::instrument {

using namespace detail;

void TraceRecorder::use_time_source(const TimeSource& time) { impl_->time = &time; }

void TraceRecorder::core_start(CoreId core) {
  CoreRecorder& state = impl_->cores[core];
  const std::string failed = impl_->counter_set.start(state.counter_thread);
  if (!failed.empty()) {
    // Its units carry zeros then: say so where the user looks, and in the trace.
    std::fprintf(stderr, "moirai: warning: counters could not start on core %u: %s\n", core, failed.c_str());
  }
  state.open_since = impl_->now(core);
  if (impl_->os_on) {
    state.os.start(Clock::info().hz, state.open_since);
    state.cpu = sched_getcpu();
    state.thread_cpu_start = OsTimeProbe::thread_cpu_ns();
    state.wall_start = state.open_since;
  }
}

void TraceRecorder::core_stop(CoreId core) {
  Impl& rec = *impl_;
  CoreRecorder& state = rec.cores[core];
  if (rec.os_on) {
    state.thread_cpu_stop = OsTimeProbe::thread_cpu_ns();
    state.wall_stop = rec.now(core);
    state.moved = sched_getcpu() != state.cpu;
  }
  rec.counter_set.stop(state.counter_thread);
  if (rec.time != nullptr) state.stopped_at = rec.now(core);
  if (state.buffer->used > 0) rec.hand_off(core);
}

void TraceRecorder::vp_created(CoreId /*core*/, VpId vp, const std::string& name,
                               const CallSite& created_at, CoreId home_core) {
  Impl& rec = *impl_;
  std::lock_guard<std::mutex> hold(rec.definitions_mutex);
  rec.define(fmt::DefinitionType::vp, home_core, vp, rec.call_site_id(created_at), name);
}

void TraceRecorder::assigner_enter(CoreId core) {
  CoreRecorder& state = impl_->cores[core];
  if (state.open_since == 0) state.open_since = impl_->now(core);
}

void TraceRecorder::assigner_exit(CoreId /*core*/, UnitId /*chosen*/) {}

// book_estimate moves the runtime work estimated at the start of the unit being built out of its
// work: its begin moves on by the estimate, at most to its end, and an `estimated` chore covers
// what it gave, inside its decision span. What the OS took stays within the shorter work span.
void TraceRecorder::Impl::book_estimate(CoreId core, CoreRecorder& state, fmt::UnitRecord& record) {
  const std::uint64_t estimate = state.estimated;
  state.estimated = 0;
  const std::uint64_t work = record.end - record.begin;
  const std::uint64_t booked = std::min(estimate, work);
  if (estimate > work) {  // the unit gave all its work
    state.estimated_clamped.store(state.estimated_clamped.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }
  if (booked == 0) return;
  const fmt::ChoreRecord chore{static_cast<std::uint16_t>(fmt::RecordKind::chore), static_cast<std::uint16_t>(Chore::estimated),
                               1, record.begin, record.begin + booked};
  append(core, &chore, sizeof chore);
  record.begin += booked;
  if (state.taken_pending) state.os_taken.taken = std::min(state.os_taken.taken, record.end - record.begin);
  state.estimated_units.store(state.estimated_units.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  state.estimated_ticks.store(state.estimated_ticks.load(std::memory_order_relaxed) + booked, std::memory_order_relaxed);
}

void TraceRecorder::unit_begin(CoreId core, VpId vp, UnitId unit) {
  Impl& rec = *impl_;
  CoreRecorder& state = rec.cores[core];
  // Pausing takes effect at unit boundaries only, so every recorded unit is whole.
  const bool paused = rec.paused.load(std::memory_order_relaxed);
  if (paused != (state.paused_since != 0)) {
    const std::uint64_t boundary = state.open_since != 0 ? state.open_since : impl_->now(core);
    if (paused) {
      state.paused_since = boundary;
    } else {
      fmt::SpanRecord gap{static_cast<std::uint16_t>(fmt::RecordKind::paused), 0, 0,
                          state.paused_since, boundary};
      rec.append(core, &gap, sizeof gap);
      state.paused_since = 0;
      state.open_since = boundary;
    }
  }
  state.skipping = paused;
  state.declared = 0;
  state.estimated = 0;
  if (paused) return;
  fmt::UnitRecord& record = unit_of(state);
  record.kind = static_cast<std::uint16_t>(fmt::RecordKind::unit);
  record.unit = unit;
  record.vp = vp;
  record.begin = impl_->now(core);
  record.assign = state.open_since != 0 ? state.open_since : record.begin;
  state.open_since = 0;
  if (rec.os_on) state.os.begin(record.begin);
  rec.counter_set.read(state.counter_thread, state.counters_begin);
}

void TraceRecorder::unit_end(CoreId core, VpId /*vp*/, UnitId /*unit*/, ConstructKind ended_by,
                             const CallSite& site) {
  Impl& rec = *impl_;
  CoreRecorder& state = rec.cores[core];
  if (state.skipping) return;
  rec.counter_set.read(state.counter_thread, state.counters_end);
  fmt::UnitRecord& record = unit_of(state);
  record.end = impl_->now(core);
  if (rec.os_on) {
    state.taken_pending = state.os.end(record.end, state.os_taken);
    // Only a unit whose probe made system calls reads the clock again (most units do not).
    if (state.os.made_system_calls()) {
      record.end = state.os.settle(record.end, impl_->now(core), state.os_taken, state.taken_pending);
    }
  }
  if (state.estimated != 0) rec.book_estimate(core, state, record);
  record.locked = record.end;
  record.ended_by = static_cast<std::uint16_t>(ended_by);
  record.site = rec.site_id(state, site);
  auto* deltas = reinterpret_cast<std::uint64_t*>(state.unit + sizeof(fmt::UnitRecord));
  for (std::size_t i = 0; i < rec.counter_set.present(); ++i) {
    deltas[i] = static_cast<std::uint64_t>(state.counters_end[i] - state.counters_begin[i]);
  }
}

void TraceRecorder::lock_wait_begin(CoreId core) {
  impl_->cores[core].lock_wait_since = impl_->now(core);
}

void TraceRecorder::lock_domain_named(CoreId core, LockDomain domain, const std::string& name) {
  Impl& rec = *impl_;
  std::uint16_t id = 0;
  {
    std::lock_guard<std::mutex> hold(rec.definitions_mutex);
    auto [known, added] = rec.lock_domains.try_emplace(domain, 0);
    if (added && rec.lock_domains.size() <= 0xFFFF) {
      const auto next = static_cast<std::uint16_t>(rec.lock_domains.size());
      try {
        rec.define(fmt::DefinitionType::lock_domain, next, domain, 0, name);
      } catch (...) {
        // Out of memory: undefined, the domain gets no id, lest a later wait name it by one the
        // trace never defines.
        rec.lock_domains.erase(known);
        throw;
      }
      known->second = next;
    }
    id = known->second;
  }
  rec.cores[core].domain_ids[domain] = id;
}

void TraceRecorder::lock_wait_end(CoreId core, CoreId released_by, LockDomain domain) {
  Impl& rec = *impl_;
  CoreRecorder& state = rec.cores[core];
  if (state.skipping || state.paused_since != 0) return;
  std::uint16_t domain_id = 0;
  if (domain != kWholeLanguage) {
    auto known = state.domain_ids.find(domain);
    if (known != state.domain_ids.end()) domain_id = known->second;
  }
  const std::uint64_t now = impl_->now(core);
  fmt::UnitRecord& record = unit_of(state);
  // Only a wait between a unit's end and its handler belongs to the unit; a wait before the
  // assigner belongs to the decision to animate, which needs no mark.
  if (state.open_since == 0 && record.end != 0 && record.handler == 0) record.locked = now;
  fmt::LockHandoffRecord handoff{static_cast<std::uint16_t>(fmt::RecordKind::lock_handoff), domain_id,
                                 released_by, state.lock_wait_since, now};
  rec.append(core, &handoff, sizeof handoff);
}

void TraceRecorder::handler_enter(CoreId core, ConstructKind /*kind*/, UnitId /*unit*/) {
  CoreRecorder& state = impl_->cores[core];
  if (!state.skipping) unit_of(state).handler = impl_->now(core);
}

void TraceRecorder::handler_exit(CoreId core, ConstructKind /*kind*/, UnitId /*unit*/) {
  Impl& rec = *impl_;
  CoreRecorder& state = rec.cores[core];
  if (state.skipping) {  // the boundary still moves, so the paused span ends at the right place
    state.skipping = false;
    state.open_since = impl_->now(core);
    return;
  }
  fmt::UnitRecord& record = unit_of(state);
  record.handler_end = impl_->now(core);
  rec.append(core, state.unit, rec.unit_size);
  if (state.taken_pending) {
    state.taken_pending = false;
    fmt::OsTakenRecord taken{static_cast<std::uint16_t>(fmt::RecordKind::os_taken), 0,
                             state.os_taken.switches, record.unit, state.os_taken.taken,
                             state.os_taken.migrations, 0};
    rec.append(core, &taken, sizeof taken);
  }
  if (state.declared != 0) {
    fmt::DeclaredWorkRecord declared{static_cast<std::uint16_t>(fmt::RecordKind::declared_work), 0, 0,
                                     record.unit, state.declared};
    rec.append(core, &declared, sizeof declared);
    state.declared = 0;
  }
  state.open_since = record.handler_end;  // the next decision starts where this handler ended
  record.end = 0;
  record.handler = 0;
}

void TraceRecorder::idle_begin(CoreId core) {
  CoreRecorder& state = impl_->cores[core];
  if (state.paused_since != 0) return;  // part of the paused span
  state.idle_since = state.open_since != 0 ? state.open_since : impl_->now(core);
  state.open_since = 0;
}

void TraceRecorder::idle_end(CoreId core) {
  Impl& rec = *impl_;
  CoreRecorder& state = rec.cores[core];
  const std::uint64_t now = impl_->now(core);
  state.open_since = now;
  if (state.paused_since != 0) return;  // part of the paused span
  fmt::SpanRecord idle{static_cast<std::uint16_t>(fmt::RecordKind::idle), 0, 0, state.idle_since,
                       now};
  rec.append(core, &idle, sizeof idle);
}

void TraceRecorder::dispatch_end(CoreId core) {
  CoreRecorder& state = impl_->cores[core];
  if (state.paused_since != 0) {
    state.open_since = impl_->now(core);  // part of the paused span
    return;
  }
  state.open_since = state.idle_since;  // the next unit's decision began where the idle would have
}

void TraceRecorder::runtime_work_estimated(CoreId core, std::uint64_t ticks) {
  std::uint64_t& estimated = impl_->cores[core].estimated;
  estimated = ticks > UINT64_MAX - estimated ? UINT64_MAX : estimated + ticks;
}

void TraceRecorder::chore_begin(CoreId core) { impl_->cores[core].chore_since = impl_->now(core); }

void TraceRecorder::chore_end(CoreId core, Chore chore, std::uint32_t cores) {
  Impl& rec = *impl_;
  CoreRecorder& state = rec.cores[core];
  if (state.paused_since != 0) return;  // part of the paused span
  const std::uint64_t now = rec.now(core);
  if (now == state.chore_since) return;  // took no time (a simulated machine's): nothing to take out
  fmt::ChoreRecord record{static_cast<std::uint16_t>(fmt::RecordKind::chore), static_cast<std::uint16_t>(chore),
                          cores, state.chore_since, now};
  rec.append(core, &record, sizeof record);
}

void TraceRecorder::constraint(CoreId core, ConstructKind kind, UnitId from, UnitId to,
                               std::uint64_t match) {
  CoreRecorder& state = impl_->cores[core];
  if (state.skipping) return;
  // Handlers record constraints: the handler's entry reading dates them without another read.
  const std::uint64_t handler = unit_of(state).handler;
  fmt::ConstraintRecord record{static_cast<std::uint16_t>(fmt::RecordKind::constraint),
                               static_cast<std::uint16_t>(kind), 0, from, to, match,
                               handler != 0 ? handler : impl_->now(core)};
  impl_->append(core, &record, sizeof record);
}

void TraceRecorder::group_defined(CoreId /*core*/, std::uint64_t group, ConstructKind kind,
                                  const std::string& name) {
  std::lock_guard<std::mutex> hold(impl_->definitions_mutex);
  impl_->define(fmt::DefinitionType::group, kind, group, 0, name);
}

void TraceRecorder::group_member(CoreId core, std::uint64_t group, std::uint16_t role,
                                 UnitId unit) {
  if (impl_->cores[core].skipping) return;
  fmt::GroupRecord record{static_cast<std::uint16_t>(fmt::RecordKind::group), role, 0, group,
                          unit};
  impl_->append(core, &record, sizeof record);
}

void TraceRecorder::work_declared(CoreId core, std::uint64_t ticks) {
  std::uint64_t& declared = impl_->cores[core].declared;
  declared = ticks > UINT64_MAX - declared ? UINT64_MAX : declared + ticks;
}

void TraceRecorder::user_event(CoreId core, UnitId unit, const char* name, bool begin) {
  Impl& rec = *impl_;
  CoreRecorder& state = rec.cores[core];
  if (state.skipping || state.paused_since != 0) return;
  auto cached = state.event_names.find(name);
  std::uint32_t id = 0;
  if (cached != state.event_names.end()) {
    id = cached->second;
  } else {
    std::lock_guard<std::mutex> hold(rec.definitions_mutex);
    auto [entry, added] = rec.event_name_ids.try_emplace(
        name, static_cast<std::uint32_t>(rec.event_name_ids.size() + 1));
    if (added) rec.define(fmt::DefinitionType::user_event, entry->second, 0, 0, name);
    id = entry->second;
    state.event_names.emplace(name, id);
  }
  fmt::UserEventRecord record{static_cast<std::uint16_t>(fmt::RecordKind::user_event),
                              static_cast<std::uint16_t>(begin ? 1 : 2), id, unit, impl_->now(core)};
  rec.append(core, &record, sizeof record);
}

std::uint32_t TraceRecorder::Impl::site_id(CoreRecorder& core, const CallSite& site) {
  auto& slot = core.recent_sites[(reinterpret_cast<std::uintptr_t>(site.file) ^ site.line * 0x9E37u) & 63];
  if (slot.file == site.file && slot.line == site.line) return slot.id;
  const SiteKey key{site.file, site.line};
  auto cached = core.sites.find(key);
  if (cached != core.sites.end()) {
    slot = {site.file, site.line, cached->second};
    return cached->second;
  }
  std::lock_guard<std::mutex> hold(definitions_mutex);
  const std::uint32_t id = call_site_id(site);
  core.sites.emplace(key, id);
  slot = {site.file, site.line, id};
  return id;
}

void TraceRecorder::Impl::estimated_closing_line(std::vector<std::pair<std::string, std::string>>& lines) const {
  std::uint64_t units = 0, ticks = 0, clamped = 0;
  for (const CoreRecorder& core : cores) {
    units += core.estimated_units.load(std::memory_order_relaxed);
    ticks += core.estimated_ticks.load(std::memory_order_relaxed);
    clamped += core.estimated_clamped.load(std::memory_order_relaxed);
  }
  if (units == 0 && clamped == 0) return;
  lines.emplace_back("estimated_runtime_work", "units=" + std::to_string(units) + ",ticks=" + std::to_string(ticks) +
                                                   ",clamped=" + std::to_string(clamped));
}

}  // namespace moirai::instrument

#include "moirai/instrument/profile.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "moirai/instrument/clock.h"

namespace moirai::instrument {

namespace {

// CoreProfile is one core's totals; only that core's thread writes it.
struct alignas(64) CoreProfile {
  std::uint64_t units = 0, work = 0, communication = 0, lock_wait = 0, handlers = 0, assigner = 0,
                idle = 0;
  // chores: the runtime's work after its lock (waking cores, VP shells), outside the assigner's
  // bracket; one inside an idle stretch is taken out of the idle.
  std::uint64_t chores = 0;
  std::uint64_t mark = 0;      // start of the current segment
  std::uint64_t lock_mark = 0;
  std::uint64_t chore_mark = 0;
  bool in_idle = false;
  std::uint64_t idle_chores = 0;  // chores inside the current idle stretch
  std::vector<std::uint64_t> construct_count, construct_ticks;
};

}  // namespace

struct Profile::Impl {
  std::string language;
  std::vector<std::string> names;
  std::vector<CoreProfile> cores;
  double hz = 1;
  const TimeSource* time = nullptr;  // a simulated machine's clock, else the host's
  std::uint64_t now(CoreId core) const noexcept { return Clock::now(time, core); }
};

Profile::Profile() : impl_(std::make_unique<Impl>()) { impl_->hz = Clock::info().hz; }
Profile::~Profile() = default;

void Profile::use_time_source(const TimeSource& time) {
  impl_->time = &time;
  impl_->hz = time.hz();
}

void Profile::run_start(const std::string& language, const std::vector<ConstructInfo>& constructs,
                        std::size_t core_count) {
  impl_->language = language;
  impl_->names.clear();
  for (const ConstructInfo& construct : constructs) impl_->names.push_back(construct.name);
  const std::vector<std::string>& names = impl_->names;
  impl_->cores = std::vector<CoreProfile>(core_count);
  for (CoreProfile& core : impl_->cores) {
    core.construct_count.assign(names.size(), 0);
    core.construct_ticks.assign(names.size(), 0);
  }
}

void Profile::core_start(CoreId) {}
void Profile::core_stop(CoreId) {}

void Profile::unit_begin(CoreId core, VpId, UnitId) {
  CoreProfile& p = impl_->cores[core];
  p.mark = impl_->now(core);
  ++p.units;
}

void Profile::unit_end(CoreId core, VpId, UnitId, ConstructKind, const CallSite&) {
  CoreProfile& p = impl_->cores[core];
  const std::uint64_t now = impl_->now(core);
  p.work += now - p.mark;
  p.mark = now;
}

void Profile::handler_enter(CoreId core, ConstructKind, UnitId) {
  CoreProfile& p = impl_->cores[core];
  const std::uint64_t now = impl_->now(core);
  p.communication += now - p.mark;
  p.mark = now;
}

void Profile::handler_exit(CoreId core, ConstructKind kind, UnitId) {
  CoreProfile& p = impl_->cores[core];
  const std::uint64_t now = impl_->now(core);
  p.handlers += now - p.mark;
  if (kind < p.construct_count.size()) {
    ++p.construct_count[kind];
    p.construct_ticks[kind] += now - p.mark;
  }
  p.mark = now;
}

void Profile::assigner_enter(CoreId core) { impl_->cores[core].mark = impl_->now(core); }

void Profile::assigner_exit(CoreId core, UnitId) {
  CoreProfile& p = impl_->cores[core];
  const std::uint64_t now = impl_->now(core);
  p.assigner += now - p.mark;
  p.mark = now;
}

void Profile::lock_wait_begin(CoreId core) { impl_->cores[core].lock_mark = impl_->now(core); }
void Profile::lock_wait_end(CoreId core, CoreId) {
  CoreProfile& p = impl_->cores[core];
  p.lock_wait += impl_->now(core) - p.lock_mark;  // part of communication or decision, shown apart
}

void Profile::idle_begin(CoreId core) {
  CoreProfile& p = impl_->cores[core];
  p.mark = impl_->now(core);
  p.in_idle = true;
  p.idle_chores = 0;
}

void Profile::idle_end(CoreId core) {
  CoreProfile& p = impl_->cores[core];
  const std::uint64_t now = impl_->now(core);
  p.idle += now - p.mark - std::min(p.idle_chores, now - p.mark);
  p.in_idle = false;
  p.mark = now;
}

void Profile::chore_begin(CoreId core) { impl_->cores[core].chore_mark = impl_->now(core); }

void Profile::chore_end(CoreId core, Chore, std::uint32_t) {
  CoreProfile& p = impl_->cores[core];
  const std::uint64_t ticks = impl_->now(core) - p.chore_mark;
  p.chores += ticks;
  if (p.in_idle) p.idle_chores += ticks;
}

void Profile::print(std::ostream& out) const {
  const Impl& rt = *impl_;
  const auto ms = [&](std::uint64_t ticks) { return static_cast<double>(ticks) * 1e3 / rt.hz; };
  char line[256];
  out << "profile (" << rt.language << ", " << rt.cores.size() << " cores; times in ms)\n";
  std::snprintf(line, sizeof line, "%5s %10s %10s %10s %10s %10s %10s %10s %10s %7s\n", "core", "units",
                "work", "comm", "(lock)", "handlers", "assigner", "chores", "idle", "work%");
  out << line;
  for (std::size_t k = 0; k < rt.cores.size(); ++k) {
    const CoreProfile& p = rt.cores[k];
    const double total = ms(p.work + p.communication + p.handlers + p.assigner + p.chores + p.idle);
    std::snprintf(line, sizeof line, "%5zu %10llu %10.3f %10.3f %10.3f %10.3f %10.3f %10.3f %10.3f %6.1f%%\n",
                  k, static_cast<unsigned long long>(p.units), ms(p.work), ms(p.communication),
                  ms(p.lock_wait), ms(p.handlers), ms(p.assigner), ms(p.chores), ms(p.idle),
                  total > 0 ? 100.0 * ms(p.work) / total : 0.0);
    out << line;
  }
  std::snprintf(line, sizeof line, "%-20s %12s %14s\n", "construct", "requests", "handler ns/req");
  out << line;
  for (std::size_t kind = 0; kind < rt.names.size(); ++kind) {
    std::uint64_t count = 0, ticks = 0;
    for (const CoreProfile& p : rt.cores) {
      count += p.construct_count[kind];
      ticks += p.construct_ticks[kind];
    }
    if (count == 0) continue;
    std::snprintf(line, sizeof line, "%-20s %12llu %14.1f\n", rt.names[kind].c_str(),
                  static_cast<unsigned long long>(count), ms(ticks) * 1e6 / static_cast<double>(count));
    out << line;
  }
}

}  // namespace moirai::instrument

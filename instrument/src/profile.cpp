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

// Profile::Impl is the observer a Profile hands the run: each point moves time from one column
// of the core's row to the next.
struct Profile::Impl final : RuntimeObserver {
  std::string language;
  std::vector<std::string> names;
  std::vector<CoreProfile> cores;
  double hz = 1;
  const TimeSource* time = nullptr;  // a simulated machine's clock, else the host's
  std::uint64_t now(CoreId core) const noexcept { return Clock::now(time, core); }

  void use_time_source(const TimeSource& source) override {
    time = &source;
    hz = source.hz();
  }

  void run_start(const LanguageInfo& run_language, std::size_t core_count) override {
    language = run_language.name;
    names.clear();
    for (const ConstructInfo& construct : run_language.constructs) names.push_back(construct.name);
    cores = std::vector<CoreProfile>(core_count);
    for (CoreProfile& core : cores) {
      core.construct_count.assign(names.size(), 0);
      core.construct_ticks.assign(names.size(), 0);
    }
  }

  void unit_begin(CoreId core, VpId, UnitId) override {
    CoreProfile& p = cores[core];
    p.mark = now(core);
    ++p.units;
  }

  void unit_end(CoreId core, VpId, UnitId, ConstructKind, const CallSite&) override {
    CoreProfile& p = cores[core];
    const std::uint64_t at = now(core);
    p.work += at - p.mark;
    p.mark = at;
  }

  void handler_enter(CoreId core, ConstructKind, UnitId) override {
    CoreProfile& p = cores[core];
    const std::uint64_t at = now(core);
    p.communication += at - p.mark;
    p.mark = at;
  }

  void handler_exit(CoreId core, ConstructKind kind, UnitId) override {
    CoreProfile& p = cores[core];
    const std::uint64_t at = now(core);
    p.handlers += at - p.mark;
    if (kind < p.construct_count.size()) {
      ++p.construct_count[kind];
      p.construct_ticks[kind] += at - p.mark;
    }
    p.mark = at;
  }

  void assigner_enter(CoreId core) override { cores[core].mark = now(core); }

  void assigner_exit(CoreId core, UnitId) override {
    CoreProfile& p = cores[core];
    const std::uint64_t at = now(core);
    p.assigner += at - p.mark;
    p.mark = at;
  }

  void lock_wait_begin(CoreId core) override { cores[core].lock_mark = now(core); }
  void lock_wait_end(CoreId core, CoreId, LockDomain) override {
    CoreProfile& p = cores[core];
    p.lock_wait += now(core) - p.lock_mark;  // part of communication or decision, shown apart
  }

  void idle_begin(CoreId core) override {
    CoreProfile& p = cores[core];
    p.mark = now(core);
    p.in_idle = true;
    p.idle_chores = 0;
  }

  void idle_end(CoreId core) override {
    CoreProfile& p = cores[core];
    const std::uint64_t at = now(core);
    p.idle += at - p.mark - std::min(p.idle_chores, at - p.mark);
    p.in_idle = false;
    p.mark = at;
  }

  void chore_begin(CoreId core) override { cores[core].chore_mark = now(core); }

  void chore_end(CoreId core, Chore, std::uint32_t) override {
    CoreProfile& p = cores[core];
    const std::uint64_t ticks = now(core) - p.chore_mark;
    p.chores += ticks;
    if (p.in_idle) p.idle_chores += ticks;
  }
};

Profile::Profile() : impl_(std::make_unique<Impl>()) { impl_->hz = Clock::info().hz; }
Profile::~Profile() = default;

RuntimeObserver& Profile::observer() noexcept { return *impl_; }

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

// Helpers for the VSs tests: a guarded vss::run on real or simulated cores, and an observer
// that names the constraints a run recorded by the tasks at their ends.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "moirai/core/runtime_observer.h"
#include "moirai/proto_runtime/sim_machine.h"
#include "moirai/vss/vss.h"
#include "support/test_support.h"

namespace moirai::test {

// run_vss runs `seed` under the watchdog on `cores` real cores, or on sim:kSimulatedCores
// (declared work) when `cores` is kSimulatedCores.
inline proto::RunStats run_vss(std::size_t cores, vss::TaskBody seed, vss::RunOptions options = {},
                               std::chrono::seconds limit = kRunLimit) {
  options.cores = cores;
  if (cores == kSimulatedCores) {
    return within(limit, "vss::run on sim:" + std::to_string(cores), [&] {
      proto::SimMachine machine(proto::SimConfig{.topology = {1, cores}});
      return vss::run(machine, std::move(seed), options);
    });
  }
  return within(limit, "vss::run on " + std::to_string(cores) + " core(s)",
                [&] { return vss::run(std::move(seed), options); });
}

// GraphProbe records the constraints and groups of a run with the names of the tasks (VPs) at
// both ends, so a test can say "dep RAW from 'A' to 'B'", and which cores are idle now, so a
// task can hold its core until the others have nothing left to run (dawdle).
class GraphProbe : public RuntimeObserver {
 public:
  static constexpr std::size_t kMaxCores = 8;
  struct Constraint {
    std::string construct, from, to;
  };
  void run_start(const LanguageInfo& language, std::size_t) override {
    construct_names_.clear();
    for (const ConstructInfo& construct : language.constructs) construct_names_.push_back(construct.name);
  }
  void vp_created(CoreId, VpId vp, const std::string& name, const CallSite&, CoreId) override {
    std::lock_guard<std::mutex> hold(mutex_);
    vp_names_[vp] = name;
  }
  void unit_begin(CoreId, VpId vp, UnitId unit) override {
    std::lock_guard<std::mutex> hold(mutex_);
    unit_vp_[unit] = vp;
  }
  void constraint(CoreId, ConstructKind kind, UnitId from, UnitId to, std::uint64_t) override {
    std::lock_guard<std::mutex> hold(mutex_);
    raw_.push_back({kind, from, to});
  }
  void group_defined(CoreId, std::uint64_t group, ConstructKind, const std::string& name) override {
    std::lock_guard<std::mutex> hold(mutex_);
    groups_[group] = name;
  }
  void group_member(CoreId, std::uint64_t group, std::uint16_t role, UnitId) override {
    std::lock_guard<std::mutex> hold(mutex_);
    ++members_[{group, role}];
  }
  // Only real runs hold cores (dawdle); a simulated machine's cores past kMaxCores are not watched.
  void idle_begin(CoreId core) override {
    if (core < kMaxCores) settled_[core].fetch_add(1);
  }
  void idle_end(CoreId core) override {
    if (core < kMaxCores) settled_[core].fetch_sub(1);
  }

  // hold_core keeps the calling task running on `mine` until every other of `cores` cores is idle
  // (the runtime found nothing ready for it) or held too: a successor that a missing dependence
  // made ready would have started on one of them by then.
  void hold_core(CoreId mine, std::size_t cores) {
    if (cores > kMaxCores) throw std::out_of_range("GraphProbe::hold_core watches at most 8 cores");
    settled(mine).fetch_add(1);
    auto others_settled = [&] {
      for (CoreId core = 0; core < cores; ++core) {
        if (core != mine && settled(core).load() <= 0) return false;
      }
      return true;
    };
    while (!others_settled()) std::this_thread::yield();
    settled(mine).fetch_sub(1);
  }

  // constraints lists every constraint with its construct's name and its tasks' names (after the run).
  std::vector<Constraint> constraints() const {
    std::lock_guard<std::mutex> hold(mutex_);
    std::vector<Constraint> out;
    for (const auto& [kind, from, to] : raw_) {
      out.push_back({construct_names_.at(kind), task_of(from), task_of(to)});
    }
    return out;
  }
  // count counts the constraints of `construct` (and from / to the named tasks, when given).
  std::size_t count(const std::string& construct, const std::string& from = {},
                    const std::string& to = {}) const {
    std::size_t n = 0;
    for (const Constraint& c : constraints()) {
      if (c.construct == construct && (from.empty() || c.from == from) && (to.empty() || c.to == to)) ++n;
    }
    return n;
  }
  // group_names lists the names of the groups defined.
  std::vector<std::string> group_names() const {
    std::lock_guard<std::mutex> hold(mutex_);
    std::vector<std::string> out;
    for (const auto& [id, name] : groups_) out.push_back(name);
    return out;
  }
  // members counts the members of every group in `role`.
  std::size_t members(std::uint16_t role) const {
    std::lock_guard<std::mutex> hold(mutex_);
    std::size_t n = 0;
    for (const auto& [key, count] : members_) {
      if (key.second == role) n += count;
    }
    return n;
  }

 private:
  struct Raw {
    ConstructKind kind;
    UnitId from, to;
  };
  std::string task_of(UnitId unit) const {
    const auto vp = unit_vp_.find(unit);
    if (vp == unit_vp_.end()) return "?";
    const auto name = vp_names_.find(vp->second);
    return name == vp_names_.end() ? "?" : name->second;
  }
  std::atomic<int>& settled(CoreId core) { return settled_.at(core); }
  mutable std::mutex mutex_;
  std::array<std::atomic<int>, kMaxCores> settled_{};  // > 0: the core is idle or held
  std::vector<std::string> construct_names_;
  std::unordered_map<VpId, std::string> vp_names_;
  std::unordered_map<UnitId, VpId> unit_vp_;
  std::vector<Raw> raw_;
  std::map<std::uint64_t, std::string> groups_;
  std::map<std::pair<std::uint64_t, std::uint16_t>, std::size_t> members_;
};

// EventLog keeps the order in which tasks reached points of their bodies.
class EventLog {
 public:
  void add(const std::string& event) {
    std::lock_guard<std::mutex> hold(mutex_);
    events_.push_back(event);
  }
  // before is true when both events happened, `first` before `second`.
  bool before(const std::string& first, const std::string& second) const {
    std::lock_guard<std::mutex> hold(mutex_);
    std::ptrdiff_t a = -1, b = -1;
    for (std::size_t i = 0; i < events_.size(); ++i) {
      if (events_[i] == first && a < 0) a = static_cast<std::ptrdiff_t>(i);
      if (events_[i] == second && b < 0) b = static_cast<std::ptrdiff_t>(i);
    }
    return a >= 0 && b >= 0 && a < b;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> events_;
};

// dawdle keeps a task running on real cores until the other cores have nothing left to run
// (GraphProbe::hold_core), so that a successor a missing dependence made ready would overtake
// it; on the simulated machine it declares work instead, which orders the same way. One core
// cannot overtake: the task runs on.
inline void dawdle(vss::Context& ctx, std::size_t cores, GraphProbe& probe) {
  if (cores == kSimulatedCores) {
    ctx.charge_work(5'000'000);
    return;
  }
  if (cores > 1) probe.hold_core(ctx.core(), cores);
}

}  // namespace moirai::test

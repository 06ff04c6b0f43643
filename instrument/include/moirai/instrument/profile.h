// Profile: the cheap sink: per-core, per-construct counts and times, printed as a table.
#pragma once

#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "moirai/core/runtime_observer.h"

namespace moirai::instrument {

// Profile is the sink that keeps no per-unit records: fixed memory per core and per construct,
// so it can stay on for any run. Hand observer() to the run; print() then writes where each
// core's time went and what each construct cost.
class Profile {
 public:
  Profile();
  ~Profile();
  Profile(const Profile&) = delete;
  Profile& operator=(const Profile&) = delete;

  // observer is what the runtime reports to (RunOptions::observer, or one side of an ObserverTee).
  RuntimeObserver& observer() noexcept;
  // print writes the tables (after the run).
  void print(std::ostream& out) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// ObserverTee hands every instrumentation point to two observers (e.g. a trace and a profile).
class ObserverTee final : public RuntimeObserver {
 public:
  ObserverTee(RuntimeObserver& first, RuntimeObserver& second) : a_(first), b_(second) {}
  void use_time_source(const TimeSource& t) override { a_.use_time_source(t); b_.use_time_source(t); }
  void language_names_domains() override {
    a_.language_names_domains();
    b_.language_names_domains();
  }
  void run_start(const LanguageInfo& l, std::size_t c) override { a_.run_start(l, c); b_.run_start(l, c); }
  void core_start(CoreId c) override { a_.core_start(c); b_.core_start(c); }
  void core_stop(CoreId c) override { a_.core_stop(c); b_.core_stop(c); }
  void vp_created(CoreId c, VpId v, const std::string& n, const CallSite& s, CoreId h) override { a_.vp_created(c, v, n, s, h); b_.vp_created(c, v, n, s, h); }
  void unit_begin(CoreId c, VpId v, UnitId u) override { a_.unit_begin(c, v, u); b_.unit_begin(c, v, u); }
  void unit_end(CoreId c, VpId v, UnitId u, ConstructKind k, const CallSite& s) override { a_.unit_end(c, v, u, k, s); b_.unit_end(c, v, u, k, s); }
  void handler_enter(CoreId c, ConstructKind k, UnitId u) override { a_.handler_enter(c, k, u); b_.handler_enter(c, k, u); }
  void handler_exit(CoreId c, ConstructKind k, UnitId u) override { a_.handler_exit(c, k, u); b_.handler_exit(c, k, u); }
  void assigner_enter(CoreId c) override { a_.assigner_enter(c); b_.assigner_enter(c); }
  void assigner_exit(CoreId c, UnitId u) override { a_.assigner_exit(c, u); b_.assigner_exit(c, u); }
  void lock_wait_begin(CoreId c) override { a_.lock_wait_begin(c); b_.lock_wait_begin(c); }
  void lock_domain_named(CoreId c, LockDomain d, const std::string& name) override {
    a_.lock_domain_named(c, d, name);
    b_.lock_domain_named(c, d, name);
  }
  void lock_wait_end(CoreId c, CoreId r, LockDomain d) override {
    a_.lock_wait_end(c, r, d);
    b_.lock_wait_end(c, r, d);
  }
  void idle_begin(CoreId c) override { a_.idle_begin(c); b_.idle_begin(c); }
  void idle_end(CoreId c) override { a_.idle_end(c); b_.idle_end(c); }
  void chore_begin(CoreId c) override { a_.chore_begin(c); b_.chore_begin(c); }
  void chore_end(CoreId c, Chore k, std::uint32_t n) override { a_.chore_end(c, k, n); b_.chore_end(c, k, n); }
  void constraint(CoreId c, ConstructKind k, UnitId f, UnitId t, std::uint64_t m) override { a_.constraint(c, k, f, t, m); b_.constraint(c, k, f, t, m); }
  void group_defined(CoreId c, std::uint64_t g, ConstructKind k, const std::string& n) override { a_.group_defined(c, g, k, n); b_.group_defined(c, g, k, n); }
  void group_member(CoreId c, std::uint64_t g, std::uint16_t r, UnitId u) override { a_.group_member(c, g, r, u); b_.group_member(c, g, r, u); }
  void user_event(CoreId c, UnitId u, const char* n, bool b) override { a_.user_event(c, u, n, b); b_.user_event(c, u, n, b); }
  void work_declared(CoreId c, std::uint64_t t) override { a_.work_declared(c, t); b_.work_declared(c, t); }

 private:
  RuntimeObserver& a_;
  RuntimeObserver& b_;
};

}  // namespace moirai::instrument

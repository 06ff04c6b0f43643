// The replay as a language on the proto-runtime: recorded VPs, each animating its recorded units.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "moirai/proto_runtime/assigner.h"
#include "moirai/proto_runtime/language_plugin.h"
#include "moirai/proto_runtime/language_table.h"
#include "moirai/proto_runtime/virtual_processor.h"
#include "moirai/replay/replay.h"
#include "ready_queues.h"
#include "recorded_run.h"

namespace moirai::replay::detail {

// language_table is the recording's language as the replay speaks it: the trace's constructs (names,
// roles, colours), so the replayed trace reads like the recorded one, and each construct's measured
// handler cost, in ticks of a `clock_hz` clock, as the language's default.
proto::LanguageTable language_table(const trace::Trace& trace, const RecordedRun& run, double clock_hz);

// ReplayLanguage animates a RecordedRun: each VP's body charges its units' recorded work and ends
// each with the recorded construct; the handler frees a unit once its VP's previous unit was
// handled and every unit that freed it in the recording has ended. It is its own assigner.
class ReplayLanguage final : public proto::LanguagePlugin, private proto::Assigner {
 public:
  // ReplayLanguage replays `run` (which must outlive it) on `cores` cores; a second of recorded
  // work becomes `ticks_per_second` ticks of declared work, divided by 1 + `stretch` x the cores
  // that worked beside it in the recording.
  ReplayLanguage(const RecordedRun& run, const proto::LanguageTable& table, Placement placement, std::size_t cores,
                 double ticks_per_second, double stretch);

  // body_of is the function VP `vp` of the run animates.
  proto::VpFunction body_of(std::uint32_t vp);

  void vp_created(proto::VirtualProcessor& vp, CoreId core) override;
  void handle(proto::Request& request, proto::RuntimeServices& services) override;
  // A recording of a language that named lock domains replays with each handler holding the
  // domains it waited for in the recording (a replay runs on a simulated machine, one host thread,
  // so the assigner needs no lock of its own).
  bool names_domains() const noexcept override { return run_.names_domains; }
  proto::LockDomains domains(const proto::Request& request) const override;
  std::string describe_domain(LockDomain domain) const override;
  std::string describe_wait(const proto::Request& request) const override;
  proto::Assigner& assigner() override { return *this; }

 private:
  struct VpState {
    proto::VirtualProcessor* vp = nullptr;
    std::uint32_t index = 0;     // into RecordedRun::vps
    std::uint32_t position = 0;  // its unit running or next to run, in RecordedVp::units
    bool created = false;
    bool waiting = false;        // suspended until constraints free its next unit
  };
  struct Deferred {  // a constraint satisfied before the unit it freed had an id
    ConstructKind construct;
    UnitId from;
    std::uint64_t match;
  };

  CoreId on_ready(proto::VirtualProcessor& vp) override;
  proto::VirtualProcessor* next_for(CoreId core) override;

  void animate(proto::VirtualProcessor& self, std::uint32_t vp);
  void satisfy(const RecordedConstraint& constraint, UnitId from, const CallSite& site, proto::RuntimeServices& services);
  void release(std::uint32_t unit, const CallSite& site, proto::RuntimeServices& services);
  void create(VpState& state, const CallSite& site, proto::RuntimeServices& services);
  // reach: the VP of `state` has come to `unit`: it runs now, or once the constraints on it are met.
  void reach(VpState& state, std::uint32_t unit, proto::RuntimeServices& services);
  void identify(std::uint32_t unit, UnitId id, proto::RuntimeServices& services);
  CoreId on_target(CoreId core) const { return static_cast<CoreId>(core % cores_); }

  const RecordedRun& run_;
  Placement placement_;
  std::size_t cores_;
  double ticks_per_second_;
  double stretch_;
  std::vector<VpState> states_;
  std::vector<std::uint32_t> waiting_for_;  // by unit: constraints not yet satisfied
  std::vector<UnitId> id_;                  // by unit: its id in the replayed run (0: not yet known)
  std::unordered_map<std::uint32_t, std::vector<Deferred>> deferred_;
  std::unordered_map<std::uint64_t, std::uint64_t> matches_;  // recorded match -> replayed match
  VpState* creating_ = nullptr;  // the state of the VP create_vp is making
  bool started_ = false;
  bool starting_ = false;        // the seed's start request (several VPs exist from the start) is in the handler
  std::size_t next_core_ = 0;    // round-robin for new VPs under last_core
  ReadyQueues queues_;
};

}  // namespace moirai::replay::detail

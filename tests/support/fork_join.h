// A second, tiny language on the proto-runtime, written for the tests: "fork/join". It proves
// that the proto-runtime knows nothing of SSR: it has its own constructs, its own per-VP state
// and its own assigner (one global FIFO queue; every VP may run on any core).
#pragma once

#include <atomic>
#include <cstddef>
#include <deque>
#include <set>
#include <source_location>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "moirai/proto_runtime/assigner.h"
#include "moirai/proto_runtime/language_plugin.h"
#include "moirai/proto_runtime/language_table.h"
#include "moirai/proto_runtime/request.h"
#include "moirai/proto_runtime/run.h"
#include "moirai/proto_runtime/runtime_services.h"
#include "moirai/proto_runtime/virtual_processor.h"

namespace moirai::test::fj {

enum Construct : ConstructKind {
  kFork = 1,  // start a child VP running a function
  kJoin,      // wait until every child this VP forked has ended
  kPark,      // wait for nothing that will ever happen (for deadlock tests)
  kRefuse,    // a construct the language always refuses (RuntimeServices::fail)
  kBroken,    // a construct whose handler throws (a plugin bug)
};

struct ForkCall {
  proto::VpFunction body;
  std::string name;
  VpId child = 0;  // filled in by the handler
};

// The constructs, as application code calls them from inside a VP.
inline VpId fork(proto::VirtualProcessor& self, proto::VpFunction body, std::string name = {},
                 std::source_location where = std::source_location::current()) {
  ForkCall call{std::move(body), std::move(name)};
  proto::Request request;
  request.kind = kFork;
  request.payload = &call;
  request.site = CallSite::from(where);
  (void)self.call_runtime(request);  // false only while a stopped run unwinds this VP
  return call.child;
}

inline void simple(proto::VirtualProcessor& self, Construct kind,
                   std::source_location where = std::source_location::current()) {
  proto::Request request;
  request.kind = kind;
  request.site = CallSite::from(where);
  (void)self.call_runtime(request);  // false only while a stopped run unwinds this VP
}

inline void join(proto::VirtualProcessor& self,
                 std::source_location where = std::source_location::current()) {
  simple(self, kJoin, where);
}
inline void park(proto::VirtualProcessor& self,
                 std::source_location where = std::source_location::current()) {
  simple(self, kPark, where);
}

// language_table is fork/join as data: its constructs by kind, what each does to scheduling, the
// colour of its lines, its default costs on a simulated machine (a fork's handler is dearer), and
// its choices: the placement closest to its assigner and the report's words it says its own way.
inline const proto::LanguageTable& language_table() {
  static const proto::LanguageTable fork_join(
      "fork/join",
      {
          {proto::kEndVp, {"end", ConstructRole::end, ""}},
          {kFork, {"fork", ConstructRole::create, "red"}},
          {kJoin, {"join", ConstructRole::wait, "blue"}},
          {kPark, {"park", ConstructRole::other, ""}},
          {kRefuse, {"refuse", ConstructRole::other, ""}},
          {kBroken, {"broken", ConstructRole::other, ""}},
      },
      [] {
        proto::CostModel costs = proto::CostModel::default_model();
        costs.handlers = {{"fork", 900}};
        return costs;
      }(),
      {.placement = LanguagePlacement::any_core,
       .words = {{"creator_cure", "fork from several VPs, each forking its share"},
                 {"wait_late_cure", "the last child to end before the join at {} ran late; fork it sooner"}}});
  return fork_join;
}

// ForkJoin is the language plugin and its assigner.
class ForkJoin final : public proto::LanguagePlugin, private proto::Assigner {
 public:
  ForkJoin() : proto::LanguagePlugin(language_table()) {}
  // ForkJoin(cores) is how proto::run makes it: one global queue serves any core count.
  explicit ForkJoin(std::size_t /*cores*/) : ForkJoin() {}

  // seed makes the first VP's function from the program's: fork/join runs VpFunctions as they are.
  proto::VpFunction seed(proto::VpFunction body, const proto::RunOptions& /*options*/,
                         const CallSite& /*where*/) const {
    return body;
  }

  void handle(proto::Request& request, proto::RuntimeServices& services) override {
    // It names no lock domains, so its handlers run one at a time: a second in flight is a bug.
    if (in_handler_.exchange(true)) ++overlaps_;
    struct Leave { std::atomic<bool>& flag; ~Leave() { flag.store(false); } } leave{in_handler_};
    proto::VirtualProcessor& vp = *request.requester;
    State& me = states_[vp.id()];
    me.vp = &vp;
    ++handled_;
    switch (request.kind) {
      case kFork: {
        auto& call = *static_cast<ForkCall*>(request.payload);
        proto::VirtualProcessor& child = services.create_vp(
            std::move(call.body), proto::VpOptions{call.name, kAnyCore, 0}, request.site);
        State& child_state = states_[child.id()];
        child_state.vp = &child;
        child_state.parent = vp.id();
        ++me.live_children;
        call.child = child.id();
        services.record_constraint(kFork, request.unit, child.unit());  // the fork freed the child
        services.make_ready(child);
        services.make_ready(vp);
        return;
      }
      case kJoin:
        if (me.live_children == 0) {
          services.make_ready(vp);
        } else {
          me.joining = true;
        }
        return;
      case kPark:
        return;  // never made ready again
      case kRefuse:
        services.fail(request, "fork/join refuses this construct");
        services.make_ready(vp);
        return;
      case kBroken:
        throw std::logic_error("the fork/join handler is broken");
      case proto::kEndVp: {
        if (auto parent = states_.find(me.parent); parent != states_.end()) {
          State& p = parent->second;
          if (--p.live_children == 0 && p.joining) {
            p.joining = false;
            services.record_constraint(kJoin, request.unit, p.vp->unit());  // the last end freed it
            services.make_ready(*p.vp);
          }
        }
        for (auto& [id, state] : states_) {
          if (state.parent == vp.id()) state.parent = 0;  // orphans
        }
        states_.erase(vp.id());
        return;
      }
      default:
        services.fail(request, "unknown fork/join construct");
        services.make_ready(vp);
        return;
    }
  }

  std::string describe_wait(const proto::Request& request) const override {
    switch (request.kind) {
      case kJoin: {
        auto found = states_.find(request.requester->id());
        const std::size_t children = found == states_.end() ? 0 : found->second.live_children;
        return std::to_string(children) + " children to end";
      }
      case kPark: return "nothing (parked for good)";
      default: return {};
    }
  }

  proto::Assigner& assigner() override { return *this; }

  // What the assigner saw (read after the run).
  std::size_t on_ready_calls() const { return on_ready_calls_; }
  std::size_t chosen() const { return chosen_; }
  std::size_t handled() const { return handled_; }
  std::size_t overlaps() const { return overlaps_.load(); }

 private:
  struct State {
    proto::VirtualProcessor* vp = nullptr;
    VpId parent = 0;
    std::size_t live_children = 0;
    bool joining = false;
  };

  CoreId on_ready(proto::VirtualProcessor& vp) override {
    ++on_ready_calls_;
    queue_.push_back(&vp);
    return kAnyCore;  // one global queue: any core may take it
  }
  proto::VirtualProcessor* next_for(CoreId) override {
    if (queue_.empty()) return nullptr;
    proto::VirtualProcessor* vp = queue_.front();
    queue_.pop_front();
    ++chosen_;
    return vp;
  }

  std::deque<proto::VirtualProcessor*> queue_;
  std::unordered_map<VpId, State> states_;  // owned here: no per-VP allocation left behind
  std::size_t on_ready_calls_ = 0;
  std::size_t chosen_ = 0;
  std::size_t handled_ = 0;
  std::atomic<bool> in_handler_{false};
  std::atomic<std::size_t> overlaps_{0};
};

}  // namespace moirai::test::fj

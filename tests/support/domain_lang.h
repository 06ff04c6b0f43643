// A third test-only language, "touch": it names a lock domain per request, so the tests can watch
// the runtime run handlers of different domains at once and never two of one domain.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <source_location>
#include <string>
#include <thread>

#include "moirai/proto_runtime/language_plugin.h"
#include "moirai/proto_runtime/spin_lock.h"

namespace moirai::test::touch {

enum Construct : ConstructKind {
  kSpawn = 1,  // start a VP pinned to a core
  kTouch,      // touch one or two domains' cells
};

struct SpawnCall {
  proto::VpFunction body;
  CoreId core = 0;
};

// TouchCall names up to two cells (keys 0 .. kCells-1); `meet`: the handler waits, holding its
// domain, until a handler of another domain is in flight too, or the runtime says that a core
// waits for a lock (then no other handler can come while this one holds on).
struct TouchCall {
  std::array<LockDomain, 2> keys{};
  std::size_t count = 1;
  bool meet = false;
};

inline void call(proto::VirtualProcessor& self, ConstructKind kind, void* payload,
                 std::source_location where = std::source_location::current()) {
  proto::Request request;
  request.kind = kind;
  request.payload = payload;
  request.site = CallSite::from(where);
  (void)self.call_runtime(request);
}
inline void spawn(proto::VirtualProcessor& self, CoreId core, proto::VpFunction body) {
  SpawnCall spawn_call{std::move(body), core};
  call(self, kSpawn, &spawn_call);
}
inline void touch(proto::VirtualProcessor& self, LockDomain key, bool meet = false) {
  TouchCall touch_call{{key, 0}, 1, meet};
  call(self, kTouch, &touch_call);
}
inline void touch_two(proto::VirtualProcessor& self, LockDomain a, LockDomain b) {
  TouchCall touch_call{{a, b}, 2, false};
  call(self, kTouch, &touch_call);
}

inline const proto::LanguageTable& language_table() {
  static const proto::LanguageTable table(
      "touch", {
                   {proto::kEndVp, {"end", ConstructRole::end, ""}},
                   {kSpawn, {"spawn", ConstructRole::create, "red"}},
                   {kTouch, {"touch", ConstructRole::other, ""}},
               });
  return table;
}

// Touch is the plugin; its assigner keeps a queue per core (a VP runs on the core it is pinned
// to), each under a SpinLock of its own.
class Touch final : public proto::LanguagePlugin, private proto::Assigner {
 public:
  static constexpr std::size_t kCells = 8;

  explicit Touch(std::size_t cores) : proto::LanguagePlugin(language_table()), queues_(cores) {}

  // with_domains(false) makes the language name none: every request in the one whole-language
  // domain, as a language written before lock domains.
  void with_domains(bool on) { domains_on_ = on; }
  // give_up_when: a meeting handler stops waiting once `flag` is set (the test's observer sets it
  // at the runtime's lock_wait_begin).
  void give_up_when(const std::atomic<bool>* flag) { give_up_when_ = flag; }

  bool names_domains() const noexcept override { return domains_on_; }
  proto::LockDomains domains(const proto::Request& request) const override {
    if (request.kind != kTouch) return proto::LockDomains::none();
    const auto& touch_call = *static_cast<const TouchCall*>(request.payload);
    proto::LockDomains set = proto::LockDomains::of(touch_call.keys[0]);
    if (touch_call.count == 2) set.add(touch_call.keys[1]);
    return set;
  }
  std::string describe_domain(LockDomain domain) const override {
    return "cell " + std::to_string(domain);
  }

  void handle(proto::Request& request, proto::RuntimeServices& services) override {
    switch (request.kind) {
      case kSpawn: {
        auto& spawn_call = *static_cast<SpawnCall*>(request.payload);
        proto::VirtualProcessor& child = services.create_vp(
            std::move(spawn_call.body), proto::VpOptions{"toucher", spawn_call.core, 0},
            request.site);
        services.make_ready(child);
        services.make_ready(*request.requester);
        return;
      }
      case kTouch: {
        const auto& touch_call = *static_cast<const TouchCall*>(request.payload);
        for (std::size_t k = 0; k < touch_call.count; ++k) enter(cells_[touch_call.keys[k]]);
        if (touch_call.meet) meet();
        for (std::size_t k = 0; k < touch_call.count; ++k) leave(cells_[touch_call.keys[k]]);
        services.make_ready(*request.requester);
        return;
      }
      default: return;
    }
  }
  proto::Assigner& assigner() override { return *this; }

  // After the run: touches per cell, handlers that found their cell's handler in flight, meets.
  std::uint64_t touches(LockDomain key) const { return cells_[key].touches; }
  // in_flight says whether a handler touching `key` runs now (a test waits for that state).
  bool in_flight(LockDomain key) const { return cells_[key].in_flight.load() > 0; }
  std::uint64_t overlaps() const { return overlaps_.load(); }
  std::uint64_t met() const { return met_.load(); }
  std::uint64_t gave_up() const { return gave_up_.load(); }

 private:
  struct alignas(64) Cell {
    std::atomic<int> in_flight{0};
    std::uint64_t touches = 0;  // plain: two handlers in one domain at once are a data race
  };
  void enter(Cell& cell) {
    if (cell.in_flight.fetch_add(1) != 0) overlaps_.fetch_add(1);
    ++cell.touches;
  }
  void leave(Cell& cell) { cell.in_flight.fetch_sub(1); }
  // meet waits for a second handler in flight, or for the runtime's word that a core waits for
  // a lock this handler holds (a second handler cannot come then): states, not a time.
  void meet() {
    if (meeting_.fetch_add(1) + 1 >= 2) met_.fetch_add(1);
    while (met_.load() == 0) {
      if (give_up_when_ != nullptr && give_up_when_->load()) {
        gave_up_.fetch_add(1);
        break;
      }
      std::this_thread::yield();
    }
    meeting_.fetch_sub(1);
  }

  struct alignas(64) Queue {
    proto::SpinLock lock;
    std::deque<proto::VirtualProcessor*> ready;
  };
  CoreId on_ready(proto::VirtualProcessor& vp) override {
    const CoreId core = vp.home_core() == kAnyCore ? 0 : vp.home_core();
    std::lock_guard guard(queues_[core].lock);
    queues_[core].ready.push_back(&vp);
    return core;
  }
  proto::VirtualProcessor* next_for(CoreId core) override {
    std::lock_guard guard(queues_[core].lock);
    if (queues_[core].ready.empty()) return nullptr;
    proto::VirtualProcessor* vp = queues_[core].ready.front();
    queues_[core].ready.pop_front();
    return vp;
  }

  std::deque<Queue> queues_;
  std::array<Cell, kCells> cells_;
  bool domains_on_ = true;
  const std::atomic<bool>* give_up_when_ = nullptr;
  std::atomic<int> meeting_{0};
  std::atomic<std::uint64_t> met_{0}, overlaps_{0}, gave_up_{0};
};

}  // namespace moirai::test::touch

#include "ssr_language.h"

#include <cxxabi.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <mutex>
#include <new>
#include <stdexcept>
#include <type_traits>
#include <memory>
#include <string>
#include <utility>

#include "moirai/proto_runtime/errors.h"
#include "moirai/proto_runtime/virtual_processor.h"
#include "moirai/ssr/cost_model.h"
#include "moirai/ssr/run.h"

namespace moirai::ssr {

using detail::Construct;
using proto::Request;
using proto::RuntimeServices;
using proto::VirtualProcessor;

namespace {

detail::Outgoing& outgoing(const Request& request) {
  return *static_cast<detail::Outgoing*>(request.payload);
}
detail::Incoming& incoming(const Request& request) {
  return *static_cast<detail::Incoming*>(request.payload);
}
bool is_send(ConstructKind kind) {
  return kind == detail::kSendFromTo || kind == detail::kSendOfTypeTo ||
         kind == detail::kSendOfType;
}

std::string type_name(detail::TypeTag type) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> readable(
      abi::__cxa_demangle(type->name(), nullptr, nullptr, &status), std::free);
  return status == 0 && readable ? readable.get() : type->name();
}

const std::string& channel_name(const detail::MessageTypeBase* channel) {
  return channel->name();
}

// language_table is SSR as data: its construct table, its default costs (cost_model) and its
// choices for the views and replay.
const proto::LanguageTable& language_table() {
  // What each construct is called, does to scheduling and is drawn with, by kind. The views read
  // all three from the trace; the colours are the paper's SCG colours. SSR speaks the paper's
  // words (VPs placed on cores), the report's own, so it gives none; a replay keeps each VP on the
  // core it last ran on, as SSR's per-core FIFOs do.
  static const proto::LanguageTable table(
      "SSR",
      {
          {proto::kEndVp, {"end_vp", ConstructRole::end, ""}},
          {detail::kCreateVp, {"create_vp", ConstructRole::create, "red"}},
          {detail::kSendFromTo, {"send_from_to", ConstructRole::send, "blue"}},
          {detail::kReceiveFromTo, {"receive_from_to", ConstructRole::receive, "skyblue"}},
          {detail::kSendOfTypeTo, {"send_of_type_to", ConstructRole::send, "green3"}},
          {detail::kReceiveOfTypeTo, {"receive_of_type_to", ConstructRole::receive, "palegreen"}},
          {detail::kSendOfType, {"send_of_type", ConstructRole::send, "purple"}},
          {detail::kReceiveOfType, {"receive_of_type", ConstructRole::receive, "plum"}},
          {detail::kSingletonEnter, {"singleton", ConstructRole::exclusive, "orange"}},
          {detail::kSingletonDone, {"singleton end", ConstructRole::exclusive_end, "orange"}},
      },
      cost_model(), {.placement = LanguagePlacement::last_core, .words = {}});
  return table;
}

}  // namespace

std::atomic<std::uint64_t> SsrLanguage::runs_{0};

static_assert(sizeof(std::atomic<void*>) == sizeof(void*) &&
                  std::is_trivially_destructible_v<std::atomic<void*>>,
              "VpTable takes its chunk pointers zeroed from calloc");

SsrLanguage::VpTable::VpTable()
    : chunks_(static_cast<std::atomic<Chunk*>*>(std::calloc(kChunks, sizeof(std::atomic<Chunk*>)))) {
  if (chunks_ == nullptr) throw std::bad_alloc();
}

SsrLanguage::VpTable::~VpTable() {
  for (std::size_t c = 0; c < kChunks; ++c) delete chunks_[c].load(std::memory_order_relaxed);
  std::free(chunks_);
}

SsrLanguage::VpState* SsrLanguage::VpTable::find(VpId id) const noexcept {
  if ((id >> kChunkBits) >= kChunks) return nullptr;
  const Chunk* chunk = chunks_[id >> kChunkBits].load(std::memory_order_acquire);
  return chunk != nullptr ? chunk->entries[id & ((1u << kChunkBits) - 1)].load(std::memory_order_acquire)
                          : nullptr;
}

void SsrLanguage::VpTable::set(VpId id, VpState* state) {
  if ((id >> kChunkBits) >= kChunks) throw std::length_error("more than 2^30 SSR VPs in one run");
  std::atomic<Chunk*>& slot = chunks_[id >> kChunkBits];
  Chunk* chunk = slot.load(std::memory_order_acquire);
  if (chunk == nullptr) {
    // Creations on two cores may both make the chunk: one keeps its own, the other takes it.
    auto made = std::make_unique<Chunk>();
    if (slot.compare_exchange_strong(chunk, made.get(), std::memory_order_acq_rel)) {
      chunk = made.release();
    }
  }
  chunk->entries[id & ((1u << kChunkBits) - 1)].store(state, std::memory_order_release);
}

SsrLanguage::SsrLanguage(std::size_t core_count)
    : proto::LanguagePlugin(language_table()), core_count_(core_count), assigner_(core_count),
      run_id_(++runs_), retired_(std::make_unique<RetiredStates[]>(core_count)) {}

SsrLanguage::~SsrLanguage() {
  // VPs unwound after a deadlock or failure never reach their end handler.
  alive_.for_each([](VpState* vp_state) { delete vp_state; });
  for (std::size_t core = 0; core < core_count_; ++core) {
    for (VpState* vp_state : retired_[core].states) delete vp_state;
  }
}

void SsrLanguage::vp_created(VirtualProcessor& vp, CoreId core) {
  VpState* vp_state = nullptr;
  std::vector<VpState*>& retired = retired_[core].states;
  if (!retired.empty()) {
    vp_state = retired.back();
    retired.pop_back();
  } else {
    vp_state = new VpState{};
  }
  vp_state->vp = &vp;
  vp.language_slot = vp_state;
  alive_.set(vp.id(), vp_state);
}

SsrLanguage::VpState* SsrLanguage::find(VpId id) const { return alive_.find(id); }

SsrLanguage::Mailbox& SsrLanguage::channel(const detail::MessageTypeBase* type) {
  ChannelShard& shard = channels_[(reinterpret_cast<std::uintptr_t>(type) >> 4) % kChannelShards];
  std::lock_guard guard(shard.lock);
  return shard.channels[type];  // a node: its address holds while the map grows
}

// ---------------------------------------------------------------------------------------------
// lock domains
// ---------------------------------------------------------------------------------------------

namespace {

// Domain keys: a VP by its id, a message type or a singleton by its address, told apart by the
// low bits (objects are aligned to at least 4 bytes).
constexpr LockDomain kVpDomain = 1, kSingletonDomain = 2;
LockDomain vp_domain(VpId id) { return (id << 2) | kVpDomain; }
LockDomain object_domain(const void* object, LockDomain tag) {
  return reinterpret_cast<std::uintptr_t>(object) | tag;
}

}  // namespace

proto::LockDomains SsrLanguage::domains(const Request& request) const {
  const VpId me = request.requester->id();
  switch (request.kind) {
    case proto::kEndVp: return proto::LockDomains::of(vp_domain(me));
    // A creation touches only the runtime's pools and the new VP's state, which no other handler
    // can name before this one returns.
    case detail::kCreateVp: return proto::LockDomains::none();
    // A rendezvous by name: the two VPs it joins (the end of either refuses the other).
    case detail::kSendFromTo: return proto::LockDomains::of(vp_domain(me), vp_domain(outgoing(request).peer));
    case detail::kReceiveFromTo: return proto::LockDomains::of(vp_domain(me), vp_domain(incoming(request).peer));
    // A typed message to a VP: the receiver's mailbox.
    case detail::kSendOfTypeTo: return proto::LockDomains::of(vp_domain(outgoing(request).peer));
    case detail::kReceiveOfTypeTo: return proto::LockDomains::of(vp_domain(me));
    // A typed message to anyone: the type's channel.
    case detail::kSendOfType: return proto::LockDomains::of(object_domain(outgoing(request).channel, 0));
    case detail::kReceiveOfType: return proto::LockDomains::of(object_domain(incoming(request).channel, 0));
    case detail::kSingletonEnter:
    case detail::kSingletonDone:
      return proto::LockDomains::of(object_domain(
          static_cast<const detail::SingletonCall*>(request.payload)->singleton, kSingletonDomain));
    default: return proto::LockDomains::whole_language();
  }
}

std::string SsrLanguage::describe_domain(LockDomain domain) const {
  // Called by the runtime while it holds `domain`: a VP named here cannot end meanwhile.
  switch (domain & 3) {
    case kVpDomain: return "the mailbox of " + describe_vp(domain >> 2);
    case kSingletonDomain:
      return "singleton '" + reinterpret_cast<const Singleton*>(domain & ~LockDomain{3})->name() + "'";
    default:
      return "message type '" +
             reinterpret_cast<const detail::MessageTypeBase*>(domain)->name() + "'";
  }
}

static_assert(sizeof(VpBody) + sizeof(std::size_t) <= 64,
              "wrap's closure must fit VpFunction's inline storage");

proto::VpFunction SsrLanguage::wrap(VpBody body) const {
  // Fits VpFunction's inline storage: no allocation per VP for a body that fits VpBody's.
  return [body = std::move(body), cores = core_count_](VirtualProcessor& vp) mutable {
    Context context(vp, cores);
    body(context);
  };
}


void SsrLanguage::handle(Request& request, RuntimeServices& services) {
  switch (request.kind) {
    case proto::kEndVp: return end_vp(request, services);
    case detail::kCreateVp: return create_vp(request, services);
    case detail::kSendFromTo:
    case detail::kReceiveFromTo: return from_to(request, services);
    case detail::kSendOfTypeTo: {
      VpState* receiver = find(outgoing(request).peer);
      if (receiver == nullptr) {
        return refuse(request, services,
                      "send_of_type_to: the receiver " + describe_vp(outgoing(request).peer) +
                          " has ended (or never existed)");
      }
      return typed(request, services, receiver->inbox[outgoing(request).channel]);
    }
    case detail::kReceiveOfTypeTo:
      return typed(request, services, state(*request.requester).inbox[incoming(request).channel]);
    case detail::kSendOfType: return typed(request, services, channel(outgoing(request).channel));
    case detail::kReceiveOfType: return typed(request, services, channel(incoming(request).channel));
    case detail::kSingletonEnter: return singleton_enter(request, services);
    case detail::kSingletonDone: return singleton_done(request, services);
    default:
      return refuse(request, services, "unknown SSR construct " + std::to_string(request.kind));
  }
}

void SsrLanguage::refuse(Request& request, RuntimeServices& services, std::string message) {
  services.fail(request, std::move(message));
  services.make_ready(*request.requester);
}

std::string SsrLanguage::describe_vp(VpId id) const {
  if (id == 0) return "(no VP: a default VpRef)";
  if (const VpState* vp_state = find(id)) {
    return "VP " + std::to_string(id) + " '" + vp_state->vp->name() + "'";
  }
  return "VP " + std::to_string(id);
}

// ---------------------------------------------------------------------------------------------
// create and end
// ---------------------------------------------------------------------------------------------

void SsrLanguage::create_vp(Request& request, RuntimeServices& services) {
  auto& call = *static_cast<detail::CreateVp*>(request.payload);
  const CreateOptions& options = *call.options;
  VirtualProcessor* child = nullptr;
  try {
    child = &services.create_vp(wrap(std::move(*call.body)),
                                proto::VpOptions{options.name, options.core, options.stack_size},
                                request.site);
  } catch (const proto::UsageError& error) {
    return refuse(request, services, std::string("create_vp: ") + error.what());
  }
  call.created = child->id();
  services.record_constraint(detail::kCreateVp, request.unit, child->unit());
  // The child is queued before its creator: with both on one core the child runs first, the
  // FIFO behaviour behind the paper's creator starvation (section 3.4.1).
  services.make_ready(*child);
  services.make_ready(*request.requester);
}

void SsrLanguage::end_vp(Request& request, RuntimeServices& services) {
  VirtualProcessor& ended = *request.requester;
  VpState* vp_state = &state(ended);
  // Whoever waits for this VP by name would wait forever: tell them now, at their call site. The
  // waiter's own entry stays (its domain is not this one); it names this VP, which never comes.
  for (Request* waiting : vp_state->waited_on_by) {
    Request& wait = *waiting;
    refuse(wait, services,
           std::string(construct_name(wait.kind)) + ": " + describe_vp(ended.id()) +
               (is_send(wait.kind) ? " ended without receiving" : " ended without sending"));
  }
  for (auto& [channel, box] : vp_state->inbox) {
    for (Request* send : box.senders) {
      refuse(*send, services,
             "send_of_type_to: the receiver " + describe_vp(ended.id()) +
                 " ended without receiving this '" + channel_name(channel) + "' message");
    }
  }
  alive_.set(ended.id(), nullptr);
  ended.language_slot = nullptr;
  std::vector<VpState*>& retired = retired_[services.core()].states;
  if (retired.size() < kRetiredKept) {
    // Cleared field by field: assigning a fresh VpState costs a new hash table.
    vp_state->vp = nullptr;
    vp_state->from_to_wait = nullptr;
    vp_state->wait_peer = 0;
    vp_state->wait_kind = 0;
    vp_state->waited_on_by.clear();
    vp_state->inbox.clear();
    retired.push_back(vp_state);
  } else {
    delete vp_state;
  }
}

// ---------------------------------------------------------------------------------------------
// send_from_to / receive_from_to
// ---------------------------------------------------------------------------------------------

void SsrLanguage::from_to(Request& request, RuntimeServices& services) {
  const bool sending = request.kind == detail::kSendFromTo;
  VirtualProcessor& me = *request.requester;
  const VpId peer_id = sending ? outgoing(request).peer : incoming(request).peer;
  const char* construct = sending ? "send_from_to" : "receive_from_to";
  if (peer_id == me.id()) {
    return refuse(request, services,
                  std::string(construct) + (sending ? ": a VP cannot send to itself"
                                                    : ": a VP cannot receive from itself"));
  }
  VpState* peer = find(peer_id);
  if (peer == nullptr) {
    return refuse(request, services,
                  std::string(construct) + ": " + describe_vp(peer_id) +
                      " has ended (or never existed)");
  }
  const ConstructKind partner = sending ? detail::kReceiveFromTo : detail::kSendFromTo;
  if (peer->from_to_wait != nullptr && peer->wait_peer == me.id() && peer->wait_kind == partner) {
    Request* waiting = std::exchange(peer->from_to_wait, nullptr);
    std::erase(state(me).waited_on_by, waiting);
    if (sending) {
      match(request, *waiting, services);
    } else {
      match(*waiting, request, services);
    }
    return;
  }
  VpState& mine = state(me);
  mine.from_to_wait = &request;
  mine.wait_peer = peer_id;
  mine.wait_kind = request.kind;
  peer->waited_on_by.push_back(&request);
}

// ---------------------------------------------------------------------------------------------
// send_of_type_to / send_of_type and their receives
// ---------------------------------------------------------------------------------------------

void SsrLanguage::join_group(const Request& request, RuntimeServices& services, Mailbox& box) {
  if (box.group == 0) {
    box.group = next_group_.fetch_add(1, std::memory_order_relaxed);
    const bool to_receiver = request.kind == detail::kSendOfTypeTo ||
                             request.kind == detail::kReceiveOfTypeTo;
    const detail::MessageTypeBase* type =
        is_send(request.kind) ? outgoing(request).channel : incoming(request).channel;
    const VpId receiver = request.kind == detail::kSendOfTypeTo ? outgoing(request).peer
                                                                 : request.requester->id();
    services.define_group(box.group, to_receiver ? detail::kSendOfTypeTo : detail::kSendOfType,
                          to_receiver ? "'" + type->name() + "' to " + describe_vp(receiver)
                                      : "channel '" + type->name() + "'");
  }
  services.record_group_member(box.group, is_send(request.kind) ? kGroupSource : kGroupSink,
                               request.unit);
}

void SsrLanguage::typed(Request& request, RuntimeServices& services, Mailbox& box) {
  if (services.recording()) join_group(request, services, box);
  if (is_send(request.kind)) {
    if (box.receivers.empty()) {
      box.senders.push_back(&request);
      return;
    }
    Request* receive = box.receivers.front();
    box.receivers.pop_front();
    return match(request, *receive, services);
  }
  if (box.senders.empty()) {
    box.receivers.push_back(&request);
    return;
  }
  Request* send = box.senders.front();
  box.senders.pop_front();
  match(*send, request, services);
}

void SsrLanguage::match(Request& send, Request& receive, RuntimeServices& services) {
  detail::Outgoing& out = outgoing(send);
  detail::Incoming& in = incoming(receive);
  if (*out.type != *in.type) {
    const std::string what = std::string(construct_name(send.kind)) + " from " +
                             describe_vp(send.requester->id()) + " carries " +
                             type_name(out.type) + ", but " + describe_vp(receive.requester->id()) +
                             " receives " + type_name(in.type) + " (at " +
                             proto::format_site(receive.site) + " and " +
                             proto::format_site(send.site) + ")";
    refuse(send, services, "message type mismatch: " + what);
    refuse(receive, services, "message type mismatch: " + what);
    return;
  }
  out.deliver(out.value, in.slot);
  out.matched = receive.requester->id();
  in.matched = send.requester->id();
  // The paper's two crossing dependencies: each side's call freed the other's next unit.
  const std::uint64_t pair = services.new_match();
  services.record_constraint(send.kind, send.unit, receive.requester->unit(), pair);
  services.record_constraint(receive.kind, receive.unit, send.requester->unit(), pair);
  services.make_ready(*send.requester);
  services.make_ready(*receive.requester);
}

// ---------------------------------------------------------------------------------------------
// singleton
// ---------------------------------------------------------------------------------------------

void SsrLanguage::singleton_enter(Request& request, RuntimeServices& services) {
  auto& call = *static_cast<detail::SingletonCall*>(request.payload);
  Singleton& s = *call.singleton;
  if (s.run_ != run_id_) {  // first use in this run: whatever an earlier run left is stale
    s.run_ = run_id_;
    s.state_ = Singleton::State::fresh;
    s.owner_ = 0;
    s.done_unit_ = 0;
    s.group_ = 0;
    s.waiters_.clear();
  }
  if (services.recording()) {
    if (s.group_ == 0) {
      s.group_ = next_group_.fetch_add(1, std::memory_order_relaxed);
      services.define_group(s.group_, detail::kSingletonEnter, "singleton '" + s.name() + "'");
    }
    services.record_group_member(s.group_, kGroupSource, request.unit);
  }
  switch (s.state_) {
    case Singleton::State::fresh:  // the first predecessor enables the block, run by its VP
      s.state_ = Singleton::State::running;
      s.owner_ = request.requester->id();
      call.run_body = true;
      services.record_constraint(detail::kSingletonEnter, request.unit, request.requester->unit());
      services.make_ready(*request.requester);
      return;
    case Singleton::State::running:
      s.waiters_.push_back(request.requester);  // released by singleton_done
      return;
    case Singleton::State::done:
      services.record_constraint(detail::kSingletonDone, s.done_unit_, request.requester->unit());
      services.record_group_member(s.group_, kGroupSink, request.requester->unit());
      services.make_ready(*request.requester);
      return;
  }
}

void SsrLanguage::singleton_done(Request& request, RuntimeServices& services) {
  auto& call = *static_cast<detail::SingletonCall*>(request.payload);
  Singleton& s = *call.singleton;
  if (s.run_ != run_id_ || s.state_ != Singleton::State::running ||
      s.owner_ != request.requester->id()) {
    return refuse(request, services,
                  "singleton '" + s.name() + "': ended by a VP that does not run its block");
  }
  s.state_ = Singleton::State::done;
  s.done_unit_ = request.unit;
  for (VirtualProcessor* waiter : s.waiters_) {
    services.record_constraint(detail::kSingletonDone, request.unit, waiter->unit());
    services.record_group_member(s.group_, kGroupSink, waiter->unit());
    services.make_ready(*waiter);
  }
  s.waiters_.clear();
  services.record_group_member(s.group_, kGroupSink, request.requester->unit());
  services.make_ready(*request.requester);
}

// ---------------------------------------------------------------------------------------------
// deadlock reports
// ---------------------------------------------------------------------------------------------

std::string SsrLanguage::describe_wait(const Request& request) const {
  switch (request.kind) {
    case detail::kSendFromTo:
      return describe_vp(outgoing(request).peer) + " to receive";
    case detail::kReceiveFromTo:
      return "a message from " + describe_vp(incoming(request).peer);
    case detail::kSendOfTypeTo:
      return describe_vp(outgoing(request).peer) + " to receive a '" +
             channel_name(outgoing(request).channel) + "' message";
    case detail::kReceiveOfTypeTo:
      return "a '" + channel_name(incoming(request).channel) + "' message";
    case detail::kSendOfType:
      return "any VP to receive from channel '" + channel_name(outgoing(request).channel) + "'";
    case detail::kReceiveOfType:
      return "a message on channel '" + channel_name(incoming(request).channel) + "'";
    case detail::kSingletonEnter: {
      const Singleton& s = *static_cast<const detail::SingletonCall*>(request.payload)->singleton;
      return "singleton '" + s.name() + "' to complete (its block runs in " +
             describe_vp(s.owner_) + ")";
    }
    default: return {};
  }
}

// The typed entry points (run.h): the proto-runtime's run, with SsrLanguage as the language.
proto::RunStats run(proto::Machine& machine, VpBody seed, const RunOptions& options, std::source_location where) {
  return proto::run<SsrLanguage>(machine, std::move(seed), options, CallSite::from(where));
}
proto::RunStats run(VpBody seed, const RunOptions& options, std::source_location where) {
  return proto::run<SsrLanguage>(std::move(seed), options, CallSite::from(where));
}

}  // namespace moirai::ssr

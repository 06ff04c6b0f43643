// SSR as a proto-runtime language plugin: its request handlers and their shared state.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "fifo_assigner.h"
#include "moirai/proto_runtime/language_plugin.h"
#include "moirai/proto_runtime/run.h"
#include "moirai/proto_runtime/spin_lock.h"
#include "moirai/ssr/context.h"
#include "moirai/ssr/detail/requests.h"

namespace moirai::ssr {

// SsrLanguage implements every SSR construct as a request handler. Messages wait in their
// sender's frame until matched; a match moves the value into the receiver's slot while both
// VPs are suspended, then makes both ready (rendezvous). Its lock domains: a VP (its mailboxes,
// its pending send_from_to or receive_from_to, the requests waiting on it), a message type (its
// send_of_type channel), a singleton; each handler touches only the state of the domains its
// request names (domains()).
class SsrLanguage final : public proto::LanguagePlugin {
 public:
  explicit SsrLanguage(std::size_t core_count);
  ~SsrLanguage() override;

  void vp_created(proto::VirtualProcessor& vp, CoreId core) override;
  void handle(proto::Request& request, proto::RuntimeServices& services) override;
  std::string describe_wait(const proto::Request& request) const override;
  bool names_domains() const noexcept override { return true; }
  proto::LockDomains domains(const proto::Request& request) const override;
  std::string describe_domain(LockDomain domain) const override;
  proto::Assigner& assigner() override { return assigner_; }

  // seed turns the program's first body into the function its VP animates (proto::run).
  proto::VpFunction seed(VpBody body, const proto::RunOptions& /*options*/, const CallSite& /*where*/) const {
    return wrap(std::move(body));
  }

 private:
  // wrap turns an SSR body into the function a VP animates.
  proto::VpFunction wrap(VpBody body) const;

  // Mailbox holds unmatched typed sends and receives: one per (receiver, type) for
  // send_of_type_to, one per type for the global send_of_type channels.
  struct Mailbox {
    std::deque<proto::Request*> senders;
    std::deque<proto::Request*> receivers;
    std::uint64_t group = 0;  // its group of possible partners in the trace (0: not yet named)
  };
  // VpState is SSR's per-VP state (in VirtualProcessor::language_slot), in the VP's domain.
  struct VpState {
    proto::VirtualProcessor* vp = nullptr;
    // its unmatched send_from_to / receive_from_to, valid while wait_peer and wait_kind say so:
    // the end of the peer refuses the request without touching this state (another domain), so
    // the entry may outlive the request, naming a VP that has ended.
    proto::Request* from_to_wait = nullptr;
    VpId wait_peer = 0;
    ConstructKind wait_kind = 0;
    std::vector<proto::Request*> waited_on_by;    // from_to requests of other VPs naming this VP
    std::unordered_map<const detail::MessageTypeBase*, Mailbox> inbox;  // its send_of_type_to mailboxes by type
  };
  // VpTable maps VP ids to their states for handlers of any domain: chunks never move once made,
  // so a lookup takes no lock (an entry is written in its VP's creation and end).
  class VpTable {
   public:
    VpTable();
    ~VpTable();
    VpState* find(VpId id) const noexcept;
    void set(VpId id, VpState* state);
    template <class F>
    void for_each(F f) const {
      for (std::size_t c = 0; c < kChunks; ++c) {
        const Chunk* chunk = chunks_[c].load(std::memory_order_acquire);
        if (chunk == nullptr) continue;
        for (const auto& entry : chunk->entries) {
          if (VpState* state = entry.load(std::memory_order_relaxed)) f(state);
        }
      }
    }

   private:
    static constexpr unsigned kChunkBits = 12;
    static constexpr std::size_t kChunks = std::size_t{1} << 18;  // 2^30 VPs in a run
    struct Chunk {
      std::atomic<VpState*> entries[std::size_t{1} << kChunkBits] = {};
    };
    std::atomic<Chunk*>* chunks_;  // kChunks, zeroed by calloc: pages are touched as ids grow
  };
  // Channels holds the send_of_type channels by message type, in shards with a lock each for
  // the lookup only: a channel's mailbox is its type's domain, and types share shards.
  struct alignas(64) ChannelShard {
    proto::SpinLock lock;
    std::unordered_map<const detail::MessageTypeBase*, Mailbox> channels;
  };
  Mailbox& channel(const detail::MessageTypeBase* type);
  // RetiredStates keeps the states of ended VPs for the next creations on the same core.
  struct alignas(64) RetiredStates {
    std::vector<VpState*> states;
  };

  static VpState& state(proto::VirtualProcessor& vp) {
    return *static_cast<VpState*>(vp.language_slot);
  }
  VpState* find(VpId id) const;

  void create_vp(proto::Request& request, proto::RuntimeServices& services);
  void end_vp(proto::Request& request, proto::RuntimeServices& services);
  void from_to(proto::Request& request, proto::RuntimeServices& services);
  void typed(proto::Request& request, proto::RuntimeServices& services, Mailbox& box);
  void singleton_enter(proto::Request& request, proto::RuntimeServices& services);
  void singleton_done(proto::Request& request, proto::RuntimeServices& services);
  // match moves the message of `send` into `receive` (both suspended) and makes both ready.
  void match(proto::Request& send, proto::Request& receive, proto::RuntimeServices& services);
  // refuse fails `request` with `message` and makes its VP ready, so its construct throws.
  void refuse(proto::Request& request, proto::RuntimeServices& services, std::string message);
  std::string describe_vp(VpId id) const;
  // join_group records `request`'s unit in the mailbox's group of senders and receivers.
  void join_group(const proto::Request& request, proto::RuntimeServices& services, Mailbox& box);

  static std::atomic<std::uint64_t> runs_;  // numbers runs, so a Singleton knows a new one
  std::size_t core_count_;
  FifoAssigner assigner_;
  std::uint64_t run_id_;
  std::atomic<std::uint64_t> next_group_{1};
  // alive_ holds the state of each VP while it lives. VP ids are dense (1, 2, ...), so a table
  // beats a hash map on the hot path (8 bytes per VP ever created).
  VpTable alive_;
  // retired_[core] keeps the states of VPs that ended on `core` for its next creations: a VP often
  // ends on another core than the one that created it, and freeing there what that core allocated
  // made both cores queue for the allocator's arena lock (futex waits) on every short-lived VP.
  // Up to kRetiredKept are kept per core.
  static constexpr std::size_t kRetiredKept = 1024;
  std::unique_ptr<RetiredStates[]> retired_;
  static constexpr std::size_t kChannelShards = 16;
  ChannelShard channels_[kChannelShards];
};

}  // namespace moirai::ssr

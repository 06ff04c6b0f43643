// SSR as a proto-runtime language plugin: its request handlers and their shared state.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "fifo_assigner.h"
#include "moirai/proto_runtime/language_plugin.h"
#include "moirai/proto_runtime/run.h"
#include "moirai/ssr/context.h"
#include "moirai/ssr/detail/requests.h"

namespace moirai::ssr {

// SsrLanguage implements every SSR construct as a request handler. Messages wait in their
// sender's frame until matched; a match moves the value into the receiver's slot while both
// VPs are suspended, then makes both ready (rendezvous). All state is touched under the
// runtime lock only.
class SsrLanguage final : public proto::LanguagePlugin {
 public:
  explicit SsrLanguage(std::size_t core_count);
  ~SsrLanguage() override;

  void vp_created(proto::VirtualProcessor& vp, CoreId core) override;
  void handle(proto::Request& request, proto::RuntimeServices& services) override;
  std::string describe_wait(const proto::Request& request) const override;
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
  // VpState is SSR's per-VP state (in VirtualProcessor::language_slot).
  struct VpState {
    proto::VirtualProcessor* vp = nullptr;
    proto::Request* from_to_wait = nullptr;       // its unmatched send_from_to / receive_from_to
    std::vector<VpId> waited_on_by;               // VPs whose from_to_wait names this VP
    std::unordered_map<const detail::MessageTypeBase*, Mailbox> inbox;  // its send_of_type_to mailboxes by type
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
  std::uint64_t next_group_ = 1;
  // alive_[id] is the state of VP `id` while it lives, else nullptr. VP ids are dense (1, 2, ...),
  // so a table beats a hash map on the hot path (8 bytes per VP ever created).
  std::vector<VpState*> alive_;
  // retired_ keeps the states of ended VPs for the next ones: a VP often ends on another core than
  // the one that created it, and freeing there what that core allocated made both cores queue for
  // the allocator's arena lock (futex waits) on every short-lived VP. Up to kRetiredKept are kept.
  static constexpr std::size_t kRetiredKept = 4096;
  std::vector<VpState*> retired_;
  std::unordered_map<const detail::MessageTypeBase*, Mailbox> channels_;  // send_of_type, by type
};

}  // namespace moirai::ssr

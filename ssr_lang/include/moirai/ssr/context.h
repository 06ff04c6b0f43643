// Context: the SSR constructs, as seen from inside a virtual processor.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <source_location>
#include <string>
#include <type_traits>
#include <utility>

#include "moirai/core/ids.h"
#include "moirai/ssr/detail/requests.h"
#include "moirai/ssr/message_type.h"
#include "moirai/ssr/singleton.h"
#include "moirai/ssr/vp_ref.h"

namespace moirai::proto {
class VirtualProcessor;
}

namespace moirai::ssr {

// CreateOptions names a new VP, optionally pins it to a core (the paper's construct that forces
// a core) and sets its stack size.
struct CreateOptions {
  std::string name;
  CoreId core = kAnyCore;       // kAnyCore: the assigner picks (round-robin)
  std::size_t stack_size = 0;   // bytes; 0: the run's default
};

// Context is a VP's handle on SSR. Every construct ends the calling VP's current unit, blocks
// the VP until the construct's constraint is satisfied and records the call site. Misuse throws
// proto::UsageError naming the call site. A Context is valid only inside its own VP.
class Context {
 public:
  using Where = std::source_location;

  // self names the calling VP.
  VpRef self() const noexcept;
  // core is the core animating the calling VP right now.
  CoreId core() const noexcept;
  // core_count is the number of cores of the run.
  std::size_t core_count() const noexcept { return core_count_; }

  // create_vp creates a VP that runs `body` (a VpBody: copyable or move-only); it returns once the
  // VP exists (not once it runs).
  VpRef create_vp(VpBody body, CreateOptions options = {},
                  Where where = Where::current());
  // end_vp ends the calling VP (its stack unwinds); returning from the VP's body does the same.
  [[noreturn]] void end_vp(Where where = Where::current());

  // send_from_to sends `message` to `receiver`, which must take it with receive_from_to naming
  // this VP; both wait until they met (rendezvous).
  template <class T>
  void send_from_to(VpRef receiver, T message, Where where = Where::current()) {
    detail::Outgoing out{receiver.id(), nullptr, detail::type_tag<T>(), &message,
                         &detail::deliver<T>};
    (void)call(detail::kSendFromTo, &out, where);
  }
  // receive_from_to waits for the message `sender` sends this VP with send_from_to.
  template <class T>
  T receive_from_to(VpRef sender, Where where = Where::current()) {
    std::optional<T> slot;
    detail::Incoming in{sender.id(), nullptr, detail::type_tag<T>(), &slot};
    (void)call(detail::kReceiveFromTo, &in, where);
    last_sender_ = VpRef(in.matched);
    return take(slot, where);
  }

  // send_of_type_to sends a message of `type` to `receiver`; the sender stays anonymous to the
  // receiver, which takes it with receive_of_type_to. Waits until it was received.
  template <class T>
  void send_of_type_to(const MessageType<T>& type, VpRef receiver, T message,
                       Where where = Where::current()) {
    detail::Outgoing out{receiver.id(), &type, detail::type_tag<T>(), &message,
                         &detail::deliver<T>};
    (void)call(detail::kSendOfTypeTo, &out, where);
  }
  // receive_of_type_to waits for a message of `type` sent to this VP by any VP.
  template <class T>
  T receive_of_type_to(const MessageType<T>& type, Where where = Where::current()) {
    std::optional<T> slot;
    detail::Incoming in{0, &type, detail::type_tag<T>(), &slot};
    (void)call(detail::kReceiveOfTypeTo, &in, where);
    last_sender_ = VpRef(in.matched);
    return take(slot, where);
  }
  // received_from is the sender of the last message this VP received (by any receive), or a
  // default VpRef before its first receive.
  VpRef received_from() const noexcept { return last_sender_; }

  // send_of_type puts a message on the global channel `type`: any VP may receive it. Waits until
  // one did.
  template <class T>
  void send_of_type(const MessageType<T>& type, T message, Where where = Where::current()) {
    detail::Outgoing out{0, &type, detail::type_tag<T>(), &message, &detail::deliver<T>};
    (void)call(detail::kSendOfType, &out, where);
  }
  // receive_of_type waits for a message on the global channel `type` from any VP.
  template <class T>
  T receive_of_type(const MessageType<T>& type, Where where = Where::current()) {
    std::optional<T> slot;
    detail::Incoming in{0, &type, detail::type_tag<T>(), &slot};
    (void)call(detail::kReceiveOfType, &in, where);
    last_sender_ = VpRef(in.matched);
    return take(slot, where);
  }

  // phase_begin / phase_end mark an application phase (a string literal) in the trace: a user
  // event inside the current unit, not a construct (the unit goes on).
  void phase_begin(const char* name);
  void phase_end(const char* name);

  // charge_work declares that the current unit does `cycles` of work: on a simulated machine
  // with declared work (--sim-work declared) that is the unit's duration in virtual ticks,
  // which makes runs exact and repeatable; on real cores it does nothing. Calls add up.
  void charge_work(std::uint64_t cycles) noexcept;

  // singleton runs `block` in the first VP to reach `s`; every other VP that reaches `s` waits
  // until the block completed and then continues without running it.
  template <class F>
  void singleton(Singleton& s, F&& block, Where where = Where::current()) {
    if (singleton_enter(s, where)) {
      std::forward<F>(block)();
      singleton_done(s, where);
    }
  }

 private:
  friend class SsrLanguage;
  Context(proto::VirtualProcessor& vp, std::size_t core_count) noexcept
      : vp_(vp), core_count_(core_count) {}
  // call hands one construct to the runtime; false when it was skipped because a stopped run is
  // unwinding this VP (a destructor called it): sends are dropped, receives return T{}.
  bool call(detail::Construct kind, void* payload, const Where& where);
  [[noreturn]] static void skipped_receive(const Where& where);
  template <class T>
  static T take(std::optional<T>& slot, const Where& where) {
    if (slot.has_value()) return std::move(*slot);
    if constexpr (std::is_default_constructible_v<T>) {
      return T{};
    } else {
      skipped_receive(where);
    }
  }
  bool singleton_enter(Singleton& s, const Where& where);
  void singleton_done(Singleton& s, const Where& where);

  proto::VirtualProcessor& vp_;
  std::size_t core_count_;
  VpRef last_sender_;
};

}  // namespace moirai::ssr

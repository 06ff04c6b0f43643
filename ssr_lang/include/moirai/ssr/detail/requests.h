// The payloads SSR's constructs hand the runtime: internal to SSR, visible for its templates.
#pragma once

#include <optional>
#include <string>
#include <typeinfo>
#include <utility>

#include "moirai/core/ids.h"
#include "moirai/proto_runtime/virtual_processor.h"
#include "moirai/ssr/message_type.h"

namespace moirai::ssr::detail {

// Construct is SSR's construct kind numbering (0 is the proto-runtime's "end VP"); its table
// (language_table in ssr_language.cpp) lists them in this order.
enum Construct : ConstructKind {
  kCreateVp = 1,
  kSendFromTo, kReceiveFromTo,          // both ends named
  kSendOfTypeTo, kReceiveOfTypeTo,      // the receiver named, the sender matched by type
  kSendOfType, kReceiveOfType,          // a global channel per type
  kSingletonEnter, kSingletonDone,      // a block that runs once
};

}  // namespace moirai::ssr::detail

namespace moirai::ssr {
class Context;
class Singleton;
struct CreateOptions;

// VpBody is the code of an SSR VP: a callable taking the VP's Context, move-only ones included
// (a body may own what it captures, e.g. a std::unique_ptr).
using VpBody = proto::Body<Context>;
}  // namespace moirai::ssr

namespace moirai::ssr::detail {

// TypeTag identifies a message's C++ type, so a mismatch can be refused and named.
using TypeTag = const std::type_info*;
template <class T>
TypeTag type_tag() noexcept {
  return &typeid(T);
}

// Outgoing is a message waiting in its sender's frame; the handler that matches it moves the
// value into the receiver's Incoming while both VPs are suspended.
struct Outgoing {
  VpId peer = 0;                   // the receiver (send_from_to, send_of_type_to)
  const MessageTypeBase* channel = nullptr;  // send_of_type_to, send_of_type
  TypeTag type = nullptr;
  void* value = nullptr;
  void (*deliver)(void* value, void* slot) = nullptr;
  VpId matched = 0;                // filled in: the receiver it went to
};

// Incoming is a receiver's empty slot (a std::optional<T>).
struct Incoming {
  VpId peer = 0;                   // the sender (receive_from_to)
  const MessageTypeBase* channel = nullptr;
  TypeTag type = nullptr;
  void* slot = nullptr;
  VpId matched = 0;                // filled in: the sender it came from
};

template <class T>
void deliver(void* value, void* slot) {
  static_cast<std::optional<T>*>(slot)->emplace(std::move(*static_cast<T*>(value)));
}

struct CreateVp {
  VpBody* body = nullptr;
  const CreateOptions* options = nullptr;
  VpId created = 0;  // filled in
};

struct SingletonCall {
  Singleton* singleton = nullptr;
  bool run_body = false;  // filled in: this VP runs the block
};

}  // namespace moirai::ssr::detail

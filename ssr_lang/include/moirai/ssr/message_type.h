// MessageType: the typed channel key of send_of_type_to and send_of_type.
#pragma once

#include <string>
#include <string_view>

namespace moirai::ssr {

namespace detail {
// MessageTypeBase is what the runtime side knows of a MessageType: its identity and its name.
class MessageTypeBase {
 public:
  MessageTypeBase(const MessageTypeBase&) = delete;
  MessageTypeBase& operator=(const MessageTypeBase&) = delete;
  // name is the type's display name in reports.
  const std::string& name() const noexcept { return name_; }

 protected:
  explicit MessageTypeBase(std::string name) : name_(std::move(name)) {}
  ~MessageTypeBase() = default;

 private:
  std::string name_;
};
}  // namespace detail

// MessageType<T> is a message type in SSR's sense: senders and receivers that use the same
// MessageType object match, and its messages carry a T. Declare one per kind of message, with
// static storage duration, e.g. `inline const ssr::MessageType<Partial> kPartial{"partial"};`.
template <class T>
class MessageType final : public detail::MessageTypeBase {
 public:
  using value_type = T;
  explicit MessageType(std::string name) : MessageTypeBase(std::move(name)) {}
};

}  // namespace moirai::ssr

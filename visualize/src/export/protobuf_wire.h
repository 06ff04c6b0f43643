// Protocol Buffers' wire format, written by hand for the Perfetto export (internal to visualize):
// the few encodings a trace needs (varint, 64-bit fixed, length-delimited), so the exporter can
// stream packets without a generated schema. See protobuf.dev's "Encoding" page.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace moirai::visualize::detail {

// ProtoMessage is one message being encoded: fields appended in the order written.
class ProtoMessage {
 public:
  // varint writes an integer field (int32/int64/uint32/uint64/bool/enum; negative int64 as
  // ten bytes, as protobuf encodes it).
  ProtoMessage& varint(std::uint32_t field, std::uint64_t value) {
    key(field, kVarint);
    raw_varint(value);
    return *this;
  }
  // fixed64 writes a fixed64 field.
  ProtoMessage& fixed64(std::uint32_t field, std::uint64_t value) {
    key(field, kFixed64);
    for (int byte = 0; byte < 8; ++byte) bytes_.push_back(static_cast<char>((value >> (8 * byte)) & 0xff));
    return *this;
  }
  // bytes writes a string, bytes or embedded-message field.
  ProtoMessage& bytes(std::uint32_t field, std::string_view value) {
    key(field, kLengthDelimited);
    raw_varint(value.size());
    bytes_.append(value);
    return *this;
  }
  ProtoMessage& message(std::uint32_t field, const ProtoMessage& value) { return bytes(field, value.view()); }

  std::string_view view() const { return bytes_; }
  bool empty() const { return bytes_.empty(); }
  void clear() { bytes_.clear(); }

 private:
  static constexpr std::uint32_t kVarint = 0, kFixed64 = 1, kLengthDelimited = 2;
  void key(std::uint32_t field, std::uint32_t wire_type) { raw_varint((std::uint64_t{field} << 3) | wire_type); }
  void raw_varint(std::uint64_t value) {
    while (value >= 0x80) {
      bytes_.push_back(static_cast<char>((value & 0x7f) | 0x80));
      value >>= 7;
    }
    bytes_.push_back(static_cast<char>(value));
  }
  std::string bytes_;
};

}  // namespace moirai::visualize::detail

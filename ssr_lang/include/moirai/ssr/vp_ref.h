// VpRef: how SSR code names a virtual processor.
#pragma once

#include <compare>

#include "moirai/core/ids.h"

namespace moirai::ssr {

// VpRef names an SSR virtual processor; it stays a valid name after the VP ended (constructs
// that need the VP alive then fail with a UsageError). A default VpRef names no VP.
class VpRef {
 public:
  constexpr VpRef() noexcept = default;
  constexpr explicit VpRef(VpId id) noexcept : id_(id) {}
  // id is the VP's number in this run (0 for a default VpRef).
  constexpr VpId id() const noexcept { return id_; }
  constexpr explicit operator bool() const noexcept { return id_ != 0; }
  friend constexpr auto operator<=>(VpRef, VpRef) = default;

 private:
  VpId id_ = 0;
};

}  // namespace moirai::ssr

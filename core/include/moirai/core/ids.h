// The vocabulary every layer shares: cores, VPs, units, constructs and call sites.
#pragma once

// Said here, at the top of every runtime header, rather than as an error deep in a template.
#if __cplusplus < 202002L
#error "Moirai's headers need C++20: compile with -std=c++20 (CMake: link a Moirai:: target)"
#endif

#include <cstdint>
#include <source_location>

#if !defined(__cpp_lib_source_location)
#error "Moirai's headers need std::source_location: GCC 11 or newer, clang 15 or newer"
#endif

namespace moirai {

// CoreId numbers the cores a run uses, 0 .. core_count-1.
using CoreId = std::uint32_t;

// kAnyCore stands for "no particular core" (an unpinned VP, a wake-up for every core).
inline constexpr CoreId kAnyCore = ~CoreId{0};

// VpId numbers the virtual processors of one run from 1 in creation order.
using VpId = std::uint64_t;

// UnitId numbers the units (work-units) of one run from 1; 0 means "no unit".
using UnitId = std::uint64_t;

// ConstructKind identifies a language construct; 0 is the proto-runtime's own "end VP".
using ConstructKind = std::uint32_t;

// LockDomain is a key a language chose for one part of its state (a VP's mailbox, a message type,
// a data block); requests on different domains may be handled at the same time.
using LockDomain = std::uint64_t;

// kWholeLanguage is the domain of a request that may touch any of its language's state.
inline constexpr LockDomain kWholeLanguage = ~LockDomain{0};

// GroupRole is a unit's part in a group of possible partners: a source (a sender, a
// singleton's predecessor) or a sink (a receiver, a singleton's successor).
enum GroupRole : std::uint16_t { kGroupSource = 1, kGroupSink = 2 };

// CallSite is where application code entered the runtime (file and line from std::source_location).
struct CallSite {
  const char* file = "";
  std::uint32_t line = 0;
  const char* function = "";

  static constexpr CallSite from(const std::source_location& where) noexcept {
    return CallSite{where.file_name(), where.line(), where.function_name()};
  }
};

}  // namespace moirai

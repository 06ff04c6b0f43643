// VP stacks with a wide guard below each, and the SIGSEGV handler that names the VP whose stack
// ran into its guard, so an overflow ends the process with a message instead of corrupting memory.
#pragma once

#include <boost/context/stack_context.hpp>
#include <cstddef>

namespace moirai::proto {
class VirtualProcessor;
}

namespace moirai::proto::detail {

// kGuardSpan is the unwritable region below every VP stack: a frame up to about this size that
// jumps past the stack's end still lands in it (Boost.Context's protected_fixedsize_stack has one
// page; a frame larger than that skipped it). Larger frames are caught by the stack probes that
// -fstack-clash-protection emits (proto_runtime's CMakeLists gives it to every user).
inline constexpr std::size_t kGuardSpan = 64 * 1024;

// map_vp_stack maps a stack of at least `size` usable bytes above a guard of kGuardSpan bytes;
// throws std::bad_alloc when the system refuses the mapping.
boost::context::stack_context map_vp_stack(std::size_t size);
// unmap_vp_stack gives back a stack that map_vp_stack made.
void unmap_vp_stack(boost::context::stack_context& stack) noexcept;
// set_stack_owner records the VP animated on `stack`, the one an overflow report names.
void set_stack_owner(const boost::context::stack_context& stack, const VirtualProcessor* owner) noexcept;

// watch_stack_overflows_on_this_thread installs, once per process, the SIGSEGV handler that
// reports a VP stack overflow, and gives the calling thread an alternate signal stack for it (a
// thread whose stack overflowed has none left to run a handler on). Faults outside VP guards go
// to the handler that was there before. Does nothing under AddressSanitizer, which owns SIGSEGV
// (its sigaction interceptor refuses other handlers) and reports stack overflows itself.
void watch_stack_overflows_on_this_thread();

}  // namespace moirai::proto::detail

#include "vp_stack.h"

#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <new>
#include <string>

#include "moirai/proto_runtime/virtual_processor.h"
#include "sanitizer_fiber.h"

namespace moirai::proto::detail {

namespace {

// A VP stack's mapping, from its lowest address: a read-only header page, the rest of the guard
// span unmapped for access (PROT_NONE), the stack, and at its top the owner slot. The mapping
// starts on a kGuardSpan boundary, so the handler finds the header of the guard a fault hit by
// rounding the fault's address down.
constexpr std::uint64_t kMagic = 0x5653'4941'5249'4f4dULL;  // "MOIRAIVS"
constexpr std::size_t kOwnerSlot = 64;  // above the stack's first frame: the VP animated on it

struct MappingHeader {
  std::uint64_t magic;
  std::size_t total;  // bytes mapped: header, guard, stack and owner slot
};

std::size_t page_size() {
  static const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  return page;
}

char* align_up(char* at, std::size_t alignment) {
  const std::uintptr_t address = reinterpret_cast<std::uintptr_t>(at);
  return at + ((alignment - address % alignment) % alignment);
}

#if !MOIRAI_ASAN

struct sigaction previous_action;  // SIGSEGV's action before ours: faults outside VP guards

// read_own copies `size` bytes at `from` without faulting: the handler cannot know that an
// address it rounded down to is mapped.
bool read_own(void* to, std::uintptr_t from, std::size_t size) noexcept {
  iovec local{to, size};
  iovec remote{reinterpret_cast<void*>(from), size};
  return ::process_vm_readv(::getpid(), &local, 1, &remote, 1, 0) == static_cast<ssize_t>(size);
}

// Message is a fixed buffer the handler formats into: no allocation, no stdio in a handler.
struct Message {
  char text[768];
  std::size_t length = 0;
  void add(const char* s, std::size_t n) noexcept {
    n = std::min(n, sizeof(text) - length);
    std::memcpy(text + length, s, n);
    length += n;
  }
  void add(const char* s) noexcept { add(s, std::strlen(s)); }
  void add_number(std::uint64_t value, unsigned base) noexcept {
    char digits[24];
    std::size_t n = 0;
    do {
      digits[n++] = "0123456789abcdef"[value % base];
      value /= base;
    } while (value != 0);
    while (n > 0) add(&digits[--n], 1);
  }
};

// end_by_default ends the process by SIGSEGV's default action (a core dump where they are on):
// raised here, the signal waits until the handler returns (it is blocked meanwhile), so it ends
// a signal sent with kill as surely as a fault.
void end_by_default(int signal) noexcept {
  struct sigaction fallback {};
  fallback.sa_handler = SIG_DFL;
  sigemptyset(&fallback.sa_mask);
  ::sigaction(signal, &fallback, nullptr);
  ::raise(signal);
}

void pass_on(int signal, siginfo_t* info, void* context) noexcept {
  if ((previous_action.sa_flags & SA_SIGINFO) != 0 && previous_action.sa_sigaction != nullptr) {
    previous_action.sa_sigaction(signal, info, context);
    return;
  }
  if (previous_action.sa_handler != SIG_DFL && previous_action.sa_handler != SIG_IGN) {
    previous_action.sa_handler(signal);
    return;
  }
  end_by_default(signal);
}

void on_segv(int signal, siginfo_t* info, void* context) {
  const std::uintptr_t fault = reinterpret_cast<std::uintptr_t>(info->si_addr);
  const std::uintptr_t start = fault - fault % kGuardSpan;
  MappingHeader header{};
  const VirtualProcessor* owner = nullptr;
  if (!read_own(&header, start, sizeof(header)) || header.magic != kMagic ||
      !read_own(&owner, start + header.total - kOwnerSlot, sizeof(owner))) {
    pass_on(signal, info, context);
    return;
  }
  Message message;
  message.add("moirai: VP stack overflow: ");
  if (owner != nullptr) {
    message.add("VP ");
    message.add_number(owner->id(), 10);
    message.add(" '");
    const std::string& name = owner->name();
    message.add(name.data(), std::min<std::size_t>(name.size(), 200));
    message.add("'");
  } else {
    message.add("a VP");
  }
  message.add(" used up its stack of ");
  message.add_number(header.total - kGuardSpan, 10);
  message.add(" bytes (it touched 0x");
  message.add_number(fault, 16);
  message.add(", in the guard below the stack). Give it a larger stack: the stack_size of the "
              "options it was created with, or of the run's options for every VP. Ending the "
              "process.\n");
  [[maybe_unused]] const ssize_t written = ::write(STDERR_FILENO, message.text, message.length);
  end_by_default(signal);
}

void install_handler() {
  struct sigaction action {};
  action.sa_sigaction = &on_segv;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGSEGV, &action, &previous_action);
}

// A thread's alternate signal stack is given back when the thread ends, by the destructor of a
// pthread key: a thread_local's destructor would do, but glibc registers one with an allocation
// and ends the process when that fails ("failed to register TLS destructor"), which a run out of
// memory must not; setting a key's value fails with an error instead.
constexpr std::size_t kAltStackSize = 64 * 1024;
pthread_key_t alt_stack_key;

extern "C" void free_alt_stack(void* memory) {
  stack_t off{};
  off.ss_flags = SS_DISABLE;
  ::sigaltstack(&off, nullptr);
  ::munmap(memory, kAltStackSize);
}

// give_alt_stack gives the calling thread an alternate signal stack, unless it has one; without
// one (no memory) a VP stack overflow on this thread is only the fault, not the report.
void give_alt_stack() {
  stack_t current{};
  if (::sigaltstack(nullptr, &current) == 0 && (current.ss_flags & SS_DISABLE) == 0) return;  // has one
  void* memory = ::mmap(nullptr, kAltStackSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) return;
  stack_t alternate{};
  alternate.ss_sp = memory;
  alternate.ss_size = kAltStackSize;
  if (::pthread_setspecific(alt_stack_key, memory) != 0) {
    ::munmap(memory, kAltStackSize);
    return;
  }
  if (::sigaltstack(&alternate, nullptr) != 0) {
    ::pthread_setspecific(alt_stack_key, nullptr);
    ::munmap(memory, kAltStackSize);
  }
}

#endif  // !MOIRAI_ASAN

}  // namespace

boost::context::stack_context map_vp_stack(std::size_t size) {
  const std::size_t page = page_size();
  const std::size_t usable = (std::max(size, kOwnerSlot + page) + page - 1) / page * page;
  const std::size_t total = kGuardSpan + usable;
  // One guard span more than needed, so that a kGuardSpan boundary lies inside; the ends are
  // given back.
  void* mapped = ::mmap(nullptr, total + kGuardSpan, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  if (mapped == MAP_FAILED) throw std::bad_alloc();
  char* const begin = static_cast<char*>(mapped);
  char* const end = begin + total + kGuardSpan;
  char* const start = align_up(begin, kGuardSpan);
  if (start > begin) ::munmap(begin, static_cast<std::size_t>(start - begin));
  if (end > start + total) ::munmap(start + total, static_cast<std::size_t>(end - (start + total)));
  new (start) MappingHeader{kMagic, total};
  if (::mprotect(start, page, PROT_READ) != 0 ||
      ::mprotect(start + page, kGuardSpan - page, PROT_NONE) != 0) {
    ::munmap(start, total);
    throw std::bad_alloc();
  }
  boost::context::stack_context stack{};
  stack.size = total - kOwnerSlot;
  stack.sp = start + stack.size;
  set_stack_owner(stack, nullptr);
  return stack;
}

void unmap_vp_stack(boost::context::stack_context& stack) noexcept {
  ::munmap(static_cast<char*>(stack.sp) - stack.size, stack.size + kOwnerSlot);
}

void set_stack_owner(const boost::context::stack_context& stack, const VirtualProcessor* owner) noexcept {
  std::memcpy(stack.sp, &owner, sizeof(owner));
}

void watch_stack_overflows_on_this_thread() {
#if !MOIRAI_ASAN
  static std::once_flag installed;
  std::call_once(installed, [] {
    install_handler();
    ::pthread_key_create(&alt_stack_key, free_alt_stack);
  });
  give_alt_stack();
#endif
}

}  // namespace moirai::proto::detail

// A VP that overflows its stack ends the process with a message naming it and its stack size
// (proto_runtime/src/vp_stack.h), whether its frames step into the guard below the stack one
// page at a time or jump past it in one large frame; a fault elsewhere keeps its usual end.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mman.h>

#include <cstddef>
#include <cstdio>

#include "moirai/ssr/ssr.h"
#include "support/sanitizers.h"

// AddressSanitizer owns SIGSEGV (its sigaction interceptor refuses other handlers) and reports a
// stack overflow itself, without the VP's name: the runtime's report is compiled out there.

namespace moirai::test {
namespace {

constexpr std::size_t kStack = 64 * 1024;

// recurse holds a frame of Frame bytes per call, written at its lowest byte first, so each call
// moves Frame bytes down the stack (more than a page: a one-page guard would be jumped).
template <std::size_t Frame>
[[gnu::noinline]] unsigned recurse(unsigned depth) {
  volatile char frame[Frame];
  frame[0] = static_cast<char>(depth);
  frame[Frame - 1] = static_cast<char>(depth);
  if (depth == 0) return frame[0];
  return recurse<Frame>(depth - 1) + frame[Frame / 2];
}

// overflow runs one VP named "deep" with a stack of kStack bytes that recurses `depth` times.
template <std::size_t Frame>
void overflow(unsigned depth) {
  ssr::run(
      [depth](ssr::Context& ctx) {
        ctx.create_vp([depth](ssr::Context&) { std::printf("%u\n", recurse<Frame>(depth)); },
                      {.name = "deep", .stack_size = kStack});
      },
      {.cores = 1});
}

class VpStackOverflow : public ::testing::Test {
 protected:
  void SetUp() override {
#ifdef MOIRAI_TEST_ASAN
    GTEST_SKIP() << "AddressSanitizer owns SIGSEGV and reports stack overflows itself";
#endif
    GTEST_FLAG_SET(death_test_style, "threadsafe");
  }
};

TEST_F(VpStackOverflow, FramesOfTwoPagesAreReportedNamingTheVp) {
  EXPECT_DEATH(overflow<8 * 1024>(1000),
               "moirai: VP stack overflow: VP [0-9]+ 'deep' used up its stack of 65536 bytes");
}

TEST_F(VpStackOverflow, AFrameLargerThanTheGuardIsCaughtByItsProbes) {
  // 128 KiB in one frame lands past the 64 KiB guard: only the stack probes see it.
  EXPECT_DEATH(overflow<128 * 1024>(1),
               "moirai: VP stack overflow: VP [0-9]+ 'deep' used up its stack of 65536 bytes");
}

TEST_F(VpStackOverflow, AFaultOutsideAVpStackEndsAsBefore) {
  EXPECT_EXIT(
      {
        overflow<64>(10);  // a run, so the handler is installed; this VP fits its stack
        void* page = mmap(nullptr, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        std::fprintf(stderr, "faulting outside a VP\n");
        *static_cast<volatile int*>(page) = 1;
      },
      ::testing::KilledBySignal(SIGSEGV), "faulting outside a VP\n$");  // and nothing after
}

}  // namespace
}  // namespace moirai::test

// The front-ends' symboliser (instrument/src/code_symbols/code_symbols.h): a return address in this test binary
// (compiled with -g) comes back as this file, the line of the call and the calling function.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "code_symbols.h"

namespace {

using moirai::CallSite;
using moirai::symbols::CodeSymbols;

// return_address is where a call to it returns to, as OMPT's codeptr_ra is for a runtime call.
#if defined(__clang__)
[[gnu::noinline]]
#else
[[gnu::noinline, gnu::noclone]]
#endif
const void* return_address() {
  asm volatile("" ::: "memory");  // a side effect: two calls stay two calls
  return __builtin_return_address(0);
}

bool ends_with(std::string_view text, std::string_view end) { return text.ends_with(end); }

TEST(CodeSymbols, AReturnAddressIsTheFileAndLineOfItsCall) {
  const void* here = return_address(); const std::uint32_t call_line = __LINE__;
  CodeSymbols symbols;
  const CallSite site = symbols.call_site(here);
  EXPECT_TRUE(ends_with(site.file, "tests/code_symbols_test.cpp")) << site.file;
  EXPECT_EQ(site.line, call_line);
  // Demangled: the test body's C++ name, not _ZN...
  EXPECT_NE(std::string_view(site.function).find("CodeSymbols_AReturnAddressIsTheFileAndLineOfItsCall_Test::TestBody"),
            std::string_view::npos)
      << site.function;
}

TEST(CodeSymbols, OneFileIsOnePointerAndAnAddressIsResolvedOnce) {
  const void* first = return_address(); const std::uint32_t first_line = __LINE__;
  const void* second = return_address(); const std::uint32_t second_line = __LINE__;
  CodeSymbols symbols;
  const CallSite a = symbols.call_site(first);
  const CallSite b = symbols.call_site(second);
  EXPECT_EQ(a.line, first_line);
  EXPECT_EQ(b.line, second_line);
  EXPECT_EQ(a.file, b.file);  // the same pointer: the recorder keys call sites by it
  const CallSite again = symbols.call_site(first);
  EXPECT_EQ(again.file, a.file);
  EXPECT_EQ(again.function, a.function);
  // Another symboliser hands out the same text too: the strings outlive any one of them.
  CodeSymbols other;
  EXPECT_EQ(other.call_site(first).file, a.file);
}

TEST(CodeSymbols, AnUnknownAddressIsAQuestionMarkAtLineZero) {
  CodeSymbols symbols;
  const CallSite none = symbols.call_site(nullptr);
  EXPECT_STREQ(none.file, "?");
  EXPECT_EQ(none.line, 0u);
  // An address no module maps: the stack.
  int local = 0;
  const CallSite stack = symbols.call_site(&local);
  EXPECT_STREQ(stack.file, "?");
  EXPECT_EQ(stack.line, 0u);
  EXPECT_STREQ(stack.function, "?");
}

TEST(CodeSymbols, ALibraryWithoutLineInformationNamesItsModule) {
  CodeSymbols symbols;
  // Inside libc's getpid (Debian ships libc without DWARF unless libc6-dbg is installed; no
  // sanitizer intercepts getpid, so the address is libc's).
  const auto* in_libc = reinterpret_cast<const char*>(&::getpid) + 1;
  const CallSite site = symbols.call_site(in_libc);
  ASSERT_NE(site.file, nullptr);
  if (site.line == 0) {
    EXPECT_NE(std::string_view(site.file).find("libc"), std::string_view::npos) << site.file;
  }
}

TEST(CodeSymbols, ThreadsResolvingTheSameAddressesGetTheSameSites) {
  std::vector<const void*> addresses;
  for (int i = 0; i < 4; ++i) addresses.push_back(return_address());
  CodeSymbols symbols;
  std::vector<std::vector<CallSite>> seen(4);
  std::vector<std::thread> threads;
  for (auto& mine : seen) {
    threads.emplace_back([&symbols, &addresses, &mine] {
      for (const void* address : addresses) mine.push_back(symbols.call_site(address));
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (const auto& mine : seen) {
    ASSERT_EQ(mine.size(), addresses.size());
    for (std::size_t i = 0; i < addresses.size(); ++i) {
      EXPECT_EQ(mine[i].file, seen[0][i].file);
      EXPECT_EQ(mine[i].line, seen[0][i].line);
      EXPECT_TRUE(ends_with(mine[i].file, "tests/code_symbols_test.cpp")) << mine[i].file;
    }
  }
}

}  // namespace

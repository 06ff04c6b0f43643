// proto::UniqueFunction, the owning callable behind every VP body: it holds move-only callables,
// small ones inline and large ones on the heap, and destroys each exactly once.
#include <gtest/gtest.h>

#include <array>
#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "moirai/proto_runtime/unique_function.h"

namespace moirai::test {
namespace {

using proto::UniqueFunction;

// Live counts the instances alive, so a test sees every copy destroyed exactly once.
struct Live {
  explicit Live(int* counter) : count(counter) { ++*count; }
  Live(Live&& other) noexcept : count(other.count) { ++*count; }
  Live(const Live&) = delete;
  ~Live() { --*count; }
  int* count;
};

static_assert(!std::is_copy_constructible_v<UniqueFunction<void()>>);
static_assert(std::is_nothrow_move_constructible_v<UniqueFunction<void()>>);

TEST(UniqueFunction, CallsAMoveOnlyCallable) {
  auto owned = std::make_unique<int>(20);
  UniqueFunction<int(int)> add([owned = std::move(owned)](int x) { return *owned + x; });
  ASSERT_TRUE(add);
  EXPECT_EQ(add(22), 42);
}

TEST(UniqueFunction, PassesArgumentsByReference) {
  UniqueFunction<void(std::string&)> append([](std::string& text) { text += "!"; });
  std::string text = "hi";
  append(text);
  EXPECT_EQ(text, "hi!");
}

TEST(UniqueFunction, DestroysASmallCallableOnceThroughMoves) {
  int live = 0;
  {
    UniqueFunction<int()> first([tracker = Live(&live)] { return *tracker.count; });
    EXPECT_EQ(live, 1);
    UniqueFunction<int()> second(std::move(first));
    EXPECT_FALSE(first);  // NOLINT(bugprone-use-after-move): moving empties the source
    EXPECT_EQ(live, 1);
    EXPECT_EQ(second(), 1);
  }
  EXPECT_EQ(live, 0);
}

TEST(UniqueFunction, KeepsALargeCallableOnTheHeapAndDestroysItOnce) {
  int live = 0;
  std::array<char, 256> payload{};
  payload[255] = 'z';
  {
    UniqueFunction<char(), 32> first([tracker = Live(&live), payload] { return payload[255]; });
    UniqueFunction<char(), 32> second;
    second = std::move(first);
    EXPECT_FALSE(first);  // NOLINT(bugprone-use-after-move)
    EXPECT_EQ(second(), 'z');
    EXPECT_EQ(live, 1);
  }
  EXPECT_EQ(live, 0);
}

TEST(UniqueFunction, AssignmentDestroysTheCallableItReplaces) {
  int old_live = 0;
  int new_live = 0;
  UniqueFunction<void()> f([tracker = Live(&old_live)] {});
  f = UniqueFunction<void()>([tracker = Live(&new_live)] {});
  EXPECT_EQ(old_live, 0);
  EXPECT_EQ(new_live, 1);
  f = nullptr;
  EXPECT_EQ(new_live, 0);
  EXPECT_FALSE(f);
}

TEST(UniqueFunction, AnEmptyFunctionPointerOrStdFunctionStaysEmpty) {
  void (*none)() = nullptr;
  EXPECT_FALSE(UniqueFunction<void()>(none));
  EXPECT_FALSE(UniqueFunction<void()>(std::function<void()>()));
  int calls = 0;
  UniqueFunction<void()> wrapped(std::function<void()>([&calls] { ++calls; }));
  ASSERT_TRUE(wrapped);
  wrapped();
  EXPECT_EQ(calls, 1);
}

TEST(UniqueFunction, HoldsACallableWhoseMoveMayThrow) {
  // Not nothrow-movable, so it lives on the heap, where moving the function moves a pointer.
  struct Throwing {
    Throwing() = default;
    Throwing(Throwing&&) noexcept(false) {}
    int operator()() const { return 7; }
  };
  UniqueFunction<int()> f(Throwing{});
  UniqueFunction<int()> g(std::move(f));
  EXPECT_EQ(g(), 7);
}

}  // namespace
}  // namespace moirai::test

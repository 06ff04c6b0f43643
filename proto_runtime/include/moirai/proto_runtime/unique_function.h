// UniqueFunction: an owning, move-only callable, so a VP body may capture move-only values.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

namespace moirai::proto {

template <class Signature, std::size_t InlineBytes = 4 * sizeof(void*)>
class UniqueFunction;

namespace detail {
// may_be_null is true for the callables that can be empty: function and member pointers and
// std::function.
template <class F>
inline constexpr bool may_be_null = std::is_pointer_v<F> || std::is_member_pointer_v<F>;
template <class Signature>
inline constexpr bool may_be_null<std::function<Signature>> = true;
}  // namespace detail

// UniqueFunction<R(Args...)> holds any callable that is invocable as R(Args...) and
// move-constructible, copyable or not (std::function demands copies; std::move_only_function is
// C++23). A callable of up to InlineBytes whose move cannot throw lives inside the object, a
// larger one on the heap. Moving leaves the source empty; calling an empty one is undefined.
template <class R, class... Args, std::size_t InlineBytes>
class UniqueFunction<R(Args...), InlineBytes> {
 public:
  // UniqueFunction() is empty.
  UniqueFunction() noexcept = default;
  // UniqueFunction(nullptr) is empty.
  UniqueFunction(std::nullptr_t) noexcept {}  // NOLINT(google-explicit-constructor)

  // UniqueFunction(f) takes `f` (moved or copied in) as its callable.
  template <class F>
    requires(!std::is_same_v<std::remove_cvref_t<F>, UniqueFunction> &&
             std::is_constructible_v<std::decay_t<F>, F> &&
             std::is_invocable_r_v<R, std::decay_t<F>&, Args...>)
  UniqueFunction(F&& f) {  // NOLINT(google-explicit-constructor): a drop-in for std::function
    using Stored = std::decay_t<F>;
    if constexpr (detail::may_be_null<std::remove_cvref_t<F>>) {  // not a function reference
      if (f == nullptr) return;  // an empty function pointer or std::function stays empty
    }
    if constexpr (kInline<Stored>) {
      ::new (static_cast<void*>(storage_)) Stored(std::forward<F>(f));
      ops_ = &kInlineOps<Stored>;
    } else {
      ::new (static_cast<void*>(storage_)) Stored*(new Stored(std::forward<F>(f)));
      ops_ = &kHeapOps<Stored>;
    }
  }

  // UniqueFunction(other) takes other's callable, leaving other empty.
  UniqueFunction(UniqueFunction&& other) noexcept : ops_(other.ops_) {
    if (ops_ != nullptr) ops_->relocate(other.storage_, storage_);
    other.ops_ = nullptr;
  }
  // operator= destroys the callable held, then takes other's.
  UniqueFunction& operator=(UniqueFunction&& other) noexcept {
    if (this != &other) {
      reset();
      ops_ = other.ops_;
      if (ops_ != nullptr) ops_->relocate(other.storage_, storage_);
      other.ops_ = nullptr;
    }
    return *this;
  }
  UniqueFunction(const UniqueFunction&) = delete;
  UniqueFunction& operator=(const UniqueFunction&) = delete;
  ~UniqueFunction() { reset(); }

  // operator bool is true when a callable is held.
  explicit operator bool() const noexcept { return ops_ != nullptr; }
  // operator() calls the held callable.
  R operator()(Args... args) { return ops_->invoke(storage_, std::forward<Args>(args)...); }

 private:
  struct Ops {
    R (*invoke)(void* storage, Args&&... args);
    void (*relocate)(void* from, void* to) noexcept;  // moves into `to` and destroys `from`
    void (*destroy)(void* storage) noexcept;
  };

  template <class F>
  static constexpr bool kInline = sizeof(F) <= InlineBytes &&
                                  alignof(F) <= alignof(std::max_align_t) &&
                                  std::is_nothrow_move_constructible_v<F>;

  template <class F>
  static constexpr Ops kInlineOps{
      [](void* storage, Args&&... args) -> R {
        return std::invoke(*std::launder(static_cast<F*>(storage)), std::forward<Args>(args)...);
      },
      [](void* from, void* to) noexcept {
        F* source = std::launder(static_cast<F*>(from));
        ::new (to) F(std::move(*source));
        source->~F();
      },
      [](void* storage) noexcept { std::launder(static_cast<F*>(storage))->~F(); }};

  template <class F>
  static constexpr Ops kHeapOps{
      [](void* storage, Args&&... args) -> R {
        return std::invoke(**std::launder(static_cast<F**>(storage)), std::forward<Args>(args)...);
      },
      [](void* from, void* to) noexcept { ::new (to) F*(*std::launder(static_cast<F**>(from))); },
      [](void* storage) noexcept { delete *std::launder(static_cast<F**>(storage)); }};

  void reset() noexcept {
    if (ops_ != nullptr) ops_->destroy(storage_);
    ops_ = nullptr;
  }

  alignas(std::max_align_t) unsigned char storage_[InlineBytes < sizeof(void*) ? sizeof(void*)
                                                                                : InlineBytes];
  const Ops* ops_ = nullptr;
};

}  // namespace moirai::proto

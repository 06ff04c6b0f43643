// Lock domains: which parts of its language's state a request's handler reads and writes.
#pragma once

#include <array>
#include <cstddef>

#include "moirai/core/ids.h"

namespace moirai::proto {

// LockDomains is the set of domains one request names: none (the handler touches no shared
// language state), up to kMax keys, or the whole language. The runtime serialises the handlers of
// requests whose sets meet and runs the others at the same time.
class LockDomains {
 public:
  static constexpr std::size_t kMax = 4;

  // whole_language is every domain at once: the handler is alone with all of the language's state.
  static constexpr LockDomains whole_language() noexcept { return LockDomains(true); }
  // none names no domain: the handler takes no lock.
  static constexpr LockDomains none() noexcept { return LockDomains(false); }
  // of names the given keys; more than kMax keys name the whole language.
  template <class... Keys>
  static constexpr LockDomains of(Keys... keys) noexcept {
    LockDomains set(false);
    (set.add(static_cast<LockDomain>(keys)), ...);
    return set;
  }

  // add names one more key (the whole language once kMax are named, or for kWholeLanguage).
  constexpr void add(LockDomain key) noexcept {
    if (whole_) return;
    if (key == kWholeLanguage || count_ == kMax) {
      whole_ = true;
      return;
    }
    keys_[count_++] = key;
  }
  constexpr bool whole() const noexcept { return whole_; }
  constexpr std::size_t size() const noexcept { return count_; }
  constexpr LockDomain operator[](std::size_t k) const noexcept { return keys_[k]; }

 private:
  explicit constexpr LockDomains(bool whole) noexcept : whole_(whole) {}
  std::array<LockDomain, kMax> keys_{};
  std::size_t count_ = 0;
  bool whole_ = false;
};

}  // namespace moirai::proto

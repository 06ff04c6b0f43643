// The runtime's lock domains: a fixed set of padded locks onto which languages' domain keys map.
#pragma once

#include <array>
#include <bit>
#include <cstdint>

#include "moirai/proto_runtime/lock_domains.h"
#include "moirai/proto_runtime/spin_lock.h"

namespace moirai::proto::detail {

// DomainLocks maps domain keys onto kStripes locks, each on a cache line of its own with the core
// that last took it (for the trace's hand-over arcs). A request's stripes are taken in ascending
// order, so two requests that share two stripes never each hold one the other waits for; keys
// that share a stripe only serialise more than they must.
class DomainLocks {
 public:
  static constexpr unsigned kStripes = 64;
  using Mask = std::uint64_t;  // bit s: stripe s

  // stripe_of spreads keys (addresses, ids) over the stripes by Fibonacci hashing.
  static unsigned stripe_of(LockDomain key) noexcept {
    return static_cast<unsigned>((key * 0x9E3779B97F4A7C15ull) >> 58);
  }
  static Mask mask_of(const LockDomains& set) noexcept {
    if (set.whole()) return ~Mask{0};
    Mask mask = 0;
    for (std::size_t k = 0; k < set.size(); ++k) mask |= Mask{1} << stripe_of(set[k]);
    return mask;
  }

  // take holds every stripe of `set` for `core`. Around a stripe it has to wait for it calls
  // waiting() and then waited(key, releasing core), with the key of `set` that named the stripe.
  template <class Waiting, class Waited>
  Mask take(CoreId core, const LockDomains& set, Waiting&& waiting, Waited&& waited) {
    const Mask mask = mask_of(set);
    for (Mask rest = mask; rest != 0; rest &= rest - 1) {
      Stripe& stripe = stripes_[std::countr_zero(rest)];
      if (!stripe.lock.try_lock()) [[unlikely]] {
        waiting();
        stripe.lock.lock();
        waited(key_for(set, std::countr_zero(rest)), stripe.holder);
      }
      stripe.holder = core;
    }
    return mask;
  }
  void release(Mask mask) noexcept {
    for (; mask != 0; mask &= mask - 1) stripes_[std::countr_zero(mask)].lock.unlock();
  }

 private:
  struct alignas(64) Stripe {
    SpinLock lock;
    CoreId holder = 0;  // the core holding it, or that held it last (written under it)
  };
  // key_for is the key of `set` that maps to `stripe` (kWholeLanguage for the whole language).
  static LockDomain key_for(const LockDomains& set, int stripe) noexcept {
    for (std::size_t k = 0; k < set.size(); ++k) {
      if (static_cast<int>(stripe_of(set[k])) == stripe) return set[k];
    }
    return kWholeLanguage;
  }
  std::array<Stripe, kStripes> stripes_;
};

}  // namespace moirai::proto::detail

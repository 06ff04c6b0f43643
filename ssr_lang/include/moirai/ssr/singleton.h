// Singleton: a block of code that runs once, in the first VP to reach it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "moirai/core/ids.h"

namespace moirai::proto {
class VirtualProcessor;
}

namespace moirai::ssr {

class SsrLanguage;

// Singleton identifies one singleton block; pass the same object from every VP that may reach
// the block (Context::singleton). It must outlive the run's use of it. Its block runs once per
// run: a Singleton with static storage runs its block again in the next run.
class Singleton {
 public:
  Singleton() : Singleton("singleton") {}
  explicit Singleton(std::string name) : name_(std::move(name)) {}
  Singleton(const Singleton&) = delete;
  Singleton& operator=(const Singleton&) = delete;
  // name is the singleton's display name in reports.
  const std::string& name() const noexcept { return name_; }

 private:
  friend class SsrLanguage;  // the state below is touched only by its handlers, in its domain
  enum class State { fresh, running, done };
  std::string name_;
  std::uint64_t run_ = 0;  // the run that state_ belongs to
  State state_ = State::fresh;
  VpId owner_ = 0;
  UnitId done_unit_ = 0;     // the unit whose end completed the block
  std::uint64_t group_ = 0;  // its predecessors and successors in the trace
  std::vector<proto::VirtualProcessor*> waiters_;
};

}  // namespace moirai::ssr

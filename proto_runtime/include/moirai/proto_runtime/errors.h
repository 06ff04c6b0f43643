// The errors the proto-runtime reports to applications and to the caller of Runtime::run.
#pragma once

#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include "moirai/core/ids.h"

namespace moirai::proto {

// format_site renders a call site as "file:line".
std::string format_site(const CallSite& site);

// UsageError is API misuse (a construct used wrongly); its message names the call site.
class UsageError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

// ConfigError is a runtime configuration the machine cannot honour (e.g. more cores than it has).
class ConfigError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// BlockedVp describes one VP that was waiting when a deadlock stopped the run.
struct BlockedVp {
  VpId vp = 0;
  std::string name;
  std::string construct;  // display name of the construct it waits in
  std::string waits_for;  // what it waits for, in the language's words (may be empty)
  CallSite site;          // where it called the construct
};

// DeadlockError ends a run in which no VP was running or ready while some were still blocked.
class DeadlockError : public std::runtime_error {
 public:
  explicit DeadlockError(std::vector<BlockedVp> blocked);
  // blocked lists every VP that was waiting, in creation order.
  const std::vector<BlockedVp>& blocked() const noexcept { return blocked_; }

 private:
  std::vector<BlockedVp> blocked_;
};

// VpFailure ends a run in which an exception escaped a VP; cause() is that exception.
class VpFailure : public std::runtime_error {
 public:
  VpFailure(VpId vp, std::string vp_name, CallSite created_at, std::exception_ptr cause);
  VpId vp() const noexcept { return vp_; }
  const std::string& vp_name() const noexcept { return vp_name_; }
  const CallSite& created_at() const noexcept { return created_at_; }
  std::exception_ptr cause() const noexcept { return cause_; }

 private:
  VpId vp_;
  std::string vp_name_;
  CallSite created_at_;
  std::exception_ptr cause_;
};

}  // namespace moirai::proto

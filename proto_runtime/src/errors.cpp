#include "moirai/proto_runtime/errors.h"

#include <string>
#include <utility>

namespace moirai::proto {

std::string format_site(const CallSite& site) {
  return std::string(site.file) + ":" + std::to_string(site.line);
}

namespace {

std::string deadlock_message(const std::vector<BlockedVp>& blocked) {
  std::string text = "deadlock: no VP is running or ready, and " + std::to_string(blocked.size()) +
                     (blocked.size() == 1 ? " VP is" : " VPs are") + " blocked:";
  for (const BlockedVp& vp : blocked) {
    text += "\n  VP " + std::to_string(vp.vp) + " '" + vp.name + "' waits in " + vp.construct;
    if (!vp.waits_for.empty()) text += " for " + vp.waits_for;
    text += " at " + format_site(vp.site);
  }
  return text;
}

std::string failure_message(VpId vp, const std::string& name, const CallSite& created_at,
                            const std::exception_ptr& cause) {
  std::string what = "an exception of unknown type";
  try {
    if (cause) std::rethrow_exception(cause);
  } catch (const std::exception& error) {
    what = error.what();
  } catch (...) {
  }
  return "VP " + std::to_string(vp) + " '" + name + "' (created at " + format_site(created_at) +
         ") failed: " + what;
}

}  // namespace

DeadlockError::DeadlockError(std::vector<BlockedVp> blocked)
    : std::runtime_error(deadlock_message(blocked)), blocked_(std::move(blocked)) {}

VpFailure::VpFailure(VpId vp, std::string vp_name, CallSite created_at, std::exception_ptr cause)
    : std::runtime_error(failure_message(vp, vp_name, created_at, cause)),
      vp_(vp),
      vp_name_(std::move(vp_name)),
      created_at_(created_at),
      cause_(std::move(cause)) {}

}  // namespace moirai::proto

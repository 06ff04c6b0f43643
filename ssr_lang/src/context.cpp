#include "moirai/ssr/context.h"

#include <cstdio>
#include <cstdlib>

#include "moirai/proto_runtime/request.h"
#include "moirai/proto_runtime/virtual_processor.h"

namespace moirai::ssr {

VpRef Context::self() const noexcept { return VpRef(vp_.id()); }

CoreId Context::core() const noexcept { return vp_.last_core(); }

bool Context::call(detail::Construct kind, void* payload, const Where& where) {
  proto::Request request;
  request.kind = kind;
  request.payload = payload;
  request.site = CallSite::from(where);
  return vp_.call_runtime(request);
}

void Context::skipped_receive(const Where& where) {
  std::fprintf(stderr,
               "moirai: fatal: a receive at %s:%u ran in a destructor while a stopped run unwound "
               "its VP, and its message type has no default value to return\n",
               where.file_name(), where.line());
  std::abort();
}

VpRef Context::create_vp(VpBody body, CreateOptions options, Where where) {
  detail::CreateVp call{&body, &options};
  (void)this->call(detail::kCreateVp, &call, where);
  return VpRef(call.created);
}

void Context::end_vp(Where where) { vp_.end_self(CallSite::from(where)); }

void Context::phase_begin(const char* name) { vp_.mark_phase(name, true); }

void Context::phase_end(const char* name) { vp_.mark_phase(name, false); }

void Context::charge_work(std::uint64_t cycles) noexcept { vp_.charge_work(cycles); }

bool Context::singleton_enter(Singleton& s, const Where& where) {
  detail::SingletonCall call{&s};
  (void)this->call(detail::kSingletonEnter, &call, where);
  return call.run_body;
}

void Context::singleton_done(Singleton& s, const Where& where) {
  detail::SingletonCall call{&s};
  (void)this->call(detail::kSingletonDone, &call, where);
}

}  // namespace moirai::ssr

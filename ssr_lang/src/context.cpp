#include "moirai/ssr/context.h"

#include "moirai/proto_runtime/request.h"
#include "moirai/proto_runtime/virtual_processor.h"

namespace moirai::ssr {

VpRef Context::self() const noexcept { return VpRef(vp_.id()); }

CoreId Context::core() const noexcept { return vp_.last_core(); }

void Context::call(detail::Construct kind, void* payload, const Where& where) {
  proto::Request request;
  request.kind = kind;
  request.payload = payload;
  request.site = CallSite::from(where);
  vp_.call_runtime(request);
}

VpRef Context::create_vp(std::function<void(Context&)> body, CreateOptions options, Where where) {
  detail::CreateVp call{&body, &options};
  this->call(detail::kCreateVp, &call, where);
  return VpRef(call.created);
}

void Context::end_vp(Where where) { vp_.end_self(CallSite::from(where)); }

bool Context::singleton_enter(Singleton& s, const Where& where) {
  detail::SingletonCall call{&s};
  this->call(detail::kSingletonEnter, &call, where);
  return call.run_body;
}

void Context::singleton_done(Singleton& s, const Where& where) {
  detail::SingletonCall call{&s};
  this->call(detail::kSingletonDone, &call, where);
}

}  // namespace moirai::ssr

// A request: what a VP hands the runtime when it calls a construct, ending its current unit.
#pragma once

#include <string>

#include "moirai/core/ids.h"

namespace moirai::proto {

class VirtualProcessor;

// kEndVp is the construct kind of the request the proto-runtime makes for a VP whose function
// returned (or that ended itself); languages number their own constructs from 1.
inline constexpr ConstructKind kEndVp = 0;

// Request is one construct call. It lives in the requesting VP's frame and stays valid until a
// handler makes that VP ready again; `payload` points to the language's construct-specific data.
struct Request {
  ConstructKind kind = kEndVp;
  void* payload = nullptr;
  VirtualProcessor* requester = nullptr;
  UnitId unit = 0;  // the unit that ended by making this request
  CallSite site;
  std::string error;  // set by RuntimeServices::fail; the construct then throws UsageError
};

}  // namespace moirai::proto

// The interface a language implements to run on the proto-runtime: handlers and an assigner.
#pragma once

#include <string>
#include <string_view>

#include "moirai/instrument/construct_role.h"
#include "moirai/instrument/ids.h"
#include "moirai/proto_runtime/assigner.h"
#include "moirai/proto_runtime/request.h"
#include "moirai/proto_runtime/runtime_services.h"

namespace moirai::proto {

// LanguagePlugin is a language's construct request handlers, its assigner and the language-owned
// state they share. The runtime calls every method under its runtime lock, after the requesting
// VP has fully suspended, so a plugin needs no locking of its own.
class LanguagePlugin {
 public:
  virtual ~LanguagePlugin() = default;
  // name is the language's display name.
  virtual std::string_view name() const = 0;
  // vp_created tells the language about a new VP (the seed included) before it is made ready,
  // so it can attach its per-VP state to vp.language_slot.
  virtual void vp_created(VirtualProcessor& /*vp*/) {}
  // construct_count is one more than the largest construct kind the language uses.
  virtual ConstructKind construct_count() const { return 1; }
  // construct_name is the display name of construct `kind` (kEndVp included).
  virtual std::string_view construct_name(ConstructKind kind) const = 0;
  // construct_role is what construct `kind` does to scheduling: the views find creations,
  // sends and exclusive sections by it (ConstructRole::other: none of those).
  virtual ConstructRole construct_role(ConstructKind /*kind*/) const { return ConstructRole::other; }
  // construct_colour is the Graphviz colour of its lines in the SCG and UCC ("": the views pick).
  virtual std::string_view construct_colour(ConstructKind /*kind*/) const { return {}; }
  // handle is the request handler for every construct: it updates constraints and makes VPs
  // ready. For kEndVp the VP has finished; it is destroyed right after handle returns.
  virtual void handle(Request& request, RuntimeServices& services) = 0;
  // describe_wait says what a VP blocked in `request` waits for, for deadlock reports.
  virtual std::string describe_wait(const Request& /*request*/) const { return {}; }
  // assigner is the language's assigner.
  virtual Assigner& assigner() = 0;
};

}  // namespace moirai::proto

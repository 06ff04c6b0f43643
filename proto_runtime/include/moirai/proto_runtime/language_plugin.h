// The interface a language implements to run on the proto-runtime: handlers and an assigner.
#pragma once

#include <string>
#include <string_view>

#include "moirai/core/ids.h"
#include "moirai/proto_runtime/assigner.h"
#include "moirai/proto_runtime/language_table.h"
#include "moirai/proto_runtime/lock_domains.h"
#include "moirai/proto_runtime/request.h"
#include "moirai/proto_runtime/runtime_services.h"

namespace moirai::proto {

// LanguagePlugin is a language's construct request handlers, its assigner and the language-owned
// state they share, with the table that describes it. The runtime calls handlers after the
// requesting VP has fully suspended, each as if alone on the state it touches: by default under
// one lock for the whole language (handlers and assigner alike), so a plugin needs no locking of
// its own; a plugin that names lock domains (names_domains) has the handlers of different domains
// run at the same time, and synchronises its assigner itself.
class LanguagePlugin {
 public:
  // LanguagePlugin keeps a reference to `table`, which must outlive the plugin.
  explicit LanguagePlugin(const LanguageTable& table) noexcept : table_(table) {}
  virtual ~LanguagePlugin() = default;
  LanguagePlugin(const LanguagePlugin&) = delete;
  LanguagePlugin& operator=(const LanguagePlugin&) = delete;

  // table is the language's name, constructs and default costs.
  const LanguageTable& table() const noexcept { return table_; }
  // name is the language's display name.
  std::string_view name() const noexcept { return table_.name; }
  // construct_name is the display name of construct `kind` (kEndVp included).
  std::string_view construct_name(ConstructKind kind) const noexcept {
    return kind < table_.constructs.size() ? std::string_view(table_.constructs[kind].name) : "unknown construct";
  }

  // vp_created tells the language about a new VP (the seed included) before it is made ready,
  // so it can attach its per-VP state to vp.language_slot; `core` is the core that creates it.
  // It runs inside the creating request's handler, under that request's domains.
  virtual void vp_created(VirtualProcessor& /*vp*/, CoreId /*core*/) {}
  // names_domains says that domains() names each request's lock domains and that the assigner
  // synchronises itself (the runtime calls it outside any lock, from any core). false: every
  // request is in the whole-language domain and the assigner runs under that one lock.
  virtual bool names_domains() const noexcept { return false; }
  // domains is the set of lock domains `request`'s handler reads and writes. The runtime calls it
  // outside any lock, so it reads only the request and what stays fixed while the VP waits in it.
  virtual LockDomains domains(const Request& /*request*/) const {
    return LockDomains::whole_language();
  }
  // describe_domain names `domain` in the program's words ("the mailbox of VP 3 'worker'"), for
  // the trace of a contended domain; empty when the language has no words for it.
  virtual std::string describe_domain(LockDomain /*domain*/) const { return {}; }
  // handle is the request handler for every construct: it updates constraints and makes VPs
  // ready. For kEndVp the VP has finished; it is destroyed right after handle returns.
  virtual void handle(Request& request, RuntimeServices& services) = 0;
  // describe_wait says what a VP blocked in `request` waits for, for deadlock reports.
  virtual std::string describe_wait(const Request& /*request*/) const { return {}; }
  // assigner is the language's assigner.
  virtual Assigner& assigner() = 0;

 private:
  const LanguageTable& table_;
};

}  // namespace moirai::proto

// What a language hands the proto-runtime once: its name, its construct table, its choices for
// the views and replay (words, placement), its default costs.
#pragma once

#include <initializer_list>
#include <string>
#include <vector>

#include "moirai/core/ids.h"
#include "moirai/core/language_info.h"
#include "moirai/proto_runtime/cost_model.h"

namespace moirai::proto {

// ConstructRow is one construct as a language lists it: the kind it stands for, and what the
// trace says of it (name, role, colour).
struct ConstructRow {
  ConstructKind kind;
  ConstructInfo info;
};

// LanguageTable describes a language as data, so the runtime, the recorder and a simulated
// machine read one table instead of asking the plugin construct by construct. A language keeps
// one table for its lifetime (a function-local static) and hands its plugin a reference. What
// the trace says of the language (its name, constructs by kind, words and placement) is the
// LanguageInfo it is.
struct LanguageTable : LanguageInfo {
  // LanguageTable takes `rows` in kind order, kEndVp first; throws std::logic_error naming the
  // first row that stands for another kind than its place, or a word named twice or not at all.
  LanguageTable(std::string name, std::initializer_list<ConstructRow> rows,
                CostModel costs = CostModel::default_model(), LanguageChoices choices = {});
  // LanguageTable takes rows built at run time (a language read from a trace), on the same terms.
  LanguageTable(std::string name, const std::vector<ConstructRow>& rows,
                CostModel costs = CostModel::default_model(), LanguageChoices choices = {});

  // costs is the language's default model on a simulated machine: CostModel::default_model()
  // with the costs of its constructs' handlers (and of the communication after them) by name.
  CostModel costs;
};

}  // namespace moirai::proto

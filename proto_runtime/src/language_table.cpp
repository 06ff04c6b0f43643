#include "moirai/proto_runtime/language_table.h"

#include <stdexcept>
#include <utility>

namespace moirai::proto {

LanguageTable::LanguageTable(std::string name_, std::initializer_list<ConstructRow> rows, CostModel costs_,
                             LanguageChoices choices_)
    : LanguageTable(std::move(name_), std::vector<ConstructRow>(rows), std::move(costs_), std::move(choices_)) {}

LanguageTable::LanguageTable(std::string name_, const std::vector<ConstructRow>& rows, CostModel costs_,
                             LanguageChoices choices_)
    : LanguageInfo{std::move(name_), {}, std::move(choices_)}, costs(std::move(costs_)) {
  constructs.reserve(rows.size());
  for (const ConstructRow& row : rows) {
    if (row.kind != constructs.size()) {
      throw std::logic_error(name + "'s construct table lists '" + row.info.name + "' (kind " +
                             std::to_string(row.kind) + ") at kind " + std::to_string(constructs.size()));
    }
    constructs.push_back(row.info);
  }
  for (std::size_t w = 0; w < choices.words.size(); ++w) {
    const std::string& word = choices.words[w].name;
    if (word.empty() || word.find('\0') != std::string::npos) throw std::logic_error(name + " gives a word without a name");
    for (std::size_t earlier = 0; earlier < w; ++earlier) {
      if (choices.words[earlier].name == word) throw std::logic_error(name + " gives the word '" + word + "' twice");
    }
  }
}

}  // namespace moirai::proto

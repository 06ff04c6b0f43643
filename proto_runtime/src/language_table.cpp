#include "moirai/proto_runtime/language_table.h"

#include <stdexcept>
#include <utility>

namespace moirai::proto {

LanguageTable::LanguageTable(std::string name_, std::initializer_list<ConstructRow> rows, CostModel costs_)
    : LanguageTable(std::move(name_), std::vector<ConstructRow>(rows), std::move(costs_)) {}

LanguageTable::LanguageTable(std::string name_, const std::vector<ConstructRow>& rows, CostModel costs_)
    : name(std::move(name_)), costs(std::move(costs_)) {
  constructs.reserve(rows.size());
  for (const ConstructRow& row : rows) {
    if (row.kind != constructs.size()) {
      throw std::logic_error(name + "'s construct table lists '" + row.info.name + "' (kind " +
                             std::to_string(row.kind) + ") at kind " + std::to_string(constructs.size()));
    }
    constructs.push_back(row.info);
  }
}

}  // namespace moirai::proto

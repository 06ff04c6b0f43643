// The sweep's table: one row per value, as text for a reader and as CSV for a spreadsheet.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "sweep_result.h"

namespace moirai::sweep {

// print_table writes the table as aligned text; a failed value shows why in place of figures.
void print_table(std::ostream& out, const std::string& name, const std::vector<ValueResult>& values);

// write_csv writes the table as CSV with a header row (columns in docs/architecture.md);
// throws std::runtime_error when the file cannot be written.
void write_csv(const std::string& path, const std::string& name, const std::vector<ValueResult>& values);

}  // namespace moirai::sweep

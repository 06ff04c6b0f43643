#include "sweep_table.h"

#include <algorithm>
#include <fstream>
#include <stdexcept>

#include "moirai/trace/number_text.h"

namespace moirai::sweep {

namespace {

using trace::number_text;

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

std::string runs_text(const ValueResult& value) {
  return std::to_string(value.succeeded()) + "/" + std::to_string(value.runs.size());
}

}  // namespace

void print_table(std::ostream& out, const std::string& name, const std::vector<ValueResult>& values) {
  std::vector<std::vector<std::string>> rows = {
      {name, "makespan ms", "work %", "overhead %", "idle %", "units", "mean unit us", "runs ok", "top hint"}};
  for (const ValueResult& value : values) {
    const RunResult* run = value.chosen_run();
    if (run == nullptr) {
      const std::string why = value.runs.empty() ? "not run" : value.runs.back().failure;
      rows.push_back({value.value, "FAILED", "", "", "", "", "", runs_text(value), why});
      continue;
    }
    const RunFigures& f = run->figures;
    rows.push_back({value.value, number_text(f.makespan_s * 1e3, "%.3f"), number_text(f.work_pct, "%.1f"), number_text(f.overhead_pct, "%.1f"),
                    number_text(f.idle_pct, "%.1f"), std::to_string(f.units), number_text(f.mean_unit_us, "%.2f"), runs_text(value), f.top_hint});
  }
  std::vector<std::size_t> width(rows.front().size(), 0);
  for (const auto& row : rows) {
    for (std::size_t c = 0; c + 1 < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  }
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t c = 0; c < row.size(); ++c) {
      if (c + 1 == row.size()) {
        line += row[c];  // the last column is free text: left-aligned, not padded
      } else if (c == 0) {
        line += row[c] + std::string(width[c] - row[c].size(), ' ') + "  ";
      } else {
        line += std::string(width[c] - row[c].size(), ' ') + row[c] + "  ";
      }
    }
    out << line << '\n';
  }
}

void write_csv(const std::string& path, const std::string& name, const std::vector<ValueResult>& values) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write " + path);
  out << csv_field(name)
      << ",status,makespan_ms,work_pct,overhead_pct,idle_pct,units,mean_unit_us,runs,runs_ok,top_hint,"
         "top_hint_message,trace,scg\n";
  for (const ValueResult& value : values) {
    const RunResult* run = value.chosen_run();
    out << csv_field(value.value) << ',';
    if (run == nullptr) {
      out << csv_field("failed: " + (value.runs.empty() ? std::string("not run") : value.runs.back().failure))
          << ",,,,,,," << value.runs.size() << ",0,,,,\n";
      continue;
    }
    const RunFigures& f = run->figures;
    out << "ok," << number_text(f.makespan_s * 1e3, "%.6f") << ',' << number_text(f.work_pct, "%.3f") << ',' << number_text(f.overhead_pct, "%.3f") << ','
        << number_text(f.idle_pct, "%.3f") << ',' << f.units << ',' << number_text(f.mean_unit_us, "%.4f") << ',' << value.runs.size() << ','
        << value.succeeded() << ',' << csv_field(f.top_hint) << ',' << csv_field(f.top_hint_message) << ','
        << csv_field(run->trace_path) << ',' << csv_field(value.scg_path) << '\n';
  }
  if (!out) throw std::runtime_error("cannot write " + path);
}

}  // namespace moirai::sweep

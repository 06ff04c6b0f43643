// perfetto_trace_check: reads a `moirai export --format perfetto` file with the export tests'
// strict reader (support/perfetto_trace_reader.h) and checks it against the counts the export
// printed: no error the trace processor would meet, UNITS unit slices, FLOWS flows each bound at
// both ends to unit slices, and at most MAX_BYTES bytes per unit when given.
//   perfetto_trace_check FILE UNITS FLOWS [MAX_BYTES]
// Prints what it read; exit status 0 when all hold, 1 when not, 2 on bad arguments.
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <string_view>

#include "support/perfetto_trace_reader.h"

namespace {

bool number(std::string_view text, std::uint64_t& value) {
  const auto result = std::from_chars(text.data(), text.data() + text.size(), value);
  return result.ec == std::errc() && result.ptr == text.data() + text.size();
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t units = 0, flows = 0, max_bytes = 0;
  if ((argc != 4 && argc != 5) || !number(argv[2], units) || !number(argv[3], flows) || (argc == 5 && !number(argv[4], max_bytes))) {
    std::cerr << "usage: perfetto_trace_check FILE UNITS FLOWS [MAX_BYTES]\n";
    return 2;
  }
  std::ifstream file(argv[1], std::ios::binary);
  if (!file) {
    std::cerr << "perfetto_trace_check: cannot open " << argv[1] << '\n';
    return 2;
  }
  const std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  const moirai::test_support::PerfettoTrace trace = moirai::test_support::read_perfetto_trace(bytes);
  std::uint64_t unit_slices = 0, bound = 0, cross = 0;
  for (const auto& slice : trace.slices) unit_slices += slice.category == "unit";
  for (const auto& [id, flow] : trace.flows) {
    if (!moirai::test_support::binds_units(trace, flow)) continue;
    ++bound;
    cross += trace.slices[flow.from].track != trace.slices[flow.to].track;
  }
  const double per_unit = units ? static_cast<double>(bytes.size()) / static_cast<double>(units) : 0;
  char per_unit_text[32];
  std::snprintf(per_unit_text, sizeof per_unit_text, "%.1f", per_unit);
  std::cout << argv[1] << ": " << bytes.size() << " bytes (" << per_unit_text << " per unit), " << trace.tracks.size() << " tracks, "
            << trace.slices.size() << " slices (" << unit_slices << " unit slices), " << trace.flows.size() << " flows, " << bound
            << " bound at both ends to unit slices (" << cross << " cross-core), " << trace.errors.size() << " errors\n";
  bool ok = trace.errors.empty();
  for (std::size_t e = 0; e < trace.errors.size() && e < 10; ++e) std::cout << "FAIL: " << trace.errors[e] << '\n';
  if (unit_slices != units) {
    std::cout << "FAIL: " << unit_slices << " unit slices for " << units << " units\n";
    ok = false;
  }
  if (bound != flows || trace.flows.size() != flows) {
    std::cout << "FAIL: " << bound << " of " << trace.flows.size() << " flows bound, the export wrote " << flows << '\n';
    ok = false;
  }
  if (max_bytes != 0 && per_unit > static_cast<double>(max_bytes)) {
    std::cout << "FAIL: " << per_unit_text << " bytes per unit, more than " << max_bytes << '\n';
    ok = false;
  }
  return ok ? 0 : 1;
}

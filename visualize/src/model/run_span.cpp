#include "moirai/visualize/model/run_span.h"

#include <algorithm>

namespace moirai::visualize {

RunSpan run_span(const trace::Trace& trace) {
  std::uint64_t first = UINT64_MAX, last = 0;
  for (const trace::Unit& unit : trace.units) {
    first = std::min(first, unit.record.assign);
    last = std::max(last, unit.record.handler_end);
  }
  for (const trace::Span& idle : trace.idle) {
    first = std::min(first, idle.begin);
    last = std::max(last, idle.end);
  }
  if (first == UINT64_MAX) return {};
  return {first, last};
}

}  // namespace moirai::visualize

#include "moirai/trace/integrity.h"

#include "moirai/trace/reader.h"

namespace moirai::trace {

std::string Integrity::summary() const {
  if (warnings.empty()) return "";
  std::string text = "the reader left out ";
  for (const IntegrityCounter& counter : kIntegrityCounters) {
    const std::uint64_t count = this->*counter.count;
    if (count == 0) continue;
    if (text.back() != ' ') text += ", ";
    text += std::to_string(count) + " " + (count == 1 ? counter.one : counter.many);
  }
  text += " that broke the trace's invariants (the first: " + warnings.front() + ")";
  return text;
}

std::vector<std::string> trace_warnings(const Trace& trace) {
  std::vector<std::string> lines;
  if (!trace.complete) lines.push_back(trace.cut);
  lines.insert(lines.end(), trace.integrity.warnings.begin(), trace.integrity.warnings.end());
  return lines;
}

}  // namespace moirai::trace

#include "trace_input.h"

#include "moirai/trace/integrity.h"

namespace moirai::tools {

trace::Trace read_checked_trace(const std::string& path, std::string_view tool, std::ostream& warnings) {
  trace::Trace trace;
  try {
    trace = trace::read_trace(path);
  } catch (const trace::TraceOutOfMemory& error) {
    throw TraceDoesNotFit(path + ": " + error.what());
  } catch (const trace::TraceError& error) {
    throw UnreadableTrace(path + ": " + error.what());
  }
  for (const std::string& warning : trace::trace_warnings(trace)) {
    warnings << tool << ": warning: " << path << ": " << warning << '\n';
  }
  return trace;
}

}  // namespace moirai::tools

// libFuzzer target: the trace reader must answer any bytes with a Trace or a TraceError, never
// a crash, a hang, an unbounded allocation or another exception. Run by scripts/fuzz.sh.
#include <cstddef>
#include <cstdint>

#include "moirai/trace/reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const moirai::trace::Trace trace = moirai::trace::parse_trace(data, size);
    (void)trace;
  } catch (const moirai::trace::TraceError&) {
    // Rejected with an offset and a reason: the expected answer to bad input.
  }
  return 0;
}

// The reader's format history: what a trace from before a format version gave a field means in
// today's terms. The one place that knows old languages by name (internal to trace/).
#pragma once

#include "moirai/trace/reader.h"

namespace moirai::trace::detail {

// apply_format_history gives an old trace, once read, what its version could not say: the roles
// and colours of a format-2 SSR trace's constructs (ssr_constructs.h; other languages' stay
// `other`), and the placement and words of a trace from before format 3.6: SSR's VPs stay on the
// core they last ran on, OpenMP speaks its own words (openmp_words.h), every other language gets
// the paper's words and any free core.
void apply_format_history(Trace& trace);

}  // namespace moirai::trace::detail

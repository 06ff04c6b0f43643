// The reader's table for SSR traces of format 2 or older, which named their constructs only:
// the roles and colours format 3 gave those names. It belongs to the trace format, not to SSR
// (ssr_lang/ owns SSR's live table): an old trace keeps what its names meant when format 3 came,
// whatever SSR records later. A builder of SSR traces (tests, moirai-gen-trace) names it as its
// constructs; the builder itself assumes no language.
#pragma once

#include <vector>

#include "moirai/core/construct_role.h"

namespace moirai::trace {

// kFormat2SsrConstructs holds the constructs of a format-2 SSR trace, in kind order.
inline const std::vector<ConstructInfo> kFormat2SsrConstructs = {
    {"end_vp", ConstructRole::end, ""},
    {"create_vp", ConstructRole::create, "red"},
    {"send_from_to", ConstructRole::send, "blue"},
    {"receive_from_to", ConstructRole::receive, "skyblue"},
    {"send_of_type_to", ConstructRole::send, "green3"},
    {"receive_of_type_to", ConstructRole::receive, "palegreen"},
    {"send_of_type", ConstructRole::send, "purple"},
    {"receive_of_type", ConstructRole::receive, "plum"},
    {"singleton", ConstructRole::exclusive, "orange"},
    {"singleton end", ConstructRole::exclusive_end, "orange"},
};

}  // namespace moirai::trace

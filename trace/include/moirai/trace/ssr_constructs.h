// SSR's constructs as its plugin records them (ssr_lang/src/ssr_language.cpp is where they come
// from; a test keeps the two equal): what a trace of format 2 or older, which named constructs
// only, is read with, and what a hand-built trace says by default.
#pragma once

#include <vector>

#include "moirai/instrument/construct_role.h"

namespace moirai::trace {

// kSsrConstructs holds SSR's construct kinds, in kind order, with their roles and colours.
inline const std::vector<ConstructInfo> kSsrConstructs = {
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

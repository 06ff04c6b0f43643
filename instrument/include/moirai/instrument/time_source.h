// Kept for compatibility: TimeSource moved to moirai/core/time_source.h and namespace moirai
// (issue 37); this header and the old name will be removed in a later version.
#pragma once

#include "moirai/core/time_source.h"

namespace moirai::instrument {
// TimeSource is moirai::TimeSource under its old name.
using moirai::TimeSource;
}  // namespace moirai::instrument

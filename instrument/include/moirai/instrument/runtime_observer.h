// Kept for compatibility: RuntimeObserver moved to moirai/core/runtime_observer.h and namespace
// moirai (issue 37); this header and the old name will be removed in a later version.
#pragma once

#include "moirai/core/runtime_observer.h"
#include "moirai/instrument/time_source.h"

namespace moirai::instrument {
// RuntimeObserver is moirai::RuntimeObserver under its old name.
using moirai::RuntimeObserver;
}  // namespace moirai::instrument

// Kept for compatibility: the shared vocabulary moved to moirai/core/construct_role.h (issue 37); this
// header will be removed in a later version.
#pragma once

#include "moirai/core/construct_role.h"

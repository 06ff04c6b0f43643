// VSs: tasks ordered by the data they declare to read and write (a StarSs-like task dataflow
// language) on the proto-runtime.
#pragma once

#include "moirai/proto_runtime/errors.h"
#include "moirai/vss/access.h"
#include "moirai/vss/context.h"
#include "moirai/vss/run.h"

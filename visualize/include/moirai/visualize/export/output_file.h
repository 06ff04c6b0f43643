// The output files moved below every stage that writes one (views draw pictures through them,
// not only the exporters): they are moirai/visualize/output/output_file.h now. This header keeps
// the old name working for code that includes it.
#pragma once

#include "moirai/visualize/output/output_file.h"

// MPI as a language of the trace: its constructs (one kind per MPI call family), its placement
// (each rank's VP stays on its rank's core) and the report's words (ranks, MPI calls).
#pragma once

#include "moirai/core/language_info.h"

namespace moirai::mpi {

// mpi_language is the merged trace's LanguageInfo ("MPI").
LanguageInfo mpi_language();

}  // namespace moirai::mpi

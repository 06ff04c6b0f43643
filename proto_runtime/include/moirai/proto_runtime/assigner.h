// The assigner: language code that decides which ready VP a free core animates next.
#pragma once

#include "moirai/core/ids.h"

namespace moirai::proto {

class VirtualProcessor;

// Assigner places ready VPs and chooses the next one for a core. The runtime calls both methods
// under its runtime lock.
class Assigner {
 public:
  virtual ~Assigner() = default;
  // on_ready takes a VP that became ready and returns the core whose next_for() may return it,
  // or kAnyCore when any core may (the runtime then wakes every idle core).
  virtual CoreId on_ready(VirtualProcessor& vp) = 0;
  // next_for returns the VP `core` animates next and forgets it, or nullptr when it has none.
  virtual VirtualProcessor* next_for(CoreId core) = 0;
};

}  // namespace moirai::proto

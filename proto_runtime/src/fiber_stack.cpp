#include "fiber_stack.h"

#include <memory>
#include <mutex>
#include <vector>

namespace moirai::proto::detail {

StackPool& StackPool::shared(std::size_t size) {
  // A run looks its pool up once, so a mutex and a scan of the few sizes in use are enough.
  static std::mutex mutex;
  static std::vector<std::unique_ptr<StackPool>> pools;
  std::lock_guard<std::mutex> hold(mutex);
  for (const std::unique_ptr<StackPool>& pool : pools) {
    if (pool->size() == size) return *pool;
  }
  return *pools.emplace_back(std::make_unique<StackPool>(size));
}

}  // namespace moirai::proto::detail

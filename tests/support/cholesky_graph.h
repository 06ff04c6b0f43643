// The textbook task graph of the right-looking tiled Cholesky, which every Cholesky test (VSs on
// the simulated machine, OpenMP through OMPT) compares its recorded dependences with.
#pragma once

#include <algorithm>
#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace moirai::test {

inline std::string name(const char* kernel, std::size_t i, std::size_t j) {
  return std::string(kernel) + "(" + std::to_string(i) + "," + std::to_string(j) + ")";
}
inline std::string gemm(std::size_t i, std::size_t j, std::size_t k) {
  return "gemm(" + std::to_string(i) + "," + std::to_string(j) + "," + std::to_string(k) + ")";
}

// KnownGraph is the textbook task graph of the right-looking tiled Cholesky: which task last
// wrote each tile a task reads or updates.
struct KnownGraph {
  std::vector<std::string> tasks;  // in submission order
  std::set<std::pair<std::string, std::string>> edges;

  explicit KnownGraph(std::size_t t) {
    for (std::size_t k = 0; k < t; ++k) {
      tasks.push_back(name("potrf", k, k));
      if (k > 0) edges.insert({name("syrk", k, k - 1), name("potrf", k, k)});
      for (std::size_t i = k + 1; i < t; ++i) {
        tasks.push_back(name("trsm", i, k));
        edges.insert({name("potrf", k, k), name("trsm", i, k)});
        if (k > 0) edges.insert({gemm(i, k, k - 1), name("trsm", i, k)});
      }
      for (std::size_t i = k + 1; i < t; ++i) {
        tasks.push_back(name("syrk", i, k));
        edges.insert({name("trsm", i, k), name("syrk", i, k)});
        if (k > 0) edges.insert({name("syrk", i, k - 1), name("syrk", i, k)});
        for (std::size_t j = k + 1; j < i; ++j) {
          tasks.push_back(gemm(i, j, k));
          edges.insert({name("trsm", i, k), gemm(i, j, k)});
          edges.insert({name("trsm", j, k), gemm(i, j, k)});
          if (k > 0) edges.insert({gemm(i, j, k - 1), gemm(i, j, k)});
        }
      }
    }
  }
  // longest_chain is the most tasks on one path (tasks are in a topological order).
  std::size_t longest_chain() const {
    std::map<std::string, std::size_t> depth;
    std::size_t longest = 0;
    for (const std::string& task : tasks) {
      std::size_t d = 1;
      for (const auto& [from, to] : edges) {
        if (to == task) d = std::max(d, depth.at(from) + 1);
      }
      depth[task] = d;
      longest = std::max(longest, d);
    }
    return longest;
  }
};

}  // namespace moirai::test

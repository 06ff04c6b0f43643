#include "task_cost.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <utility>

namespace moirai::ompt {

namespace {

constexpr std::pair<std::string_view, double TaskCost::*> kKeys[] = {
    {"task_create", &TaskCost::create},
    {"task_create_dep", &TaskCost::create_dep},
    {"task_end", &TaskCost::end},
    {"task_end_dep", &TaskCost::end_dep},
};
constexpr double kMostNs = 1e6;  // a millisecond per task is no libomp: a garbled value

}  // namespace

std::string task_cost_text(const TaskCost& cost) {
  std::string text;
  for (const auto& [key, field] : kKeys) {
    char number[32];
    std::snprintf(number, sizeof number, "%.1f", cost.*field);
    text += (text.empty() ? "" : ",") + std::string(key) + "=" + number;
  }
  return text;
}

TaskCost parse_task_cost(std::string_view text) {
  TaskCost cost;
  bool seen[std::size(kKeys)] = {};
  const std::string whole(text);
  while (!text.empty()) {
    const std::size_t comma = text.find(',');
    const std::string_view item = text.substr(0, comma);
    text.remove_prefix(comma == std::string_view::npos ? text.size() : comma + 1);
    const std::size_t equals = item.find('=');
    if (equals == std::string_view::npos) {
      throw std::invalid_argument("'" + std::string(item) + "' in '" + whole + "' is not key=ns");
    }
    const std::string_view key = item.substr(0, equals), value = item.substr(equals + 1);
    std::size_t k = 0;
    while (k < std::size(kKeys) && kKeys[k].first != key) ++k;
    if (k == std::size(kKeys)) {
      throw std::invalid_argument("unknown key '" + std::string(key) + "' (expected task_create, task_create_dep, task_end and task_end_dep)");
    }
    if (seen[k]) throw std::invalid_argument(std::string(key) + " given twice");
    double ns = 0;
    const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), ns);
    if (value.empty() || error != std::errc{} || end != value.data() + value.size() || !std::isfinite(ns) || ns < 0 ||
        ns > kMostNs) {
      throw std::invalid_argument(std::string(key) + ": '" + std::string(value) + "' is not a number of ns from 0 to 1e6");
    }
    cost.*kKeys[k].second = ns;
    seen[k] = true;
  }
  for (std::size_t k = 0; k < std::size(kKeys); ++k) {
    if (!seen[k]) throw std::invalid_argument(std::string(kKeys[k].first) + " missing from '" + whole + "'");
  }
  return cost;
}

}  // namespace moirai::ompt

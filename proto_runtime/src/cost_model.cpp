#include "moirai/proto_runtime/cost_model.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <utility>

#include "moirai/proto_runtime/errors.h"
#include "moirai/proto_runtime/real_machine.h"

namespace moirai::proto {

namespace {

std::string_view trim(std::string_view text) {
  const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
  while (!text.empty() && space(text.front())) text.remove_prefix(1);
  while (!text.empty() && space(text.back())) text.remove_suffix(1);
  return text;
}

constexpr std::string_view kHandlerPrefix = "handler.";
constexpr std::string_view kCommunicationPrefix = "communication.";
constexpr std::string_view kWorkRatePrefix = "work_rate.";

// The `omp.*` lines, in the order text() writes them.
constexpr std::pair<std::string_view, std::uint64_t CostModel::OpenMpTasks::*> kOpenMpKeys[] = {
    {"omp.task_create", &CostModel::OpenMpTasks::create},
    {"omp.task_create_dep", &CostModel::OpenMpTasks::create_dep},
    {"omp.task_end", &CostModel::OpenMpTasks::end},
    {"omp.task_end_dep", &CostModel::OpenMpTasks::end_dep},
};

// parse_factor reads a non-negative real number (`positive`: above 0) or throws naming the key.
double parse_factor(std::string_view key, std::string_view value, bool positive, const std::string& where) {
  double x = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), x);
  if (value.empty() || error != std::errc{} || end != value.data() + value.size() || !std::isfinite(x) ||
      x < 0 || (positive && x == 0)) {
    throw ConfigError(where + std::string(key) + ": '" + std::string(value) + "' is not a " +
                      (positive ? "positive" : "non-negative") + " number");
  }
  return x;
}

}  // namespace

CostModel CostModel::default_model() {
  // Fitted by `moirai-calibrate --fit` from real runs on the 2-core development VM (Intel Xeon,
  // KVM guest, 2.6 GHz; refitted 2026-11-26 when the VM moved off the AMD EPYC it was first fitted
  // on, and the runtime kept ended VPs as hulls): matmul, producer_consumer and the report's
  // scenario suite, 9 runs each, as bench/sim_vs_real.sh fit records them (docs/cost-model.md).
  // Ticks of a 1 GHz virtual clock, i.e. nanoseconds; each step's mean without its slowest 1 %.
  // A language adds its own handlers' costs (LanguageTable::costs); `handler` is a handler's
  // typical cost, for constructs with no line of their own. A declared cycle is a nanosecond of
  // this VM's work.
  return CostModel{.clock_hz = 1e9, .switch_ticks = 24, .communication = 150, .communications = {}, .lock = 1,
                   .lock_handoff = 96, .lock_contended = 223, .assigner = 101, .wake = 448, .wake_parked = 48211,
                   .idle_spin = RealMachine::kIdleSpinNs, .handler = 327, .handlers = {}, .work = {}, .omp = {}};
}

std::uint64_t CostModel::handler_cost(std::string_view construct) const {
  const auto found = handlers.find(construct);
  return found != handlers.end() ? found->second : handler;
}

std::uint64_t CostModel::communication_cost(std::string_view construct) const {
  const auto found = communications.find(construct);
  return found != communications.end() ? found->second : communication;
}

double WorkModel::rate_at(std::string_view site) const {
  const auto found = site_rates.find(site);
  return found != site_rates.end() ? found->second : rate;
}

std::string CostModel::text() const {
  std::ostringstream out;
  out.precision(17);
  out << "# moirai cost model: ticks of the virtual clock (docs/cost-model.md)\n"
      << "clock_hz = " << clock_hz << '\n'
      << "switch = " << switch_ticks << '\n'
      << "communication = " << communication << '\n'
      << "lock = " << lock << '\n'
      << "lock.handoff = " << lock_handoff << '\n'
      << "lock.contended = " << lock_contended << '\n'
      << "assigner = " << assigner << '\n'
      << "wake = " << wake << '\n'
      << "wake.parked = " << wake_parked << '\n'
      << "idle_spin = " << idle_spin << '\n'
      << "handler = " << handler << '\n';
  for (const auto& [name, ticks] : handlers) out << kHandlerPrefix << name << " = " << ticks << '\n';
  for (const auto& [name, ticks] : communications) out << kCommunicationPrefix << name << " = " << ticks << '\n';
  // The work lines only when they differ from "declared cycles are ticks", so models written
  // before they existed read back the same.
  out.precision(6);
  if (work.rate != 1.0 || !work.site_rates.empty()) out << "work_rate = " << work.rate << '\n';
  for (const auto& [site, rate] : work.site_rates) out << kWorkRatePrefix << site << " = " << rate << '\n';
  if (work.stretch_machine != 0) out << "stretch.machine = " << work.stretch_machine << '\n';
  if (work.stretch_socket != 0) out << "stretch.socket = " << work.stretch_socket << '\n';
  if (work.core_spread != 0) out << "core_spread = " << work.core_spread << '\n';
  if (omp) {
    for (const auto& [key, field] : kOpenMpKeys) out << key << " = " << (*omp).*field << '\n';
  }
  return out.str();
}

CostModel CostModel::parse(std::string_view text, const std::string& origin, const CostModel& base) {
  CostModel model = base;
  std::size_t line_number = 0;
  std::size_t omp_lines = 0, omp_first_line = 0;  // the omp.* lines come together (a bit each)
  while (!text.empty()) {
    ++line_number;
    const std::size_t newline = text.find('\n');
    std::string_view line = text.substr(0, newline);
    text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
    if (const std::size_t hash = line.find('#'); hash != std::string_view::npos) {
      line = line.substr(0, hash);
    }
    line = trim(line);
    if (line.empty()) continue;
    const std::string where = origin + ":" + std::to_string(line_number) + ": ";
    const std::size_t equals = line.find('=');
    if (equals == std::string_view::npos) {
      throw ConfigError(where + "expected 'key = value', got '" + std::string(line) + "'");
    }
    const std::string_view key = trim(line.substr(0, equals));
    const std::string_view value = trim(line.substr(equals + 1));
    if (key.empty()) throw ConfigError(where + "a key is missing before '='");
    if (key == "clock_hz") {
      model.clock_hz = parse_factor(key, value, true, where);
      continue;
    }
    if (key == "work_rate") {
      model.work.rate = parse_factor(key, value, true, where);
      continue;
    }
    if (key.starts_with(kWorkRatePrefix) && key.size() > kWorkRatePrefix.size()) {
      model.work.site_rates[std::string(key.substr(kWorkRatePrefix.size()))] = parse_factor(key, value, true, where);
      continue;
    }
    if (key == "stretch.machine" || key == "stretch.socket" || key == "core_spread") {
      const double x = parse_factor(key, value, false, where);
      (key == "stretch.machine" ? model.work.stretch_machine
                                : key == "stretch.socket" ? model.work.stretch_socket : model.work.core_spread) = x;
      continue;
    }
    std::uint64_t ticks = 0;
    const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), ticks);
    if (value.empty() || error != std::errc{} || end != value.data() + value.size()) {
      throw ConfigError(where + std::string(key) + ": '" + std::string(value) +
                        "' is not a whole number of ticks (0 or more)");
    }
    if (key == "switch") {
      model.switch_ticks = ticks;
    } else if (key == "communication") {
      model.communication = ticks;
    } else if (key == "lock") {
      model.lock = ticks;
    } else if (key == "lock.handoff") {
      model.lock_handoff = ticks;
    } else if (key == "lock.contended") {
      model.lock_contended = ticks;
    } else if (key == "assigner") {
      model.assigner = ticks;
    } else if (key == "wake") {
      model.wake = ticks;
    } else if (key == "wake.parked") {
      model.wake_parked = ticks;
    } else if (key == "idle_spin") {
      model.idle_spin = ticks;
    } else if (key == "handler") {
      model.handler = ticks;
    } else if (key.starts_with(kHandlerPrefix) && key.size() > kHandlerPrefix.size()) {
      model.handlers[std::string(key.substr(kHandlerPrefix.size()))] = ticks;
    } else if (key.starts_with(kCommunicationPrefix) && key.size() > kCommunicationPrefix.size()) {
      model.communications[std::string(key.substr(kCommunicationPrefix.size()))] = ticks;
    } else if (key.starts_with("omp.")) {
      std::size_t k = 0;
      while (k < std::size(kOpenMpKeys) && kOpenMpKeys[k].first != key) ++k;
      if (k == std::size(kOpenMpKeys)) {
        throw ConfigError(where + "unknown key '" + std::string(key) +
                          "' (the omp.* lines are omp.task_create, omp.task_create_dep, omp.task_end and omp.task_end_dep)");
      }
      if (!model.omp || omp_lines == 0) model.omp = OpenMpTasks{};
      if (omp_lines == 0) omp_first_line = line_number;
      omp_lines |= std::size_t{1} << k;
      (*model.omp).*kOpenMpKeys[k].second = ticks;
    } else {
      throw ConfigError(where + "unknown key '" + std::string(key) +
                        "' (expected clock_hz, switch, communication, communication.<construct>, lock, "
                        "lock.handoff, lock.contended, assigner, wake, wake.parked, idle_spin, handler, handler.<construct>, work_rate, work_rate.<file:line>, "
                        "stretch.machine, stretch.socket, core_spread or omp.<step>)");
    }
  }
  if (omp_lines != 0 && omp_lines != (std::size_t{1} << std::size(kOpenMpKeys)) - 1) {
    for (std::size_t k = 0; k < std::size(kOpenMpKeys); ++k) {
      if ((omp_lines & (std::size_t{1} << k)) == 0) {
        throw ConfigError(origin + ":" + std::to_string(omp_first_line) + ": " + std::string(kOpenMpKeys[k].first) +
                          " missing: the omp.* lines come four together (moirai-calibrate writes them)");
      }
    }
  }
  return model;
}

CostModel CostModel::load(const std::string& path, const CostModel& base) {
  // A cost model is a few dozen lines; anything else (a directory, a device, a pipe, a huge
  // file) is refused before it is read, and the read itself stops at the limit.
  constexpr std::uintmax_t kMaxBytes = 1 << 20;
  std::error_code error;
  const std::filesystem::file_status status = std::filesystem::status(path, error);
  if (error) throw ConfigError("cannot read cost model " + path + ": " + error.message());
  if (std::filesystem::is_directory(status)) throw ConfigError("cost model " + path + " is a directory, not a file");
  if (!std::filesystem::is_regular_file(status)) {
    throw ConfigError("cost model " + path + " is not a regular file (a device, pipe or socket)");
  }
  const std::uintmax_t size = std::filesystem::file_size(path, error);
  if (!error && size > kMaxBytes) {
    throw ConfigError("cost model " + path + " is " + std::to_string(size) + " bytes, more than a cost model's " +
                      std::to_string(kMaxBytes));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError("cannot read cost model " + path + ": " + std::strerror(errno));
  std::string text(kMaxBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (in.bad()) throw ConfigError("cannot read cost model " + path + ": " + std::strerror(errno));
  text.resize(static_cast<std::size_t>(in.gcount()));
  if (text.size() > kMaxBytes) throw ConfigError("cost model " + path + " grew past " + std::to_string(kMaxBytes) + " bytes while read");
  return parse(text, path, base);
}

}  // namespace moirai::proto

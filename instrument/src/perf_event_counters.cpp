#include "perf_event_counters.h"

#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <x86intrin.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>

namespace moirai::instrument::detail {

namespace {

long page_size() {
  static const long size = sysconf(_SC_PAGESIZE);
  return size;
}

int open_event(const KernelEvent& event, int group_fd) {
  perf_event_attr attr{};
  attr.size = sizeof attr;
  attr.type = event.type;
  attr.config = event.config;
  attr.read_format = PERF_FORMAT_GROUP;
  attr.exclude_kernel = 0;
  attr.exclude_hv = 1;
  // pid 0, cpu -1: this thread, wherever it runs; the runtime pins it anyway.
  return static_cast<int>(syscall(SYS_perf_event_open, &attr, 0, -1, group_fd, PERF_FLAG_FD_CLOEXEC));
}

std::string paranoid_level() {
  std::ifstream file("/proc/sys/kernel/perf_event_paranoid");
  std::string level;
  return file >> level ? level : "?";
}

// why turns perf_event_open's errno into what a user can act on.
std::string why(int error, const KernelEvent& event) {
  switch (error) {
    case ENOENT:
    case EOPNOTSUPP:
      return event.hardware()
                 ? "no hardware counter on this CPU (no PMU: a virtual machine without a "
                   "virtual PMU, or a CPU the kernel does not know)"
                 : "the kernel does not support this event";
    case EACCES:
    case EPERM:
      return "not permitted: kernel.perf_event_paranoid is " + paranoid_level() +
             " (2 or lower allows a thread's own events, or grant CAP_PERFMON)";
    case ENOSYS:
      return "the kernel has no perf_event_open (built without perf events, or blocked by a "
             "seccomp filter such as a container's)";
    case EMFILE:
      return "too many open files";
    default:
      return std::string("perf_event_open failed: ") + std::strerror(error);
  }
}

}  // namespace

std::string probe_kernel_event(const KernelEvent& event) {
  perf_event_attr attr{};
  attr.size = sizeof attr;
  attr.type = event.type;
  attr.config = event.config;
  attr.exclude_hv = 1;
  const int fd = static_cast<int>(syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC));
  if (fd < 0) return why(errno, event);
  ::close(fd);
  return "";
}

std::string PerfEventGroup::open(const std::vector<KernelEvent>& events) {
  close();
  if (events.empty()) return "";
  if (events.size() > 16) return "at most 16 events in one group";
  // A hardware event leads when there is one: a group moves to the hardware context anyway.
  int leader = -1;
  for (std::size_t i = 0; i < events.size() && leader < 0; ++i) {
    if (events[i].hardware()) leader = static_cast<int>(i);
  }
  if (leader < 0) leader = 0;
  std::vector<int> opened(events.size(), -1);
  opened[static_cast<std::size_t>(leader)] = open_event(events[static_cast<std::size_t>(leader)], -1);
  if (opened[static_cast<std::size_t>(leader)] < 0) {
    const std::string reason = why(errno, events[static_cast<std::size_t>(leader)]);
    fds_.clear();
    return reason;
  }
  for (std::size_t i = 0; i < events.size(); ++i) {
    if (static_cast<int>(i) == leader) continue;
    opened[i] = open_event(events[i], opened[static_cast<std::size_t>(leader)]);
    if (opened[i] < 0) {
      const std::string reason = why(errno, events[i]);
      fds_ = opened;
      close();
      return reason;
    }
  }
  // The group's read returns values in the order events joined it: the leader first.
  fds_.clear();
  fds_.push_back(opened[static_cast<std::size_t>(leader)]);
  group_to_event_.clear();
  group_to_event_.push_back(static_cast<std::size_t>(leader));
  for (std::size_t i = 0; i < events.size(); ++i) {
    if (static_cast<int>(i) == leader) continue;
    fds_.push_back(opened[i]);
    group_to_event_.push_back(i);
  }

  // rdpmc: only hardware counters live in a register user space can read; a software event's
  // count is kept by the kernel, so one software event in the group means read(2).
  bool all_hardware = true;
  for (const KernelEvent& event : events) all_hardware = all_hardware && event.hardware();
  rdpmc_ = false;
  if (!all_hardware) {
    method_ = "read(2) of the group (rdpmc reads hardware counters only)";
    return "";
  }
  for (int fd : fds_) {
    void* page = mmap(nullptr, static_cast<std::size_t>(page_size()), PROT_READ, MAP_SHARED, fd, 0);
    if (page == MAP_FAILED) break;
    pages_.push_back(static_cast<perf_event_mmap_page*>(page));
  }
  bool allowed = pages_.size() == fds_.size();
  for (const perf_event_mmap_page* page : pages_) allowed = allowed && page->cap_user_rdpmc;
  rdpmc_ = allowed;
  method_ = allowed ? "rdpmc" : "read(2) of the group (the kernel does not allow rdpmc here)";
  return "";
}

bool PerfEventGroup::read_rdpmc(long long* values) const noexcept {
  // The seqlock protocol of perf_event_mmap_page (linux/perf_event.h): retry while the kernel
  // updated the page under us; index 0 means the counter is not on a register right now.
  for (std::size_t k = 0; k < pages_.size(); ++k) {
    const volatile perf_event_mmap_page* page = pages_[k];
    std::uint32_t sequence = 0;
    std::int64_t count = 0;
    do {
      sequence = page->lock;
      __atomic_signal_fence(__ATOMIC_SEQ_CST);
      const std::uint32_t index = page->index;
      count = page->offset;
      if (index == 0) return false;
      const unsigned width = page->pmc_width;
      std::int64_t pmc = static_cast<std::int64_t>(__rdpmc(static_cast<int>(index - 1)));
      pmc = static_cast<std::int64_t>(static_cast<std::uint64_t>(pmc) << (64 - width)) >> (64 - width);
      count += pmc;
      __atomic_signal_fence(__ATOMIC_SEQ_CST);
    } while (page->lock != sequence);
    values[group_to_event_[k]] = count;
  }
  return true;
}

void PerfEventGroup::read(long long* values) const noexcept {
  if (fds_.empty()) return;
  if (rdpmc_ && read_rdpmc(values)) return;
  std::uint64_t buffer[1 + 16] = {};
  const std::size_t want = (1 + fds_.size()) * sizeof(std::uint64_t);
  if (::read(fds_[0], buffer, want) != static_cast<ssize_t>(want)) return;
  for (std::size_t k = 0; k < fds_.size() && k < buffer[0]; ++k) {
    values[group_to_event_[k]] = static_cast<long long>(buffer[1 + k]);
  }
}

void PerfEventGroup::close() noexcept {
  for (perf_event_mmap_page* page : pages_) munmap(page, static_cast<std::size_t>(page_size()));
  pages_.clear();
  for (int fd : fds_) {
    if (fd >= 0) ::close(fd);
  }
  fds_.clear();
  group_to_event_.clear();
  rdpmc_ = false;
}

}  // namespace moirai::instrument::detail

// A task's record in the runtime (its meta-unit from submission on) and the data it declared.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "moirai/core/ids.h"
#include "moirai/proto_runtime/request.h"
#include "moirai/proto_runtime/spin_lock.h"
#include "moirai/proto_runtime/virtual_processor.h"
#include "moirai/vss/access.h"
#include "moirai/vss/detail/requests.h"

namespace moirai::vss::detail {

struct Task;

// DatumKey identifies a datum: an object's address with kWholeObject, or a registered matrix's
// address with the index of one of its blocks.
struct DatumKey {
  const void* object = nullptr;
  std::size_t block = kWholeObject;
  friend bool operator==(const DatumKey&, const DatumKey&) = default;
  friend bool operator<(const DatumKey& a, const DatumKey& b) {
    return std::less<const void*>{}(a.object, b.object) ||
           (a.object == b.object && a.block < b.block);
  }
};

struct DatumKeyHash {
  std::size_t operator()(const DatumKey& key) const noexcept {
    return std::hash<const void*>{}(key.object) * 31 + std::hash<std::size_t>{}(key.block);
  }
};

// Datum is what one dependence domain (the submissions of one task) knows of a datum: who
// accesses it now, in program order, and where it was last written. Its fields belong to the
// datum's lock domain (VssLanguage::domains), in every dependence domain alike.
struct Datum {
  Task* writer = nullptr;         // the last writer submitted, until it ends
  std::vector<Task*> readers;     // readers submitted after that writer, until each ends
  // the core that ended its last writer (the assigner's hint): read when a reader starts, by a
  // handler of any domain, so atomic
  std::atomic<CoreId> writer_core{kAnyCore};
  std::string name;
};

// Declared is one datum of a task, resolved to its key, in its parent's domain, and that
// domain's entry for it (a node of an unordered_map, which stays put: entries are never erased
// while a child uses them), so starting and ending the task look nothing up.
struct Declared {
  DatumKey key;
  Mode mode = Mode::in;
  Datum* datum = nullptr;
};

// Successor is a task that waits for this one's end, and its entry among that task's dependences.
struct Successor {
  Task* task = nullptr;
  std::size_t dependence = 0;
};

// Dependence is one predecessor of a task: the strongest kind of dependence between the two,
// and the predecessor's last unit once it ended, recorded as a constraint once the task's VP
// (and so its first unit) exists. Each predecessor's end writes its own entry: predecessors of
// different data end at the same time.
struct Dependence {
  ConstructKind kind = kDepRaw;
  UnitId from = 0;
};

// Task lives from submission to its end (its body returned and its submissions ended). Only
// VSs's handlers and assigner touch it: its declared data under their lock domains, its
// dependence count atomically, its dependence domain's table and its waits under small locks
// of its own (see VssLanguage).
struct Task {
  std::string name;
  CallSite submitted_at;
  CoreId core = kAnyCore;  // pinned core
  std::size_t stack_size = 0;
  TaskBody body;
  Task* parent = nullptr;  // nullptr for the seed
  std::vector<Declared> accesses;

  // Its dependences, and how many of those predecessors have not ended yet (counted down by
  // their ends, in handlers of different domains).
  std::vector<Dependence> dependences;
  std::atomic<std::size_t> unsatisfied{0};
  std::vector<Successor> successors;
  UnitId submit_unit = 0;  // the submitter's unit that ended with the submit
  CoreId affinity = kAnyCore;  // the core that last wrote most of its inputs

  // Its VP, from the moment it is ready to run.
  proto::VirtualProcessor* vp = nullptr;
  // Resume says where a task that made a call that did not block goes: the assigner's choice,
  // or its own core's queue, at the front (it goes on: help first) or at the back (it lets
  // queued tasks run first: throttled submission).
  enum class Resume : std::uint8_t { placed, front, back };
  Resume resume = Resume::placed;

  // Its own submissions: their dependence domain and how many have not ended. The table's
  // shape is under domain_lock (find and datum): its submissions insert entries while its
  // descendants' taskwait_on look others up; an entry's fields are its datum's domain's.
  std::unordered_map<DatumKey, Datum, DatumKeyHash> domain;
  mutable proto::SpinLock domain_lock;

  // A taskwait or taskwait_on it is blocked in. Its children's ends and its awaited writers'
  // ends run in domains other than its request's, at the same time: they meet the count, the
  // flag and the list under wait_lock, held for that bookkeeping only.
  proto::SpinLock wait_lock;
  std::size_t live_children = 0;        // submitted, not ended (under wait_lock)
  bool waits_for_children = false;      // blocked in a taskwait (under wait_lock)
  std::vector<Task*> awaited;           // taskwait_on: the writers not ended yet (under wait_lock)
  const proto::Request* wait = nullptr;
  std::uint64_t wait_group = 0;
  std::string wait_datum;      // taskwait_on: the datum's name
  std::vector<Task*> waiters;  // tasks blocked in taskwait_on this one (under the datum's domain)

  // The list of every task alive, so a stopped run frees them all: the one of the core that
  // submitted it, under that core's lock (it ends on any core). Set by linking it, kept by
  // recycle.
  Task* previous = nullptr;
  Task* next = nullptr;
  CoreId listed_on = 0;

  // find is its submissions' entry for `key`, or nullptr; datum makes it if new. An entry stays
  // put (a node) until the task's record is recycled.
  Datum* find(const DatumKey& key) const {
    const std::lock_guard guard(domain_lock);
    const auto found = domain.find(key);
    return found != domain.end() ? const_cast<Datum*>(&found->second) : nullptr;
  }
  Datum& datum(const DatumKey& key) {
    const std::lock_guard guard(domain_lock);
    return domain[key];
  }

  // recycle makes an ended task's record a fresh one for the next submit, keeping the
  // capacity of its lists and tables (a submit then allocates nothing for them); the body's
  // captures are destroyed here, at the task's end, as deleting the record would. It leaves the
  // record in its list: unlinking it is its core's.
  void recycle() noexcept {
    name.clear();
    submitted_at = CallSite{};
    core = kAnyCore;
    stack_size = 0;
    body = nullptr;
    parent = nullptr;
    accesses.clear();
    dependences.clear();
    unsatisfied.store(0, std::memory_order_relaxed);
    successors.clear();
    submit_unit = 0;
    affinity = kAnyCore;
    vp = nullptr;
    resume = Resume::placed;
    domain.clear();
    live_children = 0;
    waits_for_children = false;
    wait = nullptr;
    awaited.clear();
    wait_group = 0;
    wait_datum.clear();
    waiters.clear();
  }
};

}  // namespace moirai::vss::detail

// A task's record in the runtime (its meta-unit from submission on) and the data it declared.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "moirai/instrument/ids.h"
#include "moirai/proto_runtime/request.h"
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
// accesses it now, in program order, and where it was last written.
struct Datum {
  Task* writer = nullptr;         // the last writer submitted, until it ends
  std::vector<Task*> readers;     // readers submitted after that writer, until each ends
  CoreId writer_core = kAnyCore;  // the core that ended its last writer (the assigner's hint)
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

// Successor is a task that waits for this one's end, and the kind of that dependence.
struct Successor {
  Task* task = nullptr;
  ConstructKind kind = kDepRaw;
};

// Satisfied is a dependence that already ended, recorded as a constraint once the successor's
// VP (and so its first unit) exists.
struct Satisfied {
  ConstructKind kind = kDepRaw;
  UnitId from = 0;
};

// Task lives from submission to its end (its body returned and its submissions ended). Only
// VSs's handlers and assigner touch it, under the runtime lock.
struct Task {
  std::string name;
  CallSite submitted_at;
  CoreId core = kAnyCore;  // pinned core
  std::size_t stack_size = 0;
  TaskBody body;
  Task* parent = nullptr;  // nullptr for the seed
  std::vector<Declared> accesses;

  // Its dependences: predecessors not ended yet, and the constraints of those that have.
  std::size_t unsatisfied = 0;
  std::vector<Satisfied> satisfied;
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

  // Its own submissions: their dependence domain and how many have not ended.
  std::unordered_map<DatumKey, Datum, DatumKeyHash> domain;
  std::size_t live_children = 0;

  // A taskwait or taskwait_on it is blocked in.
  const proto::Request* wait = nullptr;
  std::vector<Task*> awaited;  // taskwait_on: the writers not ended yet
  std::uint64_t wait_group = 0;
  std::string wait_datum;      // taskwait_on: the datum's name
  std::vector<Task*> waiters;  // tasks blocked in taskwait_on this one

  // The list of every task alive, so a stopped run frees them all.
  Task* previous = nullptr;
  Task* next = nullptr;

  // recycle makes an ended task's record a fresh one for the next submit, keeping the
  // capacity of its lists and tables (a submit then allocates nothing for them); the body's
  // captures are destroyed here, at the task's end, as deleting the record would.
  void recycle() noexcept {
    name.clear();
    submitted_at = CallSite{};
    core = kAnyCore;
    stack_size = 0;
    body = nullptr;
    parent = nullptr;
    accesses.clear();
    unsatisfied = 0;
    satisfied.clear();
    successors.clear();
    submit_unit = 0;
    affinity = kAnyCore;
    vp = nullptr;
    resume = Resume::placed;
    domain.clear();
    live_children = 0;
    wait = nullptr;
    awaited.clear();
    wait_group = 0;
    wait_datum.clear();
    waiters.clear();
    previous = nullptr;
    next = nullptr;
  }
};

}  // namespace moirai::vss::detail

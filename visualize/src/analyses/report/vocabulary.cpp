#include "analyses/report/vocabulary.h"

namespace moirai::visualize::report {

std::string fill(const std::string& text, const std::string& what) {
  const std::size_t at = text.find("{}");
  return at == std::string::npos ? text : text.substr(0, at) + what + fill(text.substr(at + 2), what);
}

namespace {

// The paper's words, which SSR's and VSs's reports have always used.
Vocabulary paper_words() {
  Vocabulary v;
  v.creator_cure = "create on the other cores first, or give the creator a core of its own";
  v.unit_size_cure = "do more work between construct calls, most of which end units at the call site named here";
  v.tail_cure = "try a number of pieces that fills every core";
  v.unused_cure = "check how work is placed on cores (the paper's misplaced brace left 27 of 40 cores empty)";
  v.serial_cure = "split its work across VPs (a reduction: reduce in a tree, in parallel)";
  v.exclusive_cure = "move its work out of the {} or split it across the VPs that wait for it";
  v.late_cure = "the unit on the other side of that construct ran late; look at where its VP is placed and what runs before it on that core";
  v.create_late_cure = v.exclusive_late_cure = v.wait_late_cure = v.late_cure;
  return v;
}

// OpenMP's words: each core of the trace is an OpenMP thread, each VP a task (docs/openmp.md).
Vocabulary openmp_words() {
  Vocabulary v;
  v.vp = "task";
  v.vps = "tasks";
  v.creator_cure = "create the tasks from several threads (a taskloop, or each thread creating its share)";
  v.unit_size_cure = "make each task do more work (coarser tasks, or a cutoff below which no task is created); most units end at the call site named here";
  v.tail_cure = "share the loop's or the tasks' work out as the threads free up: schedule(dynamic) or a balanced split";
  v.unused_cure = "check that every thread gets work: tasks created where the other threads can take them, a loop shared by the team";
  v.serial_cure = "split its work across tasks or loop iterations (a reduction: a reduction clause, or a tree of tasks)";
  v.exclusive_section = "critical section";
  v.exclusive_cure = "move its work out of the {}: compute outside, keep only the update inside (or use a reduction or an atomic)";
  v.late_cure = "the unit on the other side of that construct ran late; look at which thread ran it and what ran before it there";
  v.create_late_cure = "the tasks they waited for were created too late, one after another by one task (at {}); " + v.creator_cure;
  v.exclusive_late_cure = "they waited for the critical section at {}, which another thread held; " + fill(v.exclusive_cure, "critical section");
  v.wait_late_cure = "the last thread or task to reach it (at {}) ran late; " + v.tail_cure;
  return v;
}

}  // namespace

Vocabulary vocabulary_of(const trace::Trace& trace) {
  const auto language = trace.metadata.find("language");
  return language != trace.metadata.end() && language->second == "OpenMP" ? openmp_words() : paper_words();
}

std::string Vocabulary::idle_cure(ConstructRole role, const std::string& site) const {
  const std::string& text = role == ConstructRole::create          ? create_late_cure
                            : role == ConstructRole::exclusive_end ? exclusive_late_cure
                            : role == ConstructRole::wait          ? wait_late_cure
                                                                    : late_cure;
  return fill(text, site.empty() ? "an unknown line" : site);
}

}  // namespace moirai::visualize::report

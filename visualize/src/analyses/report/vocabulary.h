// The words the report's hints use for a trace's tasks and constructs (internal to visualize),
// taken once from the trace: the words its language gave (trace format 3.6; an older trace's are
// the format history's), and the paper's words (VPs, placement on cores) for every word it did
// not give. SSR and VSs give none; OpenMP gives its own (tasks, threads, critical sections, loop
// schedules). Rules take their nouns and cures from here, so no rule asks which language it reads.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "moirai/trace/reader.h"

namespace moirai::visualize::report {

// Vocabulary is one language's words for what the rules name and advise; each member is the
// word of that name in the trace (docs/adding-a-language.md lists them).
struct Vocabulary {
  std::string vp;     // a thread of application code: SSR's VP, OpenMP's task
  std::string vps;
  std::string core;   // what the trace's cores are to the program: a core, OpenMP's thread, MPI's rank
  std::string cores;
  std::string creator_cure;  // creator-starvation: how to make creations sooner
  std::string unit_size_cure;  // unit-size: how to do more work per unit
  std::string tail_cure;     // idle-tail: how to fill every core in the last wave
  std::string unused_cure;   // unused-cores: what to check
  std::string serial_cure;   // long-serial, a unit that runs alone (not an exclusive body)
  std::string exclusive_cure;  // long-serial, an exclusive body ("{}": the section's name)
  std::string exclusive_section;  // the name of an exclusive section ("" : the construct's own)
  // idle-cause: what follows "until a <construct> freed them: ", by the freeing construct's role;
  // "{}" is the call site of the unit on the other side. Not given, each is late_cure.
  std::string late_cure, create_late_cure, exclusive_late_cure, wait_late_cure;
  // construct_late_cure: a cure for one construct by name (words "late_cure:NAME"), which wins
  // over its role's: a language whose constructs of one role fail differently (MPI's late sender
  // and late receiver are both sends) says so per construct.
  std::map<std::string, std::string, std::less<>> construct_late_cure;

  // idle_cure is idle-cause's explanation for `construct`, of `role`, freeing idle cores at `site`.
  std::string idle_cure(const std::string& construct, ConstructRole role, const std::string& site) const;
  // core_set names a set of cores in these words ("core 2", "cores 0-3", "ranks 1,3").
  std::string core_set(const std::vector<std::uint32_t>& cores) const;
};

// vocabulary_of takes the words of a trace.
Vocabulary vocabulary_of(const trace::Trace& trace);

// fill puts `what` where `text` says "{}".
std::string fill(const std::string& text, const std::string& what);

}  // namespace moirai::visualize::report

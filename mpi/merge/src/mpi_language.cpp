#include "mpi_language.h"

#include <utility>

#include "record_kinds.h"

namespace moirai::mpi {

LanguageInfo mpi_language() {
  LanguageChoices choices;
  choices.placement = LanguagePlacement::last_core;
  // Where the paper says VP and core, MPI has a rank (one VP each, on a core of its own); its
  // cures name MPI calls and the decomposition.
  choices.words = {
      {"vp", "rank"},
      {"vps", "ranks"},
      {"core", "rank"},
      {"cores", "ranks"},
      {"creator_cure", "let every rank make its own work rather than one rank handing it out"},
      {"unit_size_cure",
       "do more work between MPI calls (fewer, larger messages, or several exchanges in one call); most units end at the "
       "call site named here"},
      {"tail_cure", "give every rank an equal share of the work (the decomposition decides how long each rank computes)"},
      {"unused_cure", "check that every rank gets work: the decomposition, and which ranks each communicator holds"},
      {"serial_cure",
       "split that rank's work across the ranks (a reduction: MPI_Reduce or MPI_Allreduce rather than gathering to one rank)"},
      {"exclusive_section", "exclusive section"},
      {"late_cure",
       "the rank on the other side of that MPI call was late (a late sender, or a late receiver of a large send); look at "
       "what that rank did before the call"},
      {"wait_late_cure",
       "the last rank to reach the collective (at {}) was late; give the ranks equal work before it, or post the "
       "collective's nonblocking form and compute while it completes"},
      // Per construct (the report's late_cure:NAME): a late sender and a late receiver are both
      // sends, told apart by the construct the merge gives the arc.
      {"late_cure:send",
       "a late sender: the send that freed them began late (at {}); look at what the sending rank did before it, or "
       "post the receive early (MPI_Irecv) and compute while the message comes"},
      {"late_cure:sendrecv",
       "a late sender: its partner's MPI_Sendrecv began late (at {}); look at what that rank did before it"},
      {"late_cure:rendezvous",
       "a late receiver: a send above the eager limit waited for its receive, posted late (at {}); post the receive "
       "earlier (MPI_Irecv before the work), or send with MPI_Isend and compute while it completes"},
      {"late_cure:bcast",
       "the root of the broadcast arrived late (at {}); look at what the root did before it (a serial step the other "
       "ranks wait for)"},
      {"late_cure:scatter",
       "the root of the scatter arrived late (at {}); look at what the root did before it (a serial step the other "
       "ranks wait for)"},
  };
  return {"MPI", mpi_constructs(), std::move(choices)};
}

}  // namespace moirai::mpi

#include "matching.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

#include "moirai/mpi/merge.h"

namespace moirai::mpi {

namespace {

constexpr std::int64_t kNone = -1;

// Post is one side of a message: where it was posted and which call returned when it was done.
struct Post {
  std::uint32_t rank = 0, record = 0, post = 0;
  std::int64_t freed = kNone;
  std::uint64_t bytes = 0;
  Construct construct = kSend;
  bool wildcard = false;
  bool any_source = false, any_tag = false;  // a receive posted for any source, any tag
  bool synchronous = false;  // a send that waits for its receive's post (MPI_Ssend, or above the eager limit)
};

// Channel is every message of one (communicator, source, destination, tag), in order.
struct Channel {
  std::vector<Post> sends, receives;
  std::vector<Post> probes;
};
using ChannelKey = std::tuple<std::uint32_t, std::int32_t, std::int32_t, std::int32_t>;

// Arrival is one rank's collective call on a communicator.
struct Arrival {
  std::uint32_t rank = 0, record = 0, post = 0;
  std::int64_t freed = kNone;
  MpiOp op = MpiOp::none;
  std::int32_t root = kNoPeer;
  std::uint64_t bytes = 0;  // what this rank sent
};

std::string op_text(MpiOp op) { return "op " + std::to_string(static_cast<int>(op)); }

std::string comm_text(const Communicators& comms, std::uint32_t comm) {
  std::string text = comm == 0 ? "MPI_COMM_WORLD" : "communicator " + std::to_string(comm) + " (ranks";
  if (comm != 0) {
    for (std::int32_t m : comms.members[comm]) text += " " + std::to_string(m);
    text += ")";
  }
  return text;
}

// RankCalls is one rank's calls, which call each record belongs to, and which call completed
// each request.
struct RankCalls {
  std::vector<std::int64_t> call_of;       // by record: the call it is (kNone: not a call)
  std::vector<std::int64_t> completed_by;  // by posting record: the call that completed it
  std::vector<std::uint32_t> completion;   // by posting record: its completion record
};

RankCalls collect_calls(const RankLog& log, std::vector<Call>& calls) {
  RankCalls rc;
  const auto& r = log.records;
  rc.call_of.assign(r.size(), kNone);
  rc.completed_by.assign(r.size(), kNone);
  rc.completion.assign(r.size(), 0);
  std::int64_t completing = kNone;  // the (outermost) call completion records go to
  for (std::size_t i = 0; i < r.size(); ++i) {
    const RankRecord& rec = r[i];
    const auto op = static_cast<MpiOp>(rec.op);
    if (op == MpiOp::completion) {
      if (completing != kNone && (rec.flags & kFlagCancelled) == 0) {
        rc.completed_by[rec.value] = completing;
        rc.completion[rec.value] = static_cast<std::uint32_t>(i);
      }
      continue;
    }
    if (op == MpiOp::sendrecv_recv) {
      rc.call_of[i] = i > 0 ? rc.call_of[i - 1] : kNone;
      continue;
    }
    if ((rec.flags & kFlagNested) != 0) {
      completing = kNone;
      continue;
    }
    Construct construct = construct_of(op);
    if (op == MpiOp::start) construct = r[rec.value].op == static_cast<std::uint8_t>(MpiOp::send_init) ? kSend : kRecv;
    rc.call_of[i] = static_cast<std::int64_t>(calls.size());
    calls.push_back({rec.enter, rec.exit, rec.site, static_cast<std::uint32_t>(i), construct});
    completing = is_completing(op) ? rc.call_of[i] : kNone;
  }
  return rc;
}

class Matcher {
 public:
  Matcher(const std::vector<RankLog>& logs, const Communicators& comms, const EagerLimits& eager)
      : logs_(logs), comms_(comms), eager_(eager) {}

  Matching run() {
    m_.calls.resize(logs_.size());
    for (const RankLog& log : logs_) {
      const RankCalls rc = collect_calls(log, m_.calls[log.rank]);
      posts_of(log, rc);
    }
    pair_messages();
    form_instances();
    return std::move(m_);
  }

 private:
  bool cut(std::int32_t rank) const { return !logs_[rank].ended; }

  void check_peer(const RankLog& log, std::size_t i, std::int32_t peer, const char* what) const {
    if (peer < 0 || peer >= static_cast<std::int32_t>(logs_.size())) {
      throw MergeError(log.events_path + ": record " + std::to_string(i) + ": " + what + " " + std::to_string(peer) +
                       " is no world rank (world size " + std::to_string(logs_.size()) + ")");
    }
  }

  void posts_of(const RankLog& log, const RankCalls& rc) {
    const auto& r = log.records;
    const auto rank = static_cast<std::int32_t>(log.rank);
    for (std::size_t i = 0; i < r.size(); ++i) {
      const RankRecord& rec = r[i];
      const auto op = static_cast<MpiOp>(rec.op);
      if (op == MpiOp::completion || rc.call_of[i] == kNone) continue;
      if ((rec.flags & kFlagError) != 0 && collective_shape(op) == Shape::none) continue;  // a failed call moved no message
      const RankRecord& posted = op == MpiOp::start ? r[rec.value] : rec;  // a start's envelope is its init's
      const auto posted_op = static_cast<MpiOp>(posted.op);
      const auto post = static_cast<std::uint32_t>(rc.call_of[i]);
      const bool blocking = !is_request(op);
      if (is_send(op) || (op == MpiOp::start && posted_op == MpiOp::send_init)) {
        if (posted.peer == kProcNull) continue;
        check_peer(log, i, posted.peer, "destination");
        Post p{log.rank, static_cast<std::uint32_t>(i), post, blocking ? rc.call_of[i] : rc.completed_by[i], posted.value,
               op == MpiOp::sendrecv ? kSendrecv : kSend};
        const bool ssend = op == MpiOp::ssend || op == MpiOp::issend;
        const bool buffered = op == MpiOp::bsend || op == MpiOp::ibsend || op == MpiOp::sendrecv;
        const std::uint64_t eager_limit = log.host == logs_[posted.peer].host ? eager_.same_node : eager_.across_nodes;
        p.synchronous = ssend || (!buffered && posted.value > eager_limit);
        channel(log, i, posted.comm, rank, posted.peer, posted.tag).sends.push_back(p);
      } else if (is_receive(op) || (op == MpiOp::start && posted_op == MpiOp::recv_init)) {
        std::int32_t source = rec.peer, tag = rec.tag;
        std::uint64_t bytes = rec.value;
        std::int64_t freed = rc.call_of[i];
        if (!blocking) {
          freed = rc.completed_by[i];
          if (freed == kNone) continue;  // never completed (cancelled, or the rank was cut first): matched nothing
          const RankRecord& done = r[rc.completion[i]];
          source = done.peer;
          tag = done.tag;
          bytes = done.enter;
        }
        if (source == kProcNull) continue;
        check_peer(log, i, source, "matched source");
        Post p{log.rank, static_cast<std::uint32_t>(i), post, freed, bytes, kRecv};
        p.any_source = (posted.flags & kFlagWildcardSource) != 0;
        p.any_tag = (posted.flags & kFlagWildcardTag) != 0;
        p.wildcard = p.any_source || p.any_tag;
        channel(log, i, posted.comm, source, rank, tag).receives.push_back(p);
      } else if (op == MpiOp::probe) {
        if (rec.peer == kProcNull) continue;
        check_peer(log, i, rec.peer, "probed source");
        channel(log, i, rec.comm, rec.peer, rank, rec.tag).probes.push_back({log.rank, static_cast<std::uint32_t>(i), post, rc.call_of[i]});
      } else if (collective_shape(op) != Shape::none) {
        const std::uint32_t comm = comms_.of(log, rec.comm, i);
        auto& positions = arrivals_[comm];
        positions.resize(comms_.members[comm].size());
        positions[position(log, comm, i)].push_back(
            {log.rank, static_cast<std::uint32_t>(i), post, blocking ? rc.call_of[i] : rc.completed_by[i], blocking_form(op), rec.peer,
             rec.value});
      }
    }
  }

  std::size_t position(const RankLog& log, std::uint32_t comm, std::size_t record) {
    auto& cache = positions_[{log.rank, comm}];
    if (cache == 0) {
      const auto& members = comms_.members[comm];
      const auto at = std::find(members.begin(), members.end(), static_cast<std::int32_t>(log.rank));
      if (at == members.end()) {
        throw MergeError(log.events_path + ": record " + std::to_string(record) + ": a collective on " + comm_text(comms_, comm) +
                         ", which rank " + std::to_string(log.rank) + " is not a member of");
      }
      cache = static_cast<std::size_t>(at - members.begin()) + 1;
    }
    return cache - 1;
  }

  Channel& channel(const RankLog& log, std::size_t record, std::uint16_t local_comm, std::int32_t source, std::int32_t dest,
                   std::int32_t tag) {
    return channels_[{comms_.of(log, local_comm, record), source, dest, tag}];
  }

  void pair_messages() {
    for (auto& [key, ch] : channels_) {
      const auto& [comm, source, dest, tag] = key;
      const std::size_t pairs = std::min(ch.sends.size(), ch.receives.size());
      std::vector<std::uint64_t> numbers(pairs);
      for (std::size_t k = 0; k < pairs; ++k) {
        const Post& s = ch.sends[k];
        const Post& r = ch.receives[k];
        if (s.bytes != r.bytes) {
          throw MergeError(logs_[dest].events_path + ": record " + std::to_string(r.record) + ": message " + std::to_string(k) +
                           " from rank " + std::to_string(source) + " (tag " + std::to_string(tag) + ", " + comm_text(comms_, comm) +
                           ") received " + std::to_string(r.bytes) + " bytes; its send (" + logs_[source].events_path + ": record " +
                           std::to_string(s.record) + ") sent " + std::to_string(s.bytes));
        }
        numbers[k] = ++m_.message_count;
        m_.envelopes.push_back({s.bytes, tag, comm, r.any_source, r.any_tag});
        if (r.freed != kNone) {
          m_.messages.push_back({s.rank, s.post, r.rank, static_cast<std::uint32_t>(r.freed), s.construct, numbers[k], 0, r.wildcard});
        }
        if (r.wildcard) {
          ++m_.wildcard_matches;
          if (m_.wildcard_ids.size() < 64) m_.wildcard_ids.push_back(numbers[k]);
        }
        if (s.synchronous && s.freed != kNone) {
          m_.messages.push_back({r.rank, r.post, s.rank, static_cast<std::uint32_t>(s.freed), kRendezvous, numbers[k], 0, r.wildcard});
        }
      }
      if (ch.sends.size() > pairs) {
        const std::size_t left = ch.sends.size() - pairs;
        m_.unreceived_sends += left;
        m_.warnings.push_back("rank " + std::to_string(source) + " sent " + std::to_string(left) + " message(s) to rank " +
                              std::to_string(dest) + " (tag " + std::to_string(tag) + ", " + comm_text(comms_, comm) + ") that " +
                              (cut(dest) ? "the cut rank never received" : "it never received") + ": no constraint");
      }
      if (ch.receives.size() > pairs) {
        const Post& r = ch.receives[pairs];
        const std::string problem = "a receive from rank " + std::to_string(source) + " (tag " + std::to_string(tag) + ", " +
                                    comm_text(comms_, comm) + ") that no send matches: rank " + std::to_string(source) + " sent " +
                                    std::to_string(ch.sends.size()) + " message(s) there";
        if (!cut(source)) throw MergeError(logs_[dest].events_path + ": record " + std::to_string(r.record) + ": " + problem);
        m_.warnings.push_back(logs_[dest].events_path + ": record " + std::to_string(r.record) + ": " + problem + " before it was cut");
      }
      for (const Post& probe : ch.probes) {
        // The probe saw the message the next receive on this channel gets.
        const auto before = std::lower_bound(ch.receives.begin(), ch.receives.end(), probe.record,
                                             [](const Post& r, std::uint32_t record) { return r.record < record; });
        const auto k = static_cast<std::size_t>(before - ch.receives.begin());
        if (k >= ch.sends.size()) continue;
        m_.messages.push_back({ch.sends[k].rank, ch.sends[k].post, probe.rank, static_cast<std::uint32_t>(probe.freed), kSend,
                               k < pairs ? numbers[k] : 0, 0, false});
      }
    }
  }

  void form_instances() {
    for (auto& [comm, positions] : arrivals_) {
      const auto& members = comms_.members[comm];
      std::size_t most = 0;
      for (const auto& list : positions) most = std::max(most, list.size());
      for (std::size_t k = 0; k < most; ++k) {
        std::vector<std::size_t> missing;
        for (std::size_t p = 0; p < positions.size(); ++p) {
          if (positions[p].size() <= k) missing.push_back(p);
        }
        if (!missing.empty()) {
          const bool all_cut = std::all_of(missing.begin(), missing.end(), [&](std::size_t p) { return cut(members[p]); });
          if (all_cut) {
            ++m_.incomplete_collectives;
            continue;
          }
          const std::int32_t absent = members[missing.front()];
          std::size_t present = 0;
          while (positions[present].size() <= k) ++present;
          throw MergeError(logs_[absent].events_path + ": rank " + std::to_string(absent) + " made " +
                           std::to_string(positions[missing.front()].size()) + " collective call(s) on " + comm_text(comms_, comm) +
                           ", rank " + std::to_string(members[present]) + " made " + std::to_string(positions[present].size()) +
                           " (its collective " + std::to_string(k) + " is record " + std::to_string(positions[present][k].record) + ")");
        }
        Instance in;
        const Arrival& first = positions[0][k];
        in.shape = collective_shape(first.op);
        in.construct = construct_of(first.op);
        in.comm = comm;
        for (std::size_t p = 0; p < positions.size(); ++p) {
          const Arrival& a = positions[p][k];
          if (a.op != first.op || a.root != first.root) {
            throw MergeError(logs_[a.rank].events_path + ": record " + std::to_string(a.record) + ": collective " + std::to_string(k) +
                             " on " + comm_text(comms_, comm) + " is " + op_text(a.op) + " with root " + std::to_string(a.root) +
                             " here, " + op_text(first.op) + " with root " + std::to_string(first.root) + " at rank " +
                             std::to_string(first.rank) + " (record " + std::to_string(first.record) + ")");
          }
          in.members.push_back({a.rank, a.post, a.freed, a.bytes});
        }
        if (in.shape == Shape::from_root || in.shape == Shape::to_root) {
          const auto at = std::find(members.begin(), members.end(), first.root);
          if (at == members.end()) {
            throw MergeError(logs_[first.rank].events_path + ": record " + std::to_string(first.record) + ": root " +
                             std::to_string(first.root) + " is not a member of " + comm_text(comms_, comm));
          }
          in.root = at - members.begin();
        }
        m_.collectives.push_back(std::move(in));
      }
    }
  }

  const std::vector<RankLog>& logs_;
  const Communicators& comms_;
  EagerLimits eager_;
  Matching m_;
  std::map<ChannelKey, Channel> channels_;
  std::map<std::uint32_t, std::vector<std::vector<Arrival>>> arrivals_;  // by communicator, by position
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::size_t> positions_;  // (rank, communicator) -> position + 1
};

}  // namespace

Matching match_calls(const std::vector<RankLog>& logs, const Communicators& comms, const EagerLimits& eager) {
  return Matcher(logs, comms, eager).run();
}

std::vector<Arc> arcs_of(const Matching& matching) {
  std::vector<Arc> arcs;
  for (std::size_t i = 0; i < matching.collectives.size(); ++i) {
    const Instance& in = matching.collectives[i];
    const auto arrival = [&](const Member& m) { return matching.calls[m.rank][m.post].enter; };
    const auto arc = [&](const Member& from, const Member& to) {
      if (&from == &to || to.freed < 0) return;
      arcs.push_back({from.rank, from.post, to.rank, static_cast<std::uint32_t>(to.freed), in.construct, 0, i + 1, false});
    };
    const auto& ms = in.members;
    std::size_t last = 0;
    for (std::size_t p = 1; p < ms.size(); ++p) {
      if (arrival(ms[p]) > arrival(ms[last])) last = p;
    }
    switch (in.shape) {
      case Shape::all:
        for (const Member& m : ms) arc(ms[last], m);
        break;
      case Shape::from_root:
        for (const Member& m : ms) arc(ms[in.root], m);
        break;
      case Shape::to_root:
        arc(ms[last], ms[in.root]);
        break;
      case Shape::prefix:
      case Shape::exclusive_prefix: {
        // Member p's result needs the contributions of members 0..p (exscan: 0..p-1).
        std::size_t latest = 0;
        for (std::size_t p = 0; p < ms.size(); ++p) {
          if (in.shape == Shape::prefix && arrival(ms[p]) > arrival(ms[latest])) latest = p;
          if (p > 0 || in.shape == Shape::prefix) arc(ms[latest], ms[p]);
          if (in.shape == Shape::exclusive_prefix && arrival(ms[p]) > arrival(ms[latest])) latest = p;
        }
        break;
      }
      case Shape::none:
        break;
    }
  }
  return arcs;
}

}  // namespace moirai::mpi

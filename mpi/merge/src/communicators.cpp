#include "communicators.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "moirai/mpi/merge.h"

namespace moirai::mpi {

std::uint32_t Communicators::of(const RankLog& log, std::uint16_t local, std::uint64_t record) const {
  const auto& table = global[log.rank];
  const auto found = table.find(local);
  if (found == table.end()) {
    throw MergeError(log.events_path + ": record " + std::to_string(record) + ": communicator " + std::to_string(local) +
                     ", which " + log.defs_path + " defines in no 'comm' line");
  }
  return found->second;
}

namespace {

// kMaxRanksText bounds a communicator name's list of ranks (a definition's text is at most 64 KiB).
constexpr std::size_t kMaxRanksText = 200;

// communicator_name names communicator `id` made from `parent` (-1: an intercommunicator's two groups).
std::string communicator_name(std::uint32_t id, const CommDef& def, std::int64_t parent) {
  if (def.inter) return "intercommunicator " + std::to_string(id) + ": ranks " + ranks_text(def.members, kMaxRanksText) + " | " + ranks_text(def.remote, kMaxRanksText);
  return "communicator " + std::to_string(id) + " of " + (parent == 0 ? std::string("MPI_COMM_WORLD") : "communicator " + std::to_string(parent)) +
         ": ranks " + ranks_text(def.members, kMaxRanksText);
}

}  // namespace

std::string ranks_text(const std::vector<std::int32_t>& ranks, std::size_t max_chars) {
  std::string text;
  for (std::size_t i = 0; i < ranks.size();) {
    std::size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    text += (text.empty() ? "" : ",") + std::to_string(ranks[i]) + (j > i ? "-" + std::to_string(ranks[j]) : "");
    i = j + 1;
    if (text.size() > max_chars && i < ranks.size()) return text + ",... (" + std::to_string(ranks.size()) + " ranks)";
  }
  return text;
}

Communicators unify_communicators(const std::vector<RankLog>& logs) {
  Communicators c;
  const auto size = static_cast<std::int32_t>(logs.size());
  std::vector<std::int32_t> world(logs.size());
  for (std::int32_t r = 0; r < size; ++r) world[r] = r;
  c.members.push_back(world);
  c.inter.push_back(false);
  c.names.push_back("MPI_COMM_WORLD");
  c.global.resize(logs.size());
  // A key names one communicator: its parent (none for an intercommunicator, whose two groups
  // create it from different parents), its members, and which of the equal ones it is.
  using Key = std::tuple<std::int64_t, std::vector<std::int32_t>, std::uint32_t>;
  std::map<Key, std::uint32_t> known;
  for (const RankLog& log : logs) {
    auto& table = c.global[log.rank];
    table[kWorldComm] = 0;
    table[kSelfComm] = static_cast<std::uint32_t>(c.members.size());
    c.members.push_back({static_cast<std::int32_t>(log.rank)});
    c.inter.push_back(false);
    c.names.push_back("MPI_COMM_SELF of rank " + std::to_string(log.rank));
    std::map<std::pair<std::int64_t, std::vector<std::int32_t>>, std::uint32_t> seen;
    // Lines in local id order, a child after its parent: a parent defined later is resolved by
    // another pass.
    std::vector<const CommDef*> pending;
    for (const auto& [id, def] : log.comms) pending.push_back(&def);
    while (!pending.empty()) {
      std::vector<const CommDef*> later;
      for (const CommDef* def : pending) {
        const auto parent = table.find(def->parent);
        if (!def->inter && parent == table.end()) {
          later.push_back(def);
          continue;
        }
        std::vector<std::int32_t> members = def->members;
        if (def->inter) {
          std::vector<std::int32_t> remote = def->remote;
          if (remote < members) std::swap(members, remote);
          members.insert(members.end(), remote.begin(), remote.end());
        }
        if (std::find(members.begin(), members.end(), static_cast<std::int32_t>(log.rank)) == members.end()) {
          throw MergeError(log.defs_path + ": communicator " + std::to_string(def->local) + " does not list rank " +
                           std::to_string(log.rank) + " among its members");
        }
        for (std::int32_t m : members) {
          if (m >= size) throw MergeError(log.defs_path + ": communicator " + std::to_string(def->local) + " lists rank " + std::to_string(m) + ", beyond the world size");
        }
        const std::int64_t parent_id = def->inter ? -1 : static_cast<std::int64_t>(parent->second);
        const std::uint32_t nth = seen[{parent_id, members}]++;
        const Key key{parent_id, members, nth};
        auto [at, added] = known.try_emplace(key, static_cast<std::uint32_t>(c.members.size()));
        if (added) {
          c.names.push_back(communicator_name(at->second, *def, parent_id));
          c.members.push_back(members);
          c.inter.push_back(def->inter);
        }
        table[def->local] = at->second;
      }
      if (later.size() == pending.size()) {
        throw MergeError(log.defs_path + ": communicator " + std::to_string(later.front()->local) + " names parent " +
                         std::to_string(later.front()->parent) + ", which no 'comm' line defines");
      }
      pending = std::move(later);
    }
  }
  return c;
}

}  // namespace moirai::mpi

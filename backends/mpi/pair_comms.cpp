#include "mpi/pair_comms.hpp"

#include <stdexcept>

namespace commbench::mpi {

namespace {
constexpr PairMethod kMethods[] = {PairMethod::world, PairMethod::create, PairMethod::create_group};
}  // namespace

PairMethod parse_pair_method(const std::string& s) {
  std::string known;
  for (PairMethod m : kMethods) {
    if (s == to_string(m)) return m;
    known += (known.empty() ? "" : ", ") + std::string(to_string(m));
  }
  throw std::invalid_argument("pair_comms must be one of " + known + " (got '" + s + "')");
}

SettingInfo pair_comms_setting() {
  std::vector<std::string> names;
  for (PairMethod m : kMethods) names.push_back(to_string(m));
  return {kPairCommsKey, names, to_string(kDefaultPairMethod),
          "start-up communicators: world (one duplicate, connections isolated by tag), "
          "create (MPI4Dask: Comm_create per pair), create_group (per pair, pairwise "
          "collective); fixed per process"};
}

const char* to_string(PairMethod m) noexcept {
  switch (m) {
    case PairMethod::world:
      return "world";
    case PairMethod::create:
      return "create";
    case PairMethod::create_group:
      return "create_group";
  }
  return "?";
}

namespace {

// The group {lo, hi} of `parent`, lo first: in the pair communicator lo is rank 0.
MPI_Group pair_group(MPI_Group parent_group, int lo, int hi) {
  int ranks[2] = {lo, hi};
  MPI_Group g;
  MPI_Group_incl(parent_group, lo == hi ? 1 : 2, ranks, &g);
  return g;
}

void set_self(PairComms& pc, int me) {
  MPI_Comm self;
  MPI_Comm_dup(MPI_COMM_SELF, &self);
  pc.by_peer[static_cast<size_t>(me)] = self;
  pc.peer_rank[static_cast<size_t>(me)] = 0;
  ++pc.created;
}

}  // namespace

PairComms build_pair_comms(MPI_Comm parent, PairMethod method) {
  int me = 0, n = 1;
  MPI_Comm_rank(parent, &me);
  MPI_Comm_size(parent, &n);
  PairComms pc;
  pc.method = method;
  pc.by_peer.assign(static_cast<size_t>(n), MPI_COMM_NULL);
  pc.peer_rank.assign(static_cast<size_t>(n), 0);
  if (method == PairMethod::world) {
    MPI_Comm dup;
    MPI_Comm_dup(parent, &dup);
    for (int r = 0; r < n; ++r) {
      pc.by_peer[static_cast<size_t>(r)] = dup;
      pc.peer_rank[static_cast<size_t>(r)] = r;
    }
    pc.created = 1;
    return pc;
  }
  MPI_Group parent_group;
  MPI_Comm_group(parent, &parent_group);
  // Pairs in one global order (lo, hi) lexicographic: with create_group each rank runs
  // its own pairs in that order, which cannot deadlock (the smallest pending pair always
  // has both members ready for it).
  for (int lo = 0; lo < n; ++lo)
    for (int hi = lo + 1; hi < n; ++hi) {
      bool member = me == lo || me == hi;
      if (method == PairMethod::create_group && !member) continue;
      MPI_Group g = pair_group(parent_group, lo, hi);
      MPI_Comm c = MPI_COMM_NULL;
      if (method == PairMethod::create)
        MPI_Comm_create(parent, g, &c);  // every rank of parent calls, non-members get NULL
      else
        MPI_Comm_create_group(parent, g, 0, &c);
      MPI_Group_free(&g);
      if (!member) continue;
      int peer = me == lo ? hi : lo;
      pc.by_peer[static_cast<size_t>(peer)] = c;
      pc.peer_rank[static_cast<size_t>(peer)] = me == lo ? 1 : 0;
      ++pc.created;
    }
  MPI_Group_free(&parent_group);
  set_self(pc, me);
  return pc;
}

void free_pair_comms(PairComms& pc) {
  if (pc.method == PairMethod::world) {
    if (!pc.by_peer.empty()) MPI_Comm_free(&pc.by_peer[0]);
  } else {
    for (auto& c : pc.by_peer)
      if (c != MPI_COMM_NULL) MPI_Comm_free(&c);
  }
  pc.by_peer.clear();
  pc.peer_rank.clear();
  pc.created = 0;
}

}  // namespace commbench::mpi

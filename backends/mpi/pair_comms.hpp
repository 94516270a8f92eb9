// Start-up isolation: the communicators the MPI backend sends data on.
//
// MPI4Dask builds one communicator per pair of ranks at start-up with Group_incl +
// Comm_create, which is collective over the whole parent for every one of the n(n-1)/2
// pairs. MPI_Comm_create_group is collective over the pair only, so each rank makes n-1
// calls instead of n(n-1)/2. `world` makes a single duplicate of the parent: connections
// are then isolated by their tags (allocated per connection, see mpi_tag_table.hpp), which
// is all the pair communicators add once tags are per connection. All three are measured
// by microbench/mpi_pair_setup.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include "comm/backend_catalog.hpp"

namespace commbench::mpi {

enum class PairMethod { world, create, create_group };

// The --backend-opt key that chooses it, and the method when it is not given (the
// start-up costs measured by microbench/mpi_pair_setup).
inline constexpr const char* kPairCommsKey = "pair_comms";
inline constexpr PairMethod kDefaultPairMethod = PairMethod::world;

// Throws std::invalid_argument naming the accepted values.
PairMethod parse_pair_method(const std::string& s);
const char* to_string(PairMethod m) noexcept;
// The pair_comms key as --list-backends shows it.
SettingInfo pair_comms_setting();

struct PairComms {
  PairMethod method = PairMethod::world;
  // by_peer[r]: the communicator this rank shares with world rank r, and r's rank in it.
  std::vector<MPI_Comm> by_peer;
  std::vector<int> peer_rank;
  size_t created = 0;  // communicators this rank created (and must free)
};

// Collective over `parent` (every rank must call it with the same method).
PairComms build_pair_comms(MPI_Comm parent, PairMethod method);
// Frees what build_pair_comms created (collective for `create`, pairwise otherwise).
void free_pair_comms(PairComms& pc);

}  // namespace commbench::mpi

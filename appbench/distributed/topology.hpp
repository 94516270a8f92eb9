// Which rank plays which role. `dask` is what dask-mpi does (rank 0 scheduler, rank 1
// client, ranks >= 2 workers); `compact` puts scheduler and client on rank 0 so a small
// machine spends its cores on workers (ranks >= 1).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace commbench::app {

enum class Role : uint8_t;  // protocol.hpp

enum class Layout { dask, compact };

struct Topology {
  Layout layout = Layout::compact;
  int ranks = 0;
  int rank = 0;                        // this process
  std::vector<std::string> addresses;  // listener contact address of every rank

  int scheduler_rank() const { return 0; }
  int client_rank() const { return layout == Layout::dask ? 1 : 0; }
  int first_worker_rank() const { return layout == Layout::dask ? 2 : 1; }
  int workers() const { return ranks - first_worker_rank(); }
  int worker_rank(int index) const { return first_worker_rank() + index; }
  const std::string& worker_address(int index) const {
    return addresses[static_cast<size_t>(worker_rank(index))];
  }

  bool is_scheduler() const { return rank == scheduler_rank(); }
  bool is_client() const { return rank == client_rank(); }
  bool is_worker() const { return rank >= first_worker_rank(); }
  int worker_index() const { return rank - first_worker_rank(); }
  // Whether `rank` is who a Hello claiming `role` and `index` says it is: the client's
  // rank for Role::client, worker `index`'s rank for Role::worker and Role::peer. A rank
  // holding the job token still cannot pose as another worker or as the client.
  bool plays(int rank, Role role, int index) const;
  // "worker W (rank R, ADDRESS)": how every error names a worker.
  std::string describe_worker(int index) const;
};

const char* to_string(Layout l);
// Throws std::invalid_argument for anything but one of layout_names().
Layout parse_layout(const std::string& s);
// Every layout by name, the default (compact) first: what --layout accepts.
std::vector<std::string> layout_names();
// The fewest ranks a layout runs with (one worker).
int min_ranks(Layout l);

}  // namespace commbench::app

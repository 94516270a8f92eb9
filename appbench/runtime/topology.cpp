#include "runtime/topology.hpp"

#include <stdexcept>

namespace commbench::app {

const char* to_string(Layout l) {
  return l == Layout::dask ? "dask" : "compact";
}

Layout parse_layout(const std::string& s) {
  if (s == "dask") return Layout::dask;
  if (s == "compact") return Layout::compact;
  throw std::invalid_argument("unknown --layout '" + s + "' (known: compact, dask)");
}

int min_ranks(Layout l) {
  return l == Layout::dask ? 3 : 2;
}

std::string Topology::describe_worker(int index) const {
  return "worker " + std::to_string(index) + " (rank " + std::to_string(worker_rank(index)) + ", " +
         worker_address(index) + ")";
}

}  // namespace commbench::app

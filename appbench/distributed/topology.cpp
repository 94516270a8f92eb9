#include "distributed/topology.hpp"

#include <stdexcept>

#include "distributed/protocol.hpp"

namespace commbench::app {

bool Topology::plays(int r, Role role, int index) const {
  switch (role) {
    case Role::client:
      return r == client_rank();
    case Role::worker:
    case Role::peer:
      return index >= 0 && index < workers() && r == worker_rank(index);
  }
  return false;
}

const char* to_string(Layout l) {
  return l == Layout::dask ? "dask" : "compact";
}

namespace {
constexpr Layout kLayouts[] = {Layout::compact, Layout::dask};
}  // namespace

Layout parse_layout(const std::string& s) {
  for (Layout l : kLayouts)
    if (s == to_string(l)) return l;
  std::string known;
  for (Layout l : kLayouts) known += (known.empty() ? "" : ", ") + std::string(to_string(l));
  throw std::invalid_argument("unknown --layout '" + s + "' (known: " + known + ")");
}

std::vector<std::string> layout_names() {
  std::vector<std::string> names;
  for (Layout l : kLayouts) names.push_back(to_string(l));
  return names;
}

int min_ranks(Layout l) {
  return l == Layout::dask ? 3 : 2;
}

std::string Topology::describe_worker(int index) const {
  return "worker " + std::to_string(index) + " (rank " + std::to_string(worker_rank(index)) + ", " +
         worker_address(index) + ")";
}

}  // namespace commbench::app

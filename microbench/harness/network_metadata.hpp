// The sidecar's account of a run's network path: which interface our listeners bound and
// why, what steered MPI and UCX before they started (steering/library_steering.hpp), and the
// transports the libraries chose for each measured connection. Without it a tcp figure
// cannot say whether it crossed loopback or eth0, nor a ucx figure whether UCX used
// shared memory or tcp.
#pragma once

#include "harness/bootstrap.hpp"
#include "harness/interface.hpp"
#include "harness/metadata.hpp"

namespace commbench {

// Adds "interface", "library_steering" and "transports" to `meta`. `transports` maps a
// backend label (ucx:cooperative, raw-ucx) to its transport list, rank 0's view.
void add_network_metadata(Json& meta, const Bootstrap& boot, const InterfaceChoice& choice,
                          const Json& transports);

}  // namespace commbench

// Will a run's connections fit under the descriptor limit? Checked before the backend
// exists, so a job that cannot fit ends with one line naming RLIMIT_NOFILE and `ulimit -n`
// instead of failing (or, in UCX 1.13, crashing) half-way through its connections.
#pragma once

#include <cstddef>
#include <string>

namespace commbench {

// Descriptors one connection end holds in this process, and what the backend keeps free
// besides: its registry entry's (comm/registry.hpp; the measurement is beside the entries
// in builtin_backends.cpp); 0 for a name the registry does not know (a raw baseline).
size_t descriptors_per_connection(const std::string& backend);
size_t descriptors_kept_free(const std::string& backend);

// Empty when `connections` more connection ends of `backend` fit under this process's
// soft RLIMIT_NOFILE with what is open now; else the one line that says by how much and
// what raises it. `what` names the run ("the all-to-all of 64 ranks").
std::string descriptor_shortfall(const std::string& backend, size_t connections,
                                 const std::string& what);

}  // namespace commbench

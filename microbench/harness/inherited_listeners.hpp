// Listening sockets a rank inherits from its launcher. MPICH's Hydra leaves its control
// port (bound to 0.0.0.0) open across exec, so every rank holds it: `ss -ltnp` then names
// our benchmark as a process listening on all interfaces, though nothing of ours ever
// accepts on it. Closing our copy changes nothing for the launcher (it keeps its own).
#pragma once

namespace commbench {

// Closes every inherited IPv4/IPv6 listening socket; returns how many. Call it first
// thing, before MPI or any backend opens a socket of its own.
int close_inherited_listeners() noexcept;

}  // namespace commbench

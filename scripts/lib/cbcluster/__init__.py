"""The virtual cluster: hosts made of Linux network + UTS namespaces on a private link
(a bridge, or the project's user-space link emulator), and the MPI launchers run across
them. `scripts/vcluster` is its command line; `scripts/reproduce --vcluster` and the tests
use it as a library."""

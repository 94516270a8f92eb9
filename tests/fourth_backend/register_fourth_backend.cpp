// A fourth backend added the way a new one would be: an entry in the registry, nothing
// else. The test-only "fault" wrapper (tests/support/fault: tcp underneath, no fault
// planned unless asked) stands in for it; linked into a copy of pingpong, it must show up
// in --list-backends, carry validated messages, and join the study matrix and the figures
// from those answers alone (check_fourth_backend.py).
#include "comm/registry.hpp"
#include "fault/fault_backend.hpp"

namespace {
// Before main: registry() is built on first use, so the entry is there for every lookup.
const bool registered = (commbench::fault::register_fault_backend(commbench::registry()), true);
}  // namespace

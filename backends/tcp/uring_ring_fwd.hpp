// The tcp:uring ring by name only, so that a build without liburing compiles the TCP
// backend unchanged (COMMBENCH_HAVE_URING says whether the ring itself is built).
#pragma once

namespace commbench::tcp {
class UringRing;
}  // namespace commbench::tcp

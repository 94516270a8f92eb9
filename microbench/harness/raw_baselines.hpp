// The raw baselines: each library without the coroutine layer, and the ways each drives
// its library (its variants). A baseline is worth something only as the best the library
// can do, so where a performance engineer would write the loop differently from the
// textbook one (TCP: spin on a non-blocking socket instead of sleeping in recv), both are
// here and the report takes the coroutine/raw ratio against the faster. The drivers report
// the variant as their CSV progress, make_driver accepts exactly `name:variant`, and
// --list-backends shows this table: one source.
#pragma once

#include <span>
#include <string_view>

namespace commbench {

struct RawVariant {
  const char* name;  // CSV "progress", --backend name:<variant>
  const char* description;
};

struct RawBaseline {
  const char* name;                      // --backend name
  const char* of;                        // the coroutine backend it is the baseline of
  std::span<const RawVariant> variants;  // first = the default
};

inline constexpr RawVariant kRawTcpVariants[] = {
    {"blocking",
     "blocking send/recv on one socket with TCP_NODELAY, no header (NetPIPE's method): the "
     "receiver sleeps in recv and pays a wake-up per message"},
    {"busy-poll",
     "the same socket driven with MSG_DONTWAIT, spinning on EAGAIN until each send and "
     "receive is done (no sleep, no wake-up; a bidirectional window progresses both "
     "directions in one thread)"},
};
inline constexpr RawVariant kRawUcxVariants[] = {
    {"polling",
     "a plain UCP tag loop busy-polling ucp_worker_progress until each request is done "
     "(ucx_perftest -E poll)"},
    {"sleep",
     "the same loop, but when a progress call finds nothing it sleeps in ucp_worker_wait "
     "(arm + the worker's event fd; ucx_perftest -E sleep): a waiting sender leaves the "
     "CPU to the receiver that copies a large message"},
};
inline constexpr RawVariant kRawMpiVariants[] = {
    {"blocking", "blocking MPI_Send/MPI_Recv, windows of MPI_Isend + MPI_Waitall (OSU's method)"},
    {"test",
     "MPI_Isend/MPI_Irecv, each request completed by a spin on MPI_Test (a window's by "
     "MPI_Testall): the calls an event loop must make, without the loop. Slower than "
     "blocking; it shows how much of a coroutine policy's cost is MPI's request API"},
};

inline constexpr RawBaseline kRawTcp{"raw-tcp", "tcp", kRawTcpVariants};
inline constexpr RawBaseline kRawUcx{"raw-ucx", "ucx", kRawUcxVariants};
inline constexpr RawBaseline kRawMpi{"raw-mpi", "mpi", kRawMpiVariants};
inline constexpr RawBaseline kRawBaselines[] = {kRawTcp, kRawUcx, kRawMpi};

// The variant called `name` ("" = the default); nullptr when the baseline has none.
inline const RawVariant* find_variant(const RawBaseline& b, std::string_view name) {
  if (name.empty()) return &b.variants.front();
  for (const auto& v : b.variants)
    if (name == v.name) return &v;
  return nullptr;
}

}  // namespace commbench

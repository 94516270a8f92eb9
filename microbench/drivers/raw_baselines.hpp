// The raw baselines: each library without the coroutine layer, and the one way each
// drives its library. The drivers report `policy` as their CSV progress, make_driver
// accepts exactly `name:policy`, and --list-backends shows this table: one source.
#pragma once

namespace commbench {

struct RawBaseline {
  const char* name;    // --backend name
  const char* of;      // the coroutine backend it is the baseline of
  const char* policy;  // its only progress policy (CSV "progress")
  const char* description;
};

inline constexpr RawBaseline kRawTcp{"raw-tcp", "tcp", "blocking",
                                     "blocking send/recv on one socket with TCP_NODELAY, no "
                                     "header (NetPIPE's method)"};
inline constexpr RawBaseline kRawUcx{"raw-ucx", "ucx", "polling",
                                     "a plain UCP tag loop busy-polling ucp_worker_progress "
                                     "until each request is done (ucx_perftest -E poll)"};
inline constexpr RawBaseline kRawMpi{"raw-mpi", "mpi", "blocking",
                                     "blocking MPI_Send/MPI_Recv, windows of MPI_Isend + "
                                     "MPI_Waitall (OSU's method)"};
inline constexpr RawBaseline kRawBaselines[] = {kRawTcp, kRawUcx, kRawMpi};

}  // namespace commbench

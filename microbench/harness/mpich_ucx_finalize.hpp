// MPI_Finalize that cannot hang on MPICH 4.0.2's UCX netmod.
//
// Why: MPICH 4.0.x closes every UCX endpoint in flush mode at finalize, progresses its
// worker until its own closes complete, then waits in a PMI barrier where nothing
// progresses UCX. Over UCX's tcp transport a flush-mode close needs the peer to answer
// (25 bytes sit unread in the waiting ranks' sockets when it hangs), so a rank that
// finished its closes and sits in the barrier stops the ranks still closing towards it:
// every rank waits forever. Upstream removed that barrier (pmodels/mpich PR 6596, first in
// 4.2.0b1); Debian ships 4.0.2, with no variable that avoids it.
//
// The remedy keeps every rank progressing until every rank's closes are done. This module
// defines ucp_worker_create and ucp_disconnect_nb in the executable, so MPICH's calls reach
// it first (the real ones are found with dlsym(RTLD_NEXT)):
//   - while Bootstrap runs MPI_Init, each worker MPICH creates is remembered;
//   - once Bootstrap arms it before MPI_Finalize, MPICH's last ucp_disconnect_nb (one per
//     rank) does not return until this rank's closes have completed and then every rank
//     has reached one extra PMI barrier, progressing MPICH's workers all the while. That
//     barrier is the PMI-1 request MPICH itself sends ("cmd=barrier_in"), written on the
//     launcher's PMI_FD. After it no close is waiting for anybody, so MPICH's own barrier
//     cannot stop one.
// It engages only where every rank will engage: an MPICH build, PMI-1 over PMI_FD (Hydra,
// Slurm's pmi2 plugin), one VCI. Anywhere else MPI_Finalize runs as MPICH wrote it, and
// FinalizeWatchdog remains the last resort.
#pragma once

namespace commbench::mpich_ucx_finalize {

// Remembers the UCX workers created while it lives (MPICH's, during MPI_Init).
class CaptureLibraryWorkers {
 public:
  CaptureLibraryWorkers();
  ~CaptureLibraryWorkers();
  CaptureLibraryWorkers(const CaptureLibraryWorkers&) = delete;
  CaptureLibraryWorkers& operator=(const CaptureLibraryWorkers&) = delete;
};

// Called by every rank right before MPI_Finalize: `ranks` is MPI_COMM_WORLD's size.
void arm(int ranks);

}  // namespace commbench::mpich_ucx_finalize

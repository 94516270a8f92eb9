#include "harness/mpich_ucx_finalize.hpp"

#include <mpi.h>

#if defined(MPICH_VERSION)

#include <dlfcn.h>
#include <poll.h>
#include <ucp/api/ucp.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace {

// All of this runs on the thread inside MPI_Init or MPI_Finalize (MPICH does not call
// these two from anywhere else), so plain statics are enough.
bool capturing = false;
std::vector<ucp_worker_h> library_workers;
int closes_expected = 0;  // 0: not armed
int closes_seen = 0;
std::vector<void*> pending_closes;

template <typename Fn>
Fn real(const char* name) {
  return reinterpret_cast<Fn>(dlsym(RTLD_NEXT, name));
}

void progress_library_workers() {
  for (ucp_worker_h w : library_workers) ucp_worker_progress(w);
}

// The PMI-1 descriptor both ends of the barrier need, or -1 where MPICH does not speak
// PMI-1 over an inherited descriptor (then no rank engages: they all share this env).
int pmi1_fd() {
  const char* version = std::getenv("MPIR_CVAR_PMI_VERSION");
  if (version && std::string_view(version) != "1") return -1;
  const char* vcis = std::getenv("MPIR_CVAR_CH4_NUM_VCIS");
  if (vcis && std::string_view(vcis) != "1") return -1;
  const char* fd = std::getenv("PMI_FD");
  if (!fd || !*fd) return -1;
  char* end = nullptr;
  long v = std::strtol(fd, &end, 10);
  return (*end == '\0' && v >= 0) ? static_cast<int>(v) : -1;
}

// One PMI-1 barrier, with MPICH's workers progressing while the launcher waits for the
// other ranks. False if the launcher's answer is not the barrier's (then MPICH's own
// barrier decides; nothing worse than before happens).
bool progressing_pmi_barrier(int fd) {
  static constexpr std::string_view request = "cmd=barrier_in\n";
  if (write(fd, request.data(), request.size()) != static_cast<ssize_t>(request.size()))
    return false;
  std::string line;
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 0) <= 0) {
      progress_library_workers();
      continue;
    }
    char c = 0;
    if (read(fd, &c, 1) != 1) return false;  // one byte at a time: leave MPICH's next line
    if (c == '\n') break;
    line.push_back(c);
  }
  return line == "cmd=barrier_out";
}

void wait_for_own_closes() {
  for (;;) {
    bool done = true;
    for (void* r : pending_closes) done = done && ucp_request_check_status(r) != UCS_INPROGRESS;
    if (done) return;
    progress_library_workers();
  }
}

}  // namespace

extern "C" ucs_status_t ucp_worker_create(ucp_context_h context, const ucp_worker_params_t* params,
                                          ucp_worker_h* worker) {
  using Fn = ucs_status_t (*)(ucp_context_h, const ucp_worker_params_t*, ucp_worker_h*);
  static const Fn create = real<Fn>("ucp_worker_create");
  ucs_status_t s = create(context, params, worker);
  if (s == UCS_OK && capturing) library_workers.push_back(*worker);
  return s;
}

extern "C" ucs_status_ptr_t ucp_disconnect_nb(ucp_ep_h ep) {
  using Fn = ucs_status_ptr_t (*)(ucp_ep_h);
  static const Fn disconnect = real<Fn>("ucp_disconnect_nb");
  ucs_status_ptr_t r = disconnect(ep);
  if (closes_expected == 0) return r;
  if (UCS_PTR_IS_PTR(r)) pending_closes.push_back(r);
  if (++closes_seen != closes_expected) return r;
  // MPICH's last close has started: return only when no rank still needs us.
  closes_expected = 0;
  int fd = pmi1_fd();
  if (fd < 0) return r;
  wait_for_own_closes();
  progressing_pmi_barrier(fd);
  pending_closes.clear();  // MPICH releases them
  return r;
}

namespace commbench::mpich_ucx_finalize {

CaptureLibraryWorkers::CaptureLibraryWorkers() {
  capturing = true;
}
CaptureLibraryWorkers::~CaptureLibraryWorkers() {
  capturing = false;
}

void arm(int ranks) {
  // MPICH 4.0.2 closes one endpoint per rank (itself included) per VCI pair; one VCI.
  if (!library_workers.empty() && pmi1_fd() >= 0) closes_expected = ranks;
}

}  // namespace commbench::mpich_ucx_finalize

#else  // Open MPI closes its endpoints without this barrier: nothing to do.

namespace commbench::mpich_ucx_finalize {
CaptureLibraryWorkers::CaptureLibraryWorkers() = default;
CaptureLibraryWorkers::~CaptureLibraryWorkers() = default;
void arm(int) {}
}  // namespace commbench::mpich_ucx_finalize

#endif

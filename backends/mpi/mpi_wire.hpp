// How a message maps onto MPI messages on one connection, and the MPI calls that move
// one piece of it.
//
// packed (default): one MPI message = the frame header (comm/frame_header.hpp) followed
//   by every frame that still fits in `eager` bytes, in order; frames that do not fit
//   follow as their own MPI messages (split into `chunk`-sized pieces). A small message
//   is therefore ONE matched transfer. The receiver decides which frames were inline by
//   the same rule from the sizes in the header.
//   bare (packed, on a lane; mpi_context.hpp): a message of one host frame within the
//   inline budget goes as the frame's bytes alone, tagged kLaneTagBare, straight from
//   the caller's buffer. Without a header a 1–8 B message stays in Open MPI's
//   shared-memory fast box (32 bytes with the library's own header) and a 256 B one
//   within vader's 256-byte inline send; the 20-byte header pushed both into the next
//   size class (results/quiet-2026-11-22, commands.sh mpi-shift).
// per-frame: MPI4Dask's shape: the fixed header (magic, count) alone, then the frame
//   descriptors, then each frame (chunked), so every write is >= 3 MPI messages.
// Chunking: frames larger than `chunk` go as several messages. With MPI-4 large-count
// calls (MPI_Isend_c) a chunk may exceed 2^31-1 bytes (chunk=0: never split); without
// them the chunk is capped at 1 GiB.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <string>
#include <vector>

#include "comm/backend_catalog.hpp"
#include "comm/comm.hpp"

namespace commbench::mpi {

#if MPI_VERSION >= 4
constexpr bool kLargeCount = true;
#else
constexpr bool kLargeCount = false;
#endif

enum class WireShape { packed, per_frame };

// Default inline budget: a packed message (header + inline frames) must stay under the
// library's shared-memory eager limit. Past it the message goes by rendezvous anyway, and
// then packing only adds two copies: a 4 KiB frame packed behind its header cost 1.24x
// raw-mpi one-way on Open MPI, sent as its own message after a small header 1.11x; at
// 16 KiB 1.34x vs 1.03x (scripts/studies/quiet-2026-11-22/commands.sh mpi-eager, SUMMARY.md;
// each ratio within one invocation). Open MPI's vader eager limit is 4 KiB, MPICH's ch4
// shared-memory one 16 KiB; 128 bytes stay for the header and the library's envelope.
#if defined(OPEN_MPI) && OPEN_MPI
constexpr size_t kDefaultEagerBudget = 4096 - 128;
#else
constexpr size_t kDefaultEagerBudget = 16 * 1024 - 128;
#endif

struct WireOptions {
  WireShape shape = WireShape::packed;
  size_t eager = kDefaultEagerBudget;  // inline budget of a packed message (frame bytes)
  size_t chunk = 1ull << 30;           // largest single MPI message of a frame (0 = unlimited)
  CommLimits limits;
};

// Reads wire, eager, chunk from BackendOptions.extra (other keys are left alone: they
// may belong to other backends). Throws std::invalid_argument with a one-line message.
WireOptions parse_wire_options(const BackendOptions& o);
// The keys parse_wire_options reads, with their values and defaults (--list-backends).
std::vector<SettingInfo> wire_settings();
const char* to_string(WireShape w) noexcept;
// "4K", "1M", "2560M", "1G", plain bytes.
size_t parse_bytes(const std::string& s);

// Number of MPI messages a frame of `bytes` takes as its own message(s).
inline size_t chunks_for(size_t bytes, size_t chunk) noexcept {
  if (chunk == 0 || bytes <= chunk) return 1;
  return (bytes + chunk - 1) / chunk;
}

// One chunk. `bytes` <= chunk (and <= INT_MAX without large counts).
int isend_bytes(const void* p, size_t bytes, int dest, int tag, MPI_Comm c, MPI_Request* r);
int irecv_bytes(void* p, size_t bytes, int src, int tag, MPI_Comm c, MPI_Request* r);
// Bytes received by a completed receive.
size_t received_bytes(const MPI_Status& st);

}  // namespace commbench::mpi

// How a message maps onto MPI messages on one connection, and the MPI calls that move
// one piece of it.
//
// packed (default): one MPI message = the frame header (comm/frame_header.hpp) followed
//   by every frame that still fits in `eager` bytes, in order; frames that do not fit
//   follow as their own MPI messages (split into `chunk`-sized pieces). A small message
//   is therefore ONE matched transfer. The receiver decides which frames were inline by
//   the same rule (plan_message) from the sizes in the header.
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
#include <span>
#include <string>
#include <vector>

#include "comm/backend_catalog.hpp"
#include "comm/comm.hpp"
#include "comm/frame_header.hpp"

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

// Calls piece(offset, bytes) for each of the chunks_for(bytes, chunk) MPI messages of a
// frame sent on its own, in order. One definition for sender and receiver: both must cut
// a frame at the same offsets, or a receive would be posted for the wrong size.
template <class Piece>
void for_each_chunk(size_t bytes, size_t chunk, Piece&& piece) {
  const size_t n = chunks_for(bytes, chunk);
  if (n == 1) {
    piece(size_t{0}, bytes);
    return;
  }
  for (size_t off = 0; off < bytes; off += chunk)
    piece(off, bytes - off < chunk ? bytes - off : chunk);
}

// --- the plan of one message ---------------------------------------------------------------
// Sender and receiver must agree on how a message is laid out, so both derive it from
// the frame sizes by this one rule (plan_message), computed once per message; write and
// read only execute the plan.

enum class Layout {
  bare,       // one MPI message: the single frame's bytes, no header (lanes only)
  packed,     // header + the inline frames in one MPI message, then the other frames
  per_frame,  // fixed header, then the descriptors, then every frame
};

// Where one frame travels.
struct FramePlace {
  size_t offset = 0;  // inline: where its bytes start in the first MPI message
  size_t pieces = 0;  // separate: the MPI messages (chunks) it takes; 0 = inline
  bool is_inline() const noexcept { return pieces == 0; }
};

struct MessagePlan {
  Layout layout = Layout::packed;
  size_t header_bytes = 0;    // the frame header (0 when bare)
  size_t inline_bytes = 0;    // frame bytes inside the first MPI message
  size_t frame_messages = 0;  // MPI messages of the frames that travel on their own

  // Bytes of the first MPI message (a packed message's whole header part; per-frame: the
  // fixed header alone, the descriptors follow as the second message).
  size_t first_bytes() const noexcept {
    return layout == Layout::per_frame ? kFixedHeaderBytes : header_bytes + inline_bytes;
  }
  // Messages before the separate frames: per-frame sends the descriptors on their own.
  size_t lead_messages() const noexcept { return layout == Layout::per_frame ? 2 : 1; }
  size_t messages() const noexcept { return lead_messages() + frame_messages; }
};

// Whether a message of `frames` goes bare (plan_message's first rule; mpi write's
// frame-free path asks it alone).
template <class Frame>
bool goes_bare(std::span<const Frame> frames, const WireOptions& wire, bool may_go_bare) noexcept {
  return wire.shape == WireShape::packed && may_go_bare && frames.size() == 1 &&
         frames[0].kind == MemoryKind::host && frames[0].size <= wire.eager;
}

// The plan of a message of `frames` (anything with .size and .kind: Buffer, FrameInfo)
// under `wire`; places[i] receives frame i's place (places holds at least frames.size()).
// may_go_bare: the sender's route is a lane (the receiver passes false: the tag told it
// whether the message is bare). Packed inlines, in order, every frame that still fits in
// the `eager` budget left by the frames inlined before it (so a 0-byte frame always does);
// per-frame inlines nothing, and neither layout inlines a device frame.
template <class Frame>
MessagePlan plan_message(std::span<const Frame> frames, const WireOptions& wire, bool may_go_bare,
                         std::span<FramePlace> places) noexcept {
  MessagePlan plan;
  const bool packed = wire.shape == WireShape::packed;
  if (goes_bare(frames, wire, may_go_bare)) {
    plan.layout = Layout::bare;
    plan.inline_bytes = frames[0].size;
    places[0] = FramePlace{};
    return plan;
  }
  plan.layout = packed ? Layout::packed : Layout::per_frame;
  plan.header_bytes = header_bytes(frames.size());
  size_t budget = packed ? wire.eager : 0;
  for (size_t i = 0; i < frames.size(); ++i) {
    const size_t size = frames[i].size;
    // Device frames always travel on their own: a CUDA-aware MPI reads them in place.
    if (packed && frames[i].kind == MemoryKind::host && size <= budget) {
      budget -= size;
      places[i] = FramePlace{plan.header_bytes + plan.inline_bytes, 0};
      plan.inline_bytes += size;
    } else {
      places[i] = FramePlace{0, chunks_for(size, wire.chunk)};
      plan.frame_messages += places[i].pieces;
    }
  }
  return plan;
}

// One chunk. `bytes` <= chunk (and <= INT_MAX without large counts).
int isend_bytes(const void* p, size_t bytes, int dest, int tag, MPI_Comm c, MPI_Request* r);
int irecv_bytes(void* p, size_t bytes, int src, int tag, MPI_Comm c, MPI_Request* r);
// Bytes received by a completed receive.
size_t received_bytes(const MPI_Status& st);
// Throws CommClosedError naming the MPI error of a failed call or request.
[[noreturn]] void throw_mpi_error(int code, const char* what);

}  // namespace commbench::mpi

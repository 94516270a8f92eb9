// One UCX connection: an endpoint plus the two tags agreed in the handshake.
//
// Wire: every message starts with one tag message, the packet: the frame header
// (comm/frame_header.hpp) followed by the small host frames packed in (a small message is
// exactly one tag message). Frames that do not fit follow as their own tag messages,
// received in place. Which frames are packed is a function of the frame sizes and kinds
// alone, so the receiver derives it from the header. All of a message's sends are posted
// without suspending, and UCP keeps one endpoint's tag messages in order, so concurrent
// writers never interleave; reads take turns (their receives must be posted in order).
// Bare messages: a message of one host frame that would fit the packet goes as the frame's
// bytes alone, straight from the caller's buffer, with kBareTagBit set in its tag; the
// packet receive ignores that bit (tag mask), and the bit tells the reader which it got.
// Header, packing copy and decode cost ~0.03–0.2 µs per small message: ucx:cooperative
// went from 1.24x to 1.13x of raw-ucx at 128 B and 1.45x to 1.20x at 512 B
// (results/quiet-2026-11-22/ab-ucx-bare, SUMMARY.md). A bare message is not copied out of
// the receive block either: the block becomes the message's frame (unpack_bare_message).
// A graceful close sends a 4-byte close packet before closing the endpoint, so the peer's
// read fails with CommClosedError deterministically, after everything sent before it. It
// waits for that packet and the flush at most 2 s: a peer that stopped progressing may
// never free the slot the packet needs (backends/ucx/README.md, "Closing when...").
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "comm/comm.hpp"
#include "comm/frame_header.hpp"
#include "runtime/async_mutex.hpp"
#include "ucx/ucx_worker.hpp"

namespace commbench::ucx {

class UcxComm final : public Comm {
 public:
  UcxComm(std::shared_ptr<Worker> data, std::shared_ptr<Worker> control,
          std::shared_ptr<EndpointState> ep, uint64_t send_tag, uint64_t recv_tag,
          std::string local, std::string peer, const CommLimits& limits);
  ~UcxComm() override;

  Task<void> write(const Message& msg, CancelToken token = {}) override;
  Task<void> read(Message& into, CancelToken token = {}) override;
  Task<void> close() override;
  void abort() noexcept override;
  bool closed() const noexcept override { return closed_ || peer_closed_ || ep_->failed; }
  std::string local_address() const override { return local_; }
  std::string peer_address() const override { return peer_; }
  std::string peer_id() const override { return peer_id_; }
  void set_peer_id(std::string id) { peer_id_ = std::move(id); }
  std::vector<std::string> transports() const override;  // the data endpoint's lanes

 private:
  // The per-message path awaits Worker::wait directly in write() and read(): no coroutine
  // of its own per send, receive or wait.
  //
  // Posts one tag send; on immediate completion op.done is set and nothing is pending.
  ucs_status_t post_send(const void* data, size_t size, Op& op, ucp_tag_t tag);
  // Posts one tag receive of at most `capacity` bytes (`mask`: which tag bits must match);
  // false when the message was already here and `op` is done. Otherwise the caller awaits
  // worker_->wait(op, token, receive_hook()) and then calls received().
  bool post_receive(void* data, size_t capacity, Op& op, ucp_tag_t mask);
  // What a finished receive got: its length, or the error it failed with, thrown.
  size_t received(Op& op, CancelToken token);
  CancelHook receive_hook() noexcept { return {&UcxComm::cancel_receive, this}; }
  CancelHook send_hook() noexcept { return {&UcxComm::cancel_send, this}; }
  bool goes_bare(const Message& msg) const noexcept;
  // write's parts (ucx_comm.cpp): the coroutine for any message, started by write; an
  // immediate send's error, reported when awaited; a send UCX did not finish at once
  // although asked to, polled to its end.
  Task<void> write_message(const Message& msg, CancelToken token);
  Task<void> send_failed(ucs_status_t status, CancelToken token);
  Task<void> finish_unowned_send(void* request, CancelToken token);
  // Cooperative: one worker progress after a write has posted its sends.
  void progress_after_send();
  [[noreturn]] void write_failed(ucs_status_t status, CancelToken token);
  std::byte* take_packet();
  void give_packet(std::byte* p) { free_packets_.push_back(p); }
  [[noreturn]] void closed_error(const char* op) const;
  void release_user() noexcept;
  static void cancel_receive(void* self, void* request);
  static void cancel_send(void* self, void* request);

  std::shared_ptr<Worker> worker_;   // data worker
  std::shared_ptr<Worker> control_;  // control worker (watches the peer)
  std::shared_ptr<EndpointState> ep_;
  uint64_t send_tag_;
  uint64_t recv_tag_;
  std::string local_;
  std::string peer_;
  std::string peer_id_;  // what the peer's hello claimed
  CommLimits limits_;
  AsyncMutex read_lock_;
  bool closed_ = false;
  bool peer_closed_ = false;
  bool user_ = true;  // counted in the worker's users (background progress while open)
  // Packets of writes in flight: owned here, reused (no allocation per message).
  std::vector<std::unique_ptr<std::byte[]>> packets_;
  std::vector<std::byte*> free_packets_;
  Storage packet_in_;  // every read's first receive; a bare message's block becomes its frame
  std::vector<std::byte> descriptors_in_;
  std::vector<FrameInfo> frames_in_;
};

}  // namespace commbench::ucx

// The control channel: a private duplicate of MPI_COMM_WORLD that carries the connection
// protocol, apart from the data so no data receive can ever match a control message.
//   kTagConnect  connector -> listener rank: ConnectRequest
//   kTagNotice   "I closed; I sent you N messages on your tag T": CloseNotice
//   reply        listener rank -> connector, on tag = the connector's incoming tag:
//                ConnectReply
// While listening, one receive for each of the first two is always posted; what arrives
// goes to a ControlHandler (the context), which knows the listeners and channels.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "comm/peer_auth.hpp"

namespace commbench::mpi {

class Graveyard;

// Wire structs of the control channel (same-architecture peers: plain memcpy).
// Version 2 carries the job token and the connector's identity (comm/peer_auth.hpp): a
// listener refuses a request with another job's token (status 3) and counts it.
struct ConnectRequest {
  static constexpr uint32_t kMagic = 0x514d4243;  // "CBMQ"
  static constexpr uint16_t kVersion = 2;
  uint32_t magic = kMagic;
  uint16_t version = kVersion;
  uint16_t reply_lane = 0;  // lane + 1 the connector receives on (0: none, use reply_tag)
  int32_t service = 0;
  int32_t reply_tag = 0;  // the connector's incoming tag; the reply comes on it
  uint64_t nonce = 0;
  JobToken token{};
  uint16_t id_len = 0;  // bytes of `id` used (<= kMaxPeerId)
  char id[kMaxPeerId] = {};
};
static_assert(sizeof(ConnectRequest) <= 128,
              "ConnectRequest outgrew ControlChannel::kControlBytes");
struct ConnectReply {
  static constexpr uint32_t kMagic = 0x524d4243;  // "CBMR"
  uint32_t magic = kMagic;
  int32_t status = 0;  // 0 accepted, 1 no listener on that service, 2 bad request,
                       // 3 wrong job token
  int32_t tag = 0;     // the listener end's incoming tag
  int32_t lane = 0;    // lane + 1 the listener end receives on (0: none)
  uint64_t nonce = 0;
  uint16_t id_len = 0;  // the listener's identity (Comm::peer_id), as in the request
  char id[kMaxPeerId] = {};
};
struct CloseNotice {
  static constexpr uint32_t kMagic = 0x4e4d4243;  // "CBMN"
  uint32_t magic = kMagic;
  int32_t tag = 0;  // the receiver's incoming tag
  uint64_t sent = 0;
};

// Who handles what arrives. `msg` is the received bytes, valid during the call only.
class ControlHandler {
 public:
  virtual void on_connect_request(int source, std::span<const std::byte> msg) = 0;
  virtual void on_close_notice(int source, std::span<const std::byte> msg) = 0;

 protected:
  ~ControlHandler() = default;
};

class ControlChannel {
 public:
  // The largest control message a receive takes (a ConnectRequest).
  static constexpr size_t kControlBytes = 128;
  static constexpr int kTagConnect = 1;
  static constexpr int kTagNotice = 2;

  // Duplicates `world` (collective over it); errors come back as return codes.
  void open(MPI_Comm world);
  MPI_Comm comm() const noexcept { return comm_; }

  // Posts the two receives.
  void listen();
  // Cancels them; a message one of them matched before the cancel still goes to `h`.
  void stop_listening(ControlHandler& h);
  // Hands what arrived to `h`, a bounded number per call. True if something did.
  bool poll(ControlHandler& h);
  // Sends a small message without waiting for it: the request and its copy of the
  // bytes go to the graveyard.
  void send(const void* data, size_t bytes, int dest, int tag, Graveyard& graves);
  // Takes whatever arrived after the last listen (a peer's last close notices), then
  // frees the communicator.
  void release(std::vector<std::byte>& scratch) noexcept;

 private:
  struct Receive {
    int tag;
    MPI_Request req = MPI_REQUEST_NULL;
    std::byte buf[kControlBytes] = {};
  };
  void post(Receive& r);
  void dispatch(Receive& r, const MPI_Status& st, ControlHandler& h);

  MPI_Comm comm_ = MPI_COMM_NULL;
  bool listening_ = false;
  Receive receives_[2] = {{kTagConnect}, {kTagNotice}};
};

}  // namespace commbench::mpi

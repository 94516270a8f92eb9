// The control channel: a private duplicate of MPI_COMM_WORLD that carries the connection
// protocol, apart from the data so no data receive can ever match a control message.
//   kTagConnect  connector -> listener rank: ConnectRequest
//   kTagNotice   "I closed; I sent you N messages on your tag T": CloseNotice
//   reply        listener rank -> connector, on tag = the connector's incoming tag:
//                ConnectReply
// (those structs and their decoders: mpi_control_wire.hpp, free of MPI for the fuzzer).
// While listening, one receive for each of the first two is always posted; what arrives
// goes to a ControlHandler (the context), which knows the listeners and channels.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <span>
#include <vector>

#include "mpi/mpi_control_wire.hpp"

namespace commbench::mpi {

class Graveyard;

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

// The base of comms that wrap another (gpu/staged_comm.hpp, gpu/cuda_ipc_comm.hpp, the
// tests' fault comm): they change what write() and read() do with messages and keep the
// connection's lifetime and identity, so everything else forwards to the inner comm.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "comm/comm.hpp"

namespace commbench {

class CommDecorator : public Comm {
 public:
  explicit CommDecorator(std::unique_ptr<Comm> inner) : inner_(std::move(inner)) {}

  Task<void> close() override { return inner_->close(); }
  void abort() noexcept override { inner_->abort(); }
  bool closed() const noexcept override { return inner_->closed(); }
  std::string local_address() const override { return inner_->local_address(); }
  std::string peer_address() const override { return inner_->peer_address(); }
  std::string peer_id() const override { return inner_->peer_id(); }
  std::vector<std::string> transports() const override { return inner_->transports(); }

  Comm& inner() noexcept { return *inner_; }

 protected:
  std::unique_ptr<Comm> inner_;
};

}  // namespace commbench

// Tests only (--test-stray): a peer that does not belong, knocking on a rank's listener
// for as long as it lives. Run on a third rank (mpirun -np 3), it connects over and over
// while the two measuring ranks connect, measure and tear down, each time as another kind
// of stray: a hello with a wrong job token, one with the right token but the identity of
// a rank that is not the expected peer, a version-1 hello (no token at all), and a
// connection that says nothing. The listener must refuse every one (and count it in the
// sidecar's rejected_peers) while the run's bytes stay correct (--validate).
#pragma once

#include <atomic>
#include <cstddef>
#include <thread>

#include "comm/address.hpp"
#include "comm/peer_auth.hpp"

namespace commbench {

class StrayPeer {
 public:
  // Starts knocking on `target` (a TCP host:port). `job_token`: the real one, for the
  // wrong-identity stray (a rank of this job posing as another); the others alter it.
  StrayPeer(HostPort target, const JobToken& job_token);
  ~StrayPeer();  // stops and joins
  StrayPeer(const StrayPeer&) = delete;
  StrayPeer& operator=(const StrayPeer&) = delete;

 private:
  void run();
  void knock(int kind);

  HostPort target_;
  JobToken token_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace commbench

// A Driver runs the timed loops of one backend between ranks 0 and 1. Every backend,
// coroutine comm or raw library, is one Driver; pingpong and bandwidth never branch on
// which. Both ranks call the same methods in the same order (the harness interleaves
// drivers), so a driver may assume its peer is in the same call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "harness/bench_options.hpp"
#include "harness/bootstrap.hpp"
#include "runtime/event_loop.hpp"

namespace commbench {

struct DriverEnv {
  Bootstrap& boot;
  EventLoop& loop;
  const BenchOptions& opts;
  std::string host;  // address this rank listens on
};

class Driver {
 public:
  virtual ~Driver() = default;
  virtual std::string backend() const = 0;   // CSV "backend" (tcp, raw-tcp, ...)
  virtual std::string progress() const = 0;  // CSV "progress"
  virtual std::string wire() const { return ""; }
  // CSV "gpu_path": how device buffers cross (none = host memory or a host-only driver).
  virtual std::string gpu_path() const { return "none"; }
  // The library transports this rank's connection uses (Comm::transports()); empty when
  // the driver has none to name. Metadata only: called once, outside the timed loops.
  virtual std::vector<std::string> transports() const { return {}; }

  // Collective between ranks 0 and 1: connect.
  virtual void connect() = 0;
  // Allocates buffers for messages of up to `max_size` bytes (called once).
  virtual void prepare(size_t max_size) = 0;

  // `iters` round trips of `size` bytes; rank 0 sends first. Rank 0 stores each round
  // trip's duration in samples_ns[i] (rank 1 may ignore samples_ns). With `validate`,
  // message k carries pattern seed `seed + k` and every received byte is checked.
  // Returns the number of wrong bytes this rank received.
  virtual size_t pingpong(size_t size, size_t iters, uint64_t seed, bool validate,
                          uint64_t* samples_ns) = 0;

  // `iters` windows: rank 0 sends `window` messages of `size` bytes with all of them in
  // flight, rank 1 receives them and answers with a 1-byte ack. With `bidirectional`
  // both ranks send and receive a window at once (no ack). Returns wrong bytes received.
  virtual size_t bandwidth(size_t size, size_t iters, size_t window, bool bidirectional,
                           uint64_t seed, bool validate) = 0;

  virtual void close() = 0;
};

// "tcp", "mpi", "ucx" -> the coroutine comm driver for that scheme; "raw-*" -> the
// library's own baseline. Throws std::invalid_argument listing the known names.
std::unique_ptr<Driver> make_driver(const BackendSpec& spec, DriverEnv& env);

}  // namespace commbench

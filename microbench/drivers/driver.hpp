// A Driver is one --backend entry between ranks 0 and 1: it connects, owns the buffers
// and names itself for the CSV. It runs no loop: the benchmarks (pingpong.cpp,
// bandwidth.cpp) own their timed loops and drive a driver through its primitives, reached
// with run_loop() (drivers/run_loop.hpp). Both ranks call the same methods in the same
// order (the harness interleaves drivers), so a driver may assume its peer is in the same
// call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
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
  // run_loop() finds the concrete type (dynamic_cast, once per repetition) that the
  // benchmark's loop is instantiated for, so no message pays for the dispatch.
  explicit Driver(DriverEnv& env) : env_(env) {}
  virtual ~Driver() = default;
  Driver(const Driver&) = delete;
  Driver& operator=(const Driver&) = delete;

  int rank() const { return env_.boot.rank(); }

  virtual std::string backend() const = 0;   // CSV "backend" (tcp, raw-tcp, ...)
  virtual std::string progress() const = 0;  // CSV "progress"
  virtual std::string wire() const { return ""; }
  // CSV "idle": the entry's @idle rule ("" = the run's --idle-spin); the session applies it.
  const std::string& idle() const { return idle_; }
  void set_idle(std::string rule) { idle_ = std::move(rule); }
  // CSV "gpu_path": how device buffers cross (none = host memory or a host-only driver).
  virtual std::string gpu_path() const { return "none"; }
  // The library transports this rank's connection uses (Comm::transports()); empty when
  // the driver has none to name. Metadata only: called once, outside the timed loops.
  virtual std::vector<std::string> transports() const { return {}; }

  // Collective between ranks 0 and 1: connect.
  virtual void connect() = 0;
  // Allocates buffers for messages of up to `max_size` bytes (called once).
  virtual void prepare(size_t max_size) = 0;
  virtual void close() = 0;

 protected:
  DriverEnv& env_;

 private:
  std::string idle_;
};

// "tcp", "mpi", "ucx" -> the coroutine comm driver for that scheme; "raw-*" -> the
// library's own baseline. Throws std::invalid_argument listing the known names.
std::unique_ptr<Driver> make_driver(const BackendSpec& spec, DriverEnv& env);

}  // namespace commbench

// run_loop(): runs one repetition of a benchmark's timed loop on a driver. The benchmark
// writes its loop twice, as overloads of one callable:
//   loop(RawTransport auto& raw)            -> size_t        (blocking raw baselines)
//   loop(CommDriver& comm)                  -> Task<size_t>  (coroutine comm)
// run_loop finds the driver's concrete type once per repetition, so the raw loop is
// instantiated for each baseline and calls its primitives directly, and the coroutine
// loop runs on the event loop. Both are watched alike for --read-timeout, by the
// process's stall watchdog (BenchSession). Returns the loop's count of wrong bytes; ranks
// beyond 0 and 1 take no part (0).
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "drivers/comm_driver.hpp"
#include "drivers/raw_mpi_driver.hpp"
#include "drivers/raw_tcp_driver.hpp"
#include "drivers/raw_ucx_driver.hpp"

namespace commbench {

// What every repetition of a loop is given: `iters` iterations with messages of `size`
// bytes; message patterns numbered from `seed`; with `validate`, every received byte is
// checked. A benchmark extends it with its own parameters.
struct Repetition {
  size_t size = 0;
  size_t iters = 0;
  uint64_t seed = 0;
  bool validate = false;
};

namespace detail {
template <RawTransport T, typename Loop>
size_t run_raw(T& raw, size_t size, Loop& loop) {
  if constexpr (!T::kEmptyMessages)
    if (size == 0)
      throw std::invalid_argument(raw.backend() + " cannot measure 0-byte messages (use -b 1)");
  return loop(raw);
}

// The raw driver `d` is, as its concrete type (RawDriverTypes, raw_driver_list.hpp).
template <typename Loop, typename... T>
size_t run_any_raw(Driver& d, size_t size, Loop& loop, TypeList<T...>) {
  size_t wrong = 0;
  bool ran =
      ((dynamic_cast<T*>(&d) ? (wrong = run_raw(static_cast<T&>(d), size, loop), true) : false) ||
       ...);
  if (!ran) throw std::logic_error("run_loop: a driver of no known kind");
  return wrong;
}
}  // namespace detail

// `size`: the loop's message size, refused here by a baseline that cannot send it.
template <typename Loop>
size_t run_loop(Driver& d, size_t size, Loop&& loop) {
  if (d.rank() > 1) return 0;
  if (auto* comm = dynamic_cast<CommDriver*>(&d)) return comm->run(loop(*comm));
  return detail::run_any_raw(d, size, loop, RawDriverTypes{});
}

}  // namespace commbench

#include "harness/stall_watchdog.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "runtime/event_loop.hpp"

namespace commbench {

namespace {
// How often the thread looks: a tenth of a second adds at most that to the time to the
// error and costs nothing measurable (one wake-up on an otherwise idle core).
constexpr auto kPoll = std::chrono::milliseconds(100);
}  // namespace

StallWatchdog::StallWatchdog(std::string program, int exit_code, std::function<void(int)> abort)
    : program_(std::move(program)),
      exit_code_(exit_code),
      abort_(std::move(abort)),
      thread_([this] { watch(); }) {}

StallWatchdog::~StallWatchdog() {
  {
    std::lock_guard<std::mutex> g(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void StallWatchdog::arm(double silence_s, int rank, const std::string& peer) {
  std::lock_guard<std::mutex> g(mu_);
  silence_s_ = silence_s;
  rank_ = rank;
  peer_ = peer;
}

void StallWatchdog::allow_unit(std::uint64_t bytes) {
  std::lock_guard<std::mutex> g(mu_);
  unit_s_ = static_cast<double>(bytes) / kFloorBytesPerSecond;
}

void StallWatchdog::doing(std::string what) {
  std::lock_guard<std::mutex> g(mu_);
  doing_ = std::move(what);
}

void StallWatchdog::disarm() {
  std::lock_guard<std::mutex> g(mu_);
  silence_s_ = 0;
}

void StallWatchdog::reported() {
  reported_ = true;
}

double StallWatchdog::longest_silence_s() const {
  std::lock_guard<std::mutex> g(mu_);
  return static_cast<double>(longest_ns_) / 1e9;
}

void StallWatchdog::watch() {
  std::unique_lock<std::mutex> lock(mu_);
  std::uint64_t seen = progress::ticks.load(std::memory_order_relaxed);
  std::uint64_t since = EventLoop::now_ns();
  while (!stop_) {
    cv_.wait_for(lock, kPoll);
    if (stop_) break;
    std::uint64_t now = EventLoop::now_ns();
    std::uint64_t t = progress::ticks.load(std::memory_order_relaxed);
    if (t != seen || silence_s_ <= 0) {  // moving, or not watching: the clock restarts
      seen = t;
      since = now;
      continue;
    }
    std::uint64_t quiet = now - since;
    if (quiet > longest_ns_) longest_ns_ = quiet;
    double allowed = silence_s_ + unit_s_;
    if (static_cast<double>(quiet) < allowed * 1e9) continue;
    if (!reported_) {
      char buf[512];
      int n =
          std::snprintf(buf, sizeof buf,
                        "%s: error (rank %d): lost %s%s%s: nothing received or sent for "
                        "%.1f s (--read-timeout %g s; link down or host lost)\n",
                        program_.c_str(), rank_, peer_.c_str(), doing_.empty() ? "" : " during ",
                        doing_.c_str(), static_cast<double>(quiet) / 1e9, silence_s_);
      if (n > 0) (void)!::write(2, buf, static_cast<size_t>(n) < sizeof buf ? n : sizeof buf - 1);
      // The launcher forwards output asynchronously; a moment lets it take the line
      // before our exit makes it tear the job down (Bootstrap::fail_here does the same).
      lock.unlock();
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      if (abort_) {
        int code = exit_code_;
        std::thread([code] {
          std::this_thread::sleep_for(std::chrono::seconds(2));
          std::_Exit(code);
        }).detach();
        abort_(exit_code_);
      }
    }
    std::_Exit(exit_code_);
  }
}

}  // namespace commbench

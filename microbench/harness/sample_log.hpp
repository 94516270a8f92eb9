// --samples FILE: every timed iteration of a ping-pong, one CSV row each (backend,
// progress, idle rule, size, repetition, iteration, one-way latency in ns; the idle rule
// keeps two entries of one policy under different @rules apart, as the summary CSV's
// `idle` column does), for histograms and CDFs
// (scripts/plot --samples) where the summary row keeps only order statistics. Written
// outside the timed loops, after each repetition; "<file>.partial" until the run commits.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace commbench {

class SampleLog {
 public:
  // Opens "<path>.partial" and writes the header; throws std::runtime_error when it cannot.
  explicit SampleLog(std::string path);
  ~SampleLog();
  SampleLog(const SampleLog&) = delete;
  SampleLog& operator=(const SampleLog&) = delete;

  // One repetition's `n` round trips, in the order they were timed; each row holds the
  // one-way latency, half the round trip.
  void add(const std::string& backend, const std::string& progress, const std::string& idle,
           size_t size_bytes, size_t rep, const uint64_t* round_trip_ns, size_t n);
  // Renames the file into place.
  void commit();

 private:
  std::string path_;
  std::FILE* file_ = nullptr;
};

}  // namespace commbench

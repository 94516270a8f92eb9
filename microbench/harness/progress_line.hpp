// What a person at a terminal sees while a long run works: one line on stderr, redrawn in
// place, "pingpong: 7/13 sizes (4096 B), 12 s, ~10 s left". Only when stderr reaches a
// terminal, directly or through the MPI launcher that forwards it (never in CI logs or
// captured output), and only once the run has lasted 2 s, so
// short runs print nothing extra; rank 0 only. The estimate assumes the remaining steps
// cost what the finished ones did on average.
#pragma once

#include <cstddef>
#include <string>

namespace commbench {

class ProgressLine {
 public:
  // `enabled` is false on every rank but the one that reports.
  ProgressLine(std::string program, std::string unit, size_t total, bool enabled);
  ~ProgressLine();  // clears the line
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  // Step `done` of `total` is complete; `what` names it (e.g. the size).
  void step(size_t done, const std::string& what);

 private:
  std::string program_, unit_;
  size_t total_;
  bool enabled_;
  bool drawn_ = false;
  double start_s_;
  double last_draw_s_ = 0;
};

}  // namespace commbench

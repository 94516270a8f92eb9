#include "harness/sample_log.hpp"

#include <stdexcept>

namespace commbench {

SampleLog::SampleLog(std::string path) : path_(std::move(path)) {
  file_ = std::fopen((path_ + ".partial").c_str(), "w");
  if (!file_) throw std::runtime_error("cannot write " + path_ + ".partial");
  std::fputs("backend,progress,idle,size_bytes,rep,iteration,ns\n", file_);
}

SampleLog::~SampleLog() {
  if (file_) {
    std::fclose(file_);
    std::remove((path_ + ".partial").c_str());
  }
}

void SampleLog::add(const std::string& backend, const std::string& progress,
                    const std::string& idle, size_t size_bytes, size_t rep,
                    const uint64_t* round_trip_ns, size_t n) {
  if (!file_) return;
  for (size_t i = 0; i < n; ++i)
    std::fprintf(file_, "%s,%s,%s,%zu,%zu,%zu,%.1f\n", backend.c_str(), progress.c_str(),
                 idle.c_str(), size_bytes, rep, i, static_cast<double>(round_trip_ns[i]) / 2.0);
}

void SampleLog::commit() {
  if (!file_) return;
  std::fclose(file_);
  file_ = nullptr;
  if (std::rename((path_ + ".partial").c_str(), path_.c_str()) != 0)
    throw std::runtime_error("cannot rename " + path_ + ".partial");
}

}  // namespace commbench

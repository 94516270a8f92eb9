// Backends by URI scheme. Adding a backend = a folder + one line in builtin_backends.cpp.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "comm/backend_catalog.hpp"
#include "comm/comm.hpp"

namespace commbench {

struct BackendInfo {
  std::string scheme;
  std::vector<PolicyInfo> progress_policies;  // first = default
  std::vector<SettingInfo> settings;          // the --backend-opt keys it reads
  std::function<std::unique_ptr<Backend>(EventLoop&, const BackendOptions&)> make;
};

class Registry {
 public:
  void add(BackendInfo info);
  // Throws AddressError listing the known schemes when `scheme` is unknown, and
  // std::invalid_argument listing the policies when options.progress is unknown.
  std::unique_ptr<Backend> create(const std::string& scheme, EventLoop& loop,
                                  const BackendOptions& options = {}) const;
  const BackendInfo& info(const std::string& scheme) const;
  std::vector<std::string> schemes() const;

 private:
  std::vector<BackendInfo> backends_;
};

// The registry with every backend built into this binary.
Registry& registry();

}  // namespace commbench

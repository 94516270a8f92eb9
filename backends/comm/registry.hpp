// Backends by URI scheme. Adding a backend = a folder + one line in builtin_backends.cpp.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "comm/backend_catalog.hpp"
#include "comm/comm.hpp"

namespace commbench {

// What a backend is, for everything outside backends/: no code there compares a scheme's
// name; it asks these fields.
struct BackendInfo {
  std::string scheme;
  std::vector<PolicyInfo> progress_policies;  // first = default
  std::vector<SettingInfo> settings;          // the --backend-opt keys it reads
  std::function<std::unique_ptr<Backend>(EventLoop&, const BackendOptions&)> make;
  // File descriptors one connection holds at each end, and what its connector keeps free
  // (it refuses a connect below that): a run that would pass RLIMIT_NOFILE is refused
  // before it starts (harness/descriptor_budget.hpp).
  size_t descriptors_per_connection = 0;
  size_t descriptors_kept_free = 0;
  // Its listener reads our hello straight off a plain TCP socket, so a stray that is a
  // bare socket speaking the hello reaches its checks (the --test-stray aid; ucx's
  // listener speaks UCX's own connection protocol first).
  bool hello_over_plain_tcp = false;

  const PolicyInfo& policy(const std::string& name) const;  // "" = the default; throws
  bool reads_setting(const std::string& key) const;
};

class Registry {
 public:
  void add(BackendInfo info);
  // Throws AddressError listing the known schemes when `scheme` is unknown, and
  // std::invalid_argument listing the policies when options.progress is unknown.
  std::unique_ptr<Backend> create(const std::string& scheme, EventLoop& loop,
                                  const BackendOptions& options = {}) const;
  const BackendInfo& info(const std::string& scheme) const;
  const BackendInfo* find(const std::string& scheme) const;  // nullptr when unknown
  std::vector<std::string> schemes() const;

 private:
  std::vector<BackendInfo> backends_;
};

// The registry with every backend built into this binary.
Registry& registry();

}  // namespace commbench

#include "harness/descriptor_budget.hpp"

#include "comm/fd_limit.hpp"
#include "comm/registry.hpp"

namespace commbench {

size_t descriptors_per_connection(const std::string& backend) {
  const BackendInfo* b = registry().find(backend);
  return b ? b->descriptors_per_connection : 0;
}

size_t descriptors_kept_free(const std::string& backend) {
  const BackendInfo* b = registry().find(backend);
  return b ? b->descriptors_kept_free : 0;
}

std::string descriptor_shortfall(const std::string& backend, size_t connections,
                                 const std::string& what) {
  DescriptorLimit l = descriptor_limit();
  if (l.soft < 0) return {};
  size_t open = open_descriptors();
  size_t per = descriptors_per_connection(backend);
  size_t need = open + connections * per + descriptors_kept_free(backend);
  if (need <= static_cast<size_t>(l.soft)) return {};
  return what + " needs about " + std::to_string(need) + " file descriptors per rank (" +
         std::to_string(connections) + " " + backend + " connections x " + std::to_string(per) +
         " + " + std::to_string(open) + " open + " +
         std::to_string(descriptors_kept_free(backend)) + " kept free), above RLIMIT_NOFILE " +
         limit_text(l.soft) + ": raise it with ulimit -n (hard limit " + limit_text(l.hard) + ")";
}

}  // namespace commbench

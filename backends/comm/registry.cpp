#include "comm/registry.hpp"

#include <stdexcept>

#include "comm/errors.hpp"

namespace commbench {

namespace {
std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}
}  // namespace

void Registry::add(BackendInfo info) {
  for (const auto& b : backends_)
    if (b.scheme == info.scheme) throw std::logic_error("backend registered twice: " + info.scheme);
  backends_.push_back(std::move(info));
}

const BackendInfo* Registry::find(const std::string& scheme) const {
  for (const auto& b : backends_)
    if (b.scheme == scheme) return &b;
  return nullptr;
}

const BackendInfo& Registry::info(const std::string& scheme) const {
  if (const BackendInfo* b = find(scheme)) return *b;
  throw AddressError("unknown comm scheme '" + scheme + "' (known: " + join(schemes()) + ")");
}

std::unique_ptr<Backend> Registry::create(const std::string& scheme, EventLoop& loop,
                                          const BackendOptions& options) const {
  // The backend parses options.progress from its own table and refuses an unknown policy
  // in the one line check_policy words (parse_policy): no second check here.
  return info(scheme).make(loop, options);
}

const PolicyInfo& BackendInfo::policy(const std::string& name) const {
  if (name.empty()) return progress_policies.front();
  for (const auto& p : progress_policies)
    if (p.name == name) return p;
  check_policy(progress_policies, name, scheme);  // throws: no policy is called `name`
  throw std::logic_error("check_policy accepted " + name);
}

bool BackendInfo::reads_setting(const std::string& key) const {
  for (const auto& s : settings)
    if (s.key == key) return true;
  return false;
}

std::vector<std::string> Registry::schemes() const {
  std::vector<std::string> v;
  for (const auto& b : backends_) v.push_back(b.scheme);
  return v;
}

}  // namespace commbench

namespace commbench {

const char* to_string(PolicyThread t) noexcept {
  switch (t) {
    case PolicyThread::polling:
      return "polling";
    case PolicyThread::blocking:
      return "blocking";
    case PolicyThread::none:
      break;
  }
  return "none";
}

void refuse_stalling_policy(const std::vector<PolicyInfo>& table, const std::string& name,
                            const std::string& backend, const std::string& pattern) {
  const PolicyInfo* chosen = nullptr;
  std::string usable;
  for (const auto& row : table) {
    if (name.empty() ? &row == &table.front() : row.name == name) chosen = &row;
    if (!row.stalls_loop) usable += (usable.empty() ? "" : ", ") + backend + ":" + row.name;
  }
  if (!chosen || !chosen->stalls_loop) return;
  throw std::invalid_argument(backend + ":" + chosen->name +
                              " stops the event loop while it waits, so " + pattern +
                              " would deadlock (use " + usable + ")");
}

}  // namespace commbench

#include "harness/backend_listing.hpp"

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "comm/registry.hpp"
#include "harness/raw_baselines.hpp"

namespace commbench {

static const RawBaseline* find_raw(const std::string& name) {
  for (const auto& r : kRawBaselines)
    if (name == r.name) return &r;
  return nullptr;
}

bool is_raw_baseline(const std::string& name) {
  return find_raw(name) != nullptr;
}

namespace {
using Json = nlohmann::ordered_json;

Json entry(const std::string& name, const char* kind, const std::vector<PolicyInfo>& policies) {
  Json e;
  e["name"] = name;
  e["kind"] = kind;
  e["policies"] = Json::array();
  for (const auto& p : policies)
    e["policies"].push_back({{"name", p.name},
                             {"description", p.description},
                             {"stalls_loop", p.stalls_loop},
                             {"progress_thread", to_string(p.thread)},
                             {"needs_mpi_thread_multiple", p.needs_mpi_thread_multiple}});
  e["default_policy"] = policies.empty() ? Json() : Json(policies[0].name);
  e["raw_baseline"] = nullptr;
  e["options"] = Json::array();
  return e;
}

Json coroutine_entry(const BackendInfo& b, bool with_raw_baselines) {
  Json e = entry(b.scheme, "coroutine", b.progress_policies);
  if (with_raw_baselines)
    for (const auto& r : kRawBaselines)
      if (b.scheme == r.of) e["raw_baseline"] = r.name;
  for (const auto& s : b.settings) {
    Json o;
    o["key"] = s.key;
    o["values"] = s.values;
    o["default"] = s.default_value;
    o["description"] = s.description;
    e["options"].push_back(o);
  }
  return e;
}
}  // namespace

nlohmann::ordered_json backend_table(bool with_raw_baselines) {
  Json out = Json::array();
  for (const auto& scheme : registry().schemes())
    out.push_back(coroutine_entry(registry().info(scheme), with_raw_baselines));
  if (with_raw_baselines)
    for (const auto& r : kRawBaselines)
      out.push_back(entry(r.name, "raw", backend_policies(r.name, true)));
  return out;
}

std::vector<PolicyInfo> backend_policies(const std::string& name, bool with_raw_baselines) {
  if (const RawBaseline* r = find_raw(name); r && with_raw_baselines) {
    std::vector<PolicyInfo> variants;
    for (const auto& v : r->variants) variants.push_back({v.name, v.description});
    return variants;
  }
  for (const auto& scheme : registry().schemes())
    if (scheme == name) return registry().info(scheme).progress_policies;
  throw std::invalid_argument("unknown backend '" + name +
                              "' (known: " + backend_names(true, with_raw_baselines) + ")");
}

std::string backend_names(bool coroutine, bool raw_baselines) {
  std::vector<std::string> names;
  if (coroutine) names = registry().schemes();
  if (raw_baselines)
    for (const auto& r : kRawBaselines) names.push_back(r.name);
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

std::string progress_summary() {
  std::string out;
  for (const auto& scheme : registry().schemes()) {
    std::string names;
    for (const auto& p : registry().info(scheme).progress_policies)
      names += (names.empty() ? "" : "|") + p.name;
    out += (out.empty() ? "" : "; ") + scheme + ": " + names;
  }
  return out;
}

}  // namespace commbench

#include "harness/backend_listing.hpp"

#include "comm/registry.hpp"
#include "drivers/raw_baselines.hpp"

namespace commbench {

namespace {
using Json = nlohmann::ordered_json;

Json coroutine_entry(const BackendInfo& b, bool with_raw_baselines) {
  Json e;
  e["name"] = b.scheme;
  e["kind"] = "coroutine";
  e["policies"] = Json::array();
  for (const auto& p : b.progress_policies)
    e["policies"].push_back({{"name", p.name}, {"description", p.description}});
  e["default_policy"] = b.progress_policies.empty() ? Json() : Json(b.progress_policies[0].name);
  e["raw_baseline"] = nullptr;
  if (with_raw_baselines)
    for (const auto& r : kRawBaselines)
      if (b.scheme == r.of) e["raw_baseline"] = r.name;
  e["options"] = Json::array();
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

Json raw_entry(const RawBaseline& r) {
  Json e;
  e["name"] = r.name;
  e["kind"] = "raw";
  e["policies"] = Json::array({Json{{"name", r.policy}, {"description", r.description}}});
  e["default_policy"] = r.policy;
  e["raw_baseline"] = nullptr;
  e["options"] = Json::array();
  return e;
}
}  // namespace

nlohmann::ordered_json backend_table(bool with_raw_baselines) {
  Json out = Json::array();
  for (const auto& scheme : registry().schemes())
    out.push_back(coroutine_entry(registry().info(scheme), with_raw_baselines));
  if (with_raw_baselines)
    for (const auto& r : kRawBaselines) out.push_back(raw_entry(r));
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

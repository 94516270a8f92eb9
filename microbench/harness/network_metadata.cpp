#include "harness/network_metadata.hpp"

#include <nlohmann/json.hpp>

namespace commbench {

namespace {
const char* hosts_name(LauncherLayout::Hosts h) {
  switch (h) {
    case LauncherLayout::Hosts::one:
      return "one";
    case LauncherLayout::Hosts::several:
      return "several";
    default:
      return "unknown";
  }
}

Json settings_object(const std::vector<EnvSetting>& list) {
  Json o = Json::object();
  for (const auto& v : list) o[v.name] = v.value;
  return o;
}
}  // namespace

void add_network_metadata(Json& meta, const Bootstrap& boot, const InterfaceChoice& choice,
                          const Json& transports) {
  Json iface;
  iface["requested"] = choice.requested;
  iface["name"] = choice.name;
  iface["address"] = choice.address;
  iface["how"] = choice.how;
  meta["interface"] = iface;

  const LibrarySteering& s = boot.steering();
  Json steer;
  steer["launcher_hosts"] = hosts_name(s.layout.hosts);
  steer["launcher_evidence"] = s.layout.evidence;
  steer["set"] = settings_object(s.set);
  steer["kept"] = settings_object(s.kept);
  Json effect = Json::object();
  for (const auto& [name, value] : steering_variables())
    effect[name] = value ? Json(*value) : Json(nullptr);
  steer["in_effect"] = effect;
  steer["inherited_listeners_closed"] = boot.inherited_listeners_closed();
  meta["library_steering"] = steer;

  meta["transports"] = transports.is_null() ? Json::object() : transports;
}

}  // namespace commbench

#include "harness/option_listing.hpp"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/numeric_range.hpp"

namespace commbench {

nlohmann::ordered_json option_table(const CLI::App& app) {
  using Json = nlohmann::ordered_json;
  Json out = Json::array();
  for (const CLI::Option* opt : app.get_options()) {
    std::vector<std::string> spellings;
    for (const auto& l : opt->get_lnames()) spellings.push_back("--" + l);
    for (const auto& s : opt->get_snames()) spellings.push_back("-" + s);
    if (spellings.empty()) continue;  // a positional argument: none of ours has one
    Json o;
    o["name"] = spellings.front();
    o["aliases"] = std::vector<std::string>(spellings.begin() + 1, spellings.end());
    std::string def = opt->get_default_str();
    o["default"] = def.empty() ? Json() : Json(def);
    o["takes_value"] = opt->get_expected_max() != 0;
    o["description"] = opt->get_description();
    o["type"] = opt->get_type_name();  // CLI11's: UINT, INT, FLOAT, TEXT, ...
    if (auto r = range_of(opt)) {
      o["range"] = {{"min", r->min}, {"max", r->max ? Json(*r->max) : Json()}};
      o["integer"] = opt->get_type_name() == "UINT" || opt->get_type_name() == "INT";
    }
    out.push_back(o);
  }
  return out;
}

}  // namespace commbench

// A minimal JSON object writer for metadata sidecars (flat keys, strings, nested objects).
#pragma once

#include <map>
#include <string>
#include <vector>

namespace commbench {

std::string json_escape(const std::string& s);

class JsonObject {
 public:
  JsonObject& add(const std::string& key, const std::string& value);
  JsonObject& add(const std::string& key, long long value);
  JsonObject& add(const std::string& key, const std::vector<std::string>& values);
  JsonObject& add(const std::string& key, const JsonObject& value);
  std::string str(int indent = 0) const;

 private:
  std::vector<std::pair<std::string, std::string>> fields_;  // key -> encoded value
};

}  // namespace commbench

#include "harness/json.hpp"

#include <cstdio>

namespace commbench {

std::string json_escape(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

JsonObject& JsonObject::add(const std::string& key, const std::string& value) {
  fields_.emplace_back(key, json_escape(value));
  return *this;
}
JsonObject& JsonObject::add(const std::string& key, long long value) {
  fields_.emplace_back(key, std::to_string(value));
  return *this;
}
JsonObject& JsonObject::add(const std::string& key, const std::vector<std::string>& values) {
  std::string v = "[";
  for (size_t i = 0; i < values.size(); ++i) v += (i ? ", " : "") + json_escape(values[i]);
  fields_.emplace_back(key, v + "]");
  return *this;
}
JsonObject& JsonObject::add(const std::string& key, const JsonObject& value) {
  fields_.emplace_back(key, value.str(1));
  return *this;
}

std::string JsonObject::str(int indent) const {
  std::string pad(static_cast<size_t>(indent + 1) * 2, ' ');
  std::string close(static_cast<size_t>(indent) * 2, ' ');
  std::string out = "{\n";
  for (size_t i = 0; i < fields_.size(); ++i) {
    out += pad + json_escape(fields_[i].first) + ": " + fields_[i].second;
    out += i + 1 < fields_.size() ? ",\n" : "\n";
  }
  return out + close + "}";
}

}  // namespace commbench

#include "harness/json_rows.hpp"

#include <nlohmann/json.hpp>
#include <stdexcept>

namespace commbench {

JsonRowsWriter::JsonRowsWriter(std::string path, CsvSchema schema)
    : path_(std::move(path)), schema_(schema) {
  file_ = std::fopen((path_ + ".partial").c_str(), "w");
  if (!file_) throw std::runtime_error("cannot write " + path_ + ".partial");
  std::fputs("{\"rows\": [", file_);
}

JsonRowsWriter::~JsonRowsWriter() {
  if (file_) {  // not committed: nothing may look complete
    std::fclose(file_);
    std::remove((path_ + ".partial").c_str());
  }
}

void JsonRowsWriter::write(const ResultRow& row) {
  if (!file_) return;
  nlohmann::ordered_json o = nlohmann::ordered_json::object();
  for (auto c : schema_) {
    std::string key(c);
    auto it = row.values().find(key);
    if (it == row.values().end() || it->second.empty()) {
      o[key] = nullptr;
    } else if (row.numeric(key)) {
      // The CSV's own text of the number, parsed: both files hold the same value.
      o[key] = nlohmann::ordered_json::parse(it->second);
    } else {
      o[key] = it->second;
    }
  }
  std::fprintf(file_, "%s\n  %s", first_ ? "" : ",", o.dump().c_str());
  first_ = false;
  std::fflush(file_);
}

void JsonRowsWriter::commit(const std::string& metadata_json) {
  if (!file_) return;
  std::fprintf(file_, "\n],\n\"metadata\": %s}\n", metadata_json.c_str());
  std::fclose(file_);
  file_ = nullptr;
  if (std::rename((path_ + ".partial").c_str(), path_.c_str()) != 0)
    throw std::runtime_error("cannot rename " + path_ + ".partial");
}

}  // namespace commbench

#include "harness/csv_writer.hpp"

#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "harness/result_schema.hpp"

namespace commbench {

namespace {
bool in_schema(CsvSchema schema, std::string_view c) {
  for (auto k : schema)
    if (k == c) return true;
  return false;
}
std::string quote(const std::string& v) {
  if (v.find_first_of(",\"\n") == std::string::npos) return v;
  std::string q = "\"";
  for (char ch : v) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return q + "\"";
}
}  // namespace

CsvSchema result_schema() {
  return kResultColumns;
}

ResultRow& ResultRow::set(std::string_view column, std::string value) {
  if (!in_schema(schema_, column))
    throw std::logic_error("column not in schema: " + std::string(column));
  values_[std::string(column)] = std::move(value);
  if (auto it = numeric_.find(column); it != numeric_.end()) numeric_.erase(it);
  return *this;
}
ResultRow& ResultRow::set_number(std::string_view column, std::string text) {
  set(column, std::move(text));
  numeric_.insert(std::string(column));
  return *this;
}
ResultRow& ResultRow::set(std::string_view column, double v) {
  char buf[64];
  if (!std::isfinite(v)) return set(column, std::string());  // empty cell, JSON null
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return set_number(column, buf);
}
ResultRow& ResultRow::set(std::string_view column, long long v) {
  return set_number(column, std::to_string(v));
}
ResultRow& ResultRow::set(std::string_view column, unsigned long long v) {
  return set_number(column, std::to_string(v));
}

CsvWriter::CsvWriter(std::string path, CsvSchema schema) : path_(std::move(path)), schema_(schema) {
  if (path_.empty()) return;
  file_ = std::fopen((path_ + ".partial").c_str(), "w");
  if (!file_) throw std::runtime_error("cannot write " + path_ + ".partial");
  std::string header;
  for (auto c : schema_) header += (header.empty() ? "" : ",") + std::string(c);
  std::fprintf(file_, "%s\n", header.c_str());
}

CsvWriter::~CsvWriter() {
  if (file_) {  // not committed: drop the partial file so nothing looks complete
    std::fclose(file_);
    std::remove((path_ + ".partial").c_str());
  }
}

void CsvWriter::write(const ResultRow& row) {
  if (!file_) return;
  for (const auto& [k, v] : row.values())
    if (!in_schema(schema_, k)) throw std::logic_error("column not in schema: " + k);
  std::string line;
  bool first = true;
  for (auto c : schema_) {
    if (!first) line += ',';
    first = false;
    auto it = row.values().find(c);
    if (it != row.values().end()) line += quote(it->second);
  }
  std::fprintf(file_, "%s\n", line.c_str());
  std::fflush(file_);
}

std::string CsvWriter::sidecar_path(const std::string& csv) {
  if (csv.size() > 4 && csv.compare(csv.size() - 4, 4, ".csv") == 0)
    return csv.substr(0, csv.size() - 4) + ".json";
  return csv + ".json";
}

void CsvWriter::commit(const std::string& metadata_json) {
  if (!file_) return;
  std::fclose(file_);
  file_ = nullptr;
  if (std::rename((path_ + ".partial").c_str(), path_.c_str()) != 0)
    throw std::runtime_error("cannot rename " + path_ + ".partial");
  std::FILE* j = std::fopen(sidecar_path(path_).c_str(), "w");
  if (!j) throw std::runtime_error("cannot write " + sidecar_path(path_));
  std::fprintf(j, "%s\n", metadata_json.c_str());
  std::fclose(j);
}

}  // namespace commbench

// Writes result rows in the schema of result_schema.hpp (or another fixed column list: a
// probe's own table, e.g. scale_probe's one row per rank), plus a JSON sidecar with the
// run's metadata. Rows go to "<file>.partial" and the file is renamed into place only by
// commit(), so an interrupted or failed run never leaves a CSV that looks complete.
#pragma once

#include <cstdio>
#include <map>
#include <set>
#include <span>
#include <string>
#include <string_view>

namespace commbench {

// A fixed list of columns, in file order.
using CsvSchema = std::span<const std::string_view>;
CsvSchema result_schema();  // kResultColumns

class ResultRow {
 public:
  explicit ResultRow(CsvSchema schema = result_schema()) : schema_(schema) {}
  ResultRow& set(std::string_view column, std::string value);
  ResultRow& set(std::string_view column, double value);
  ResultRow& set(std::string_view column, long long value);
  ResultRow& set(std::string_view column, unsigned long long value);
  ResultRow& set(std::string_view column, int value) {
    return set(column, static_cast<long long>(value));
  }
  ResultRow& set(std::string_view column, size_t value) {
    return set(column, static_cast<unsigned long long>(value));
  }
  const std::map<std::string, std::string, std::less<>>& values() const { return values_; }
  // Whether `column` was set from a number (JSON writes it unquoted).
  bool numeric(std::string_view column) const { return numeric_.count(column) > 0; }

 private:
  ResultRow& set_number(std::string_view column, std::string text);
  CsvSchema schema_;
  std::map<std::string, std::string, std::less<>> values_;
  std::set<std::string, std::less<>> numeric_;
};

class CsvWriter {
 public:
  CsvWriter() = default;
  // Opens "<path>.partial"; an empty path writes nothing.
  explicit CsvWriter(std::string path, CsvSchema schema = result_schema());
  ~CsvWriter();
  CsvWriter(const CsvWriter&) = delete;
  CsvWriter& operator=(const CsvWriter&) = delete;

  bool enabled() const noexcept { return file_ != nullptr; }
  // Throws std::logic_error for a column that is not in the schema.
  void write(const ResultRow& row);
  // Renames the partial file into place and writes the JSON sidecar next to it.
  void commit(const std::string& metadata_json);
  const std::string& path() const noexcept { return path_; }
  static std::string sidecar_path(const std::string& csv_path);

 private:
  std::string path_;
  CsvSchema schema_ = result_schema();
  std::FILE* file_ = nullptr;
};

}  // namespace commbench

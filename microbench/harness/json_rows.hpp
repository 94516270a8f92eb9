// --json FILE: the same rows as the CSV, typed (numbers as JSON numbers, empty cells as
// null), with the run's metadata in the same file, for readers that would rather not
// parse CSV (nccl-tests users reach for its JSON output). Like the CSV, rows go to
// "<file>.partial" and the file appears only when the run commits, so an interrupted run
// leaves nothing that looks complete.
#pragma once

#include <cstdio>
#include <string>

#include "harness/csv_writer.hpp"

namespace commbench {

class JsonRowsWriter {
 public:
  // Opens "<path>.partial"; throws std::runtime_error when it cannot.
  explicit JsonRowsWriter(std::string path, CsvSchema schema = result_schema());
  ~JsonRowsWriter();
  JsonRowsWriter(const JsonRowsWriter&) = delete;
  JsonRowsWriter& operator=(const JsonRowsWriter&) = delete;

  // One object per row, every column of the schema present.
  void write(const ResultRow& row);
  // Closes {"rows": [...], "metadata": <metadata_json>} and renames it into place.
  void commit(const std::string& metadata_json);

 private:
  std::string path_;
  CsvSchema schema_;
  std::FILE* file_ = nullptr;
  bool first_ = true;
};

}  // namespace commbench

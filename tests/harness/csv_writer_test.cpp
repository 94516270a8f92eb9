#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "harness/csv_writer.hpp"

using namespace commbench;

namespace {
std::string slurp(const std::string& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}
bool exists(const std::string& p) { return std::ifstream(p).good(); }
}  // namespace

TEST(CsvWriter, CommitWritesCsvAndSidecar) {
  std::string path = ::testing::TempDir() + "/commit_test.csv";
  {
    CsvWriter w(path);
    ResultRow r;
    r.set("benchmark", std::string("pingpong")).set("size_bytes", size_t{8}).set("latency_us_p50", 0.5);
    w.write(r);
    EXPECT_FALSE(exists(path)) << "only the partial file exists before commit";
    w.commit("{\"run_id\": \"x\"}");
  }
  std::string csv = slurp(path);
  EXPECT_EQ(csv.rfind("benchmark,origin,backend", 0), 0u);
  EXPECT_NE(csv.find("\npingpong,"), std::string::npos);
  EXPECT_NE(csv.find(",0.5,"), std::string::npos);
  EXPECT_EQ(slurp(CsvWriter::sidecar_path(path)), "{\"run_id\": \"x\"}\n");
  std::remove(path.c_str());
  std::remove(CsvWriter::sidecar_path(path).c_str());
}

TEST(CsvWriter, UncommittedRunLeavesNoCsv) {
  std::string path = ::testing::TempDir() + "/failed_run.csv";
  {
    CsvWriter w(path);
    w.write(ResultRow().set("benchmark", std::string("pingpong")));
  }
  EXPECT_FALSE(exists(path));
  EXPECT_FALSE(exists(path + ".partial"));
}

TEST(CsvWriter, RejectsUnknownColumn) {
  ResultRow r;
  EXPECT_THROW(r.set("latency_ms", 1.0), std::logic_error);
}

TEST(CsvWriter, QuotesCommas) {
  std::string path = ::testing::TempDir() + "/quote.csv";
  CsvWriter w(path);
  w.write(ResultRow().set("backend", std::string("a,b")));
  w.commit("{}");
  EXPECT_NE(slurp(path).find("\"a,b\""), std::string::npos);
  std::remove(path.c_str());
  std::remove(CsvWriter::sidecar_path(path).c_str());
}

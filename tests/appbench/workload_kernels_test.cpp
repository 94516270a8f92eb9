// The new workloads' kernels (appbench/workloads/), in process: the hash split keeps rows
// whole and in their partition; groupby's partial -> shuffle -> final path gives exactly
// the summaries counted directly from the generator, and a wrong sum, count or mean is
// caught; the sample sort's pieces sort, do not overlap and keep the multiset of rows;
// matmul's O(N^2) expected checksums agree with a naive product and catch one wrong
// element; merge's bucketed join finds exactly the expected matches. Kernels run on an event
// loop with a zero slice, so every stripe yields. These are the checks the apps' validation
// rests on, so each is shown to fail.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <random>

#include "app_summary.hpp"
#include "runtime/event_loop.hpp"
#include "workloads/groupby_kernels.hpp"
#include "workloads/hash_split.hpp"
#include "workloads/matmul_kernels.hpp"
#include "workloads/merge_kernels.hpp"
#include "workloads/sort_kernels.hpp"
#include "workloads/transpose_kernels.hpp"

using namespace commbench;
using namespace commbench::app;

namespace {

// The kernels take their inputs as pointers, one per value.
std::vector<const Value*> pointers_to(const std::vector<Value>& values) {
  std::vector<const Value*> out;
  for (const auto& v : values) out.push_back(&v);
  return out;
}

// Runs a kernel coroutine to its end on a loop whose slice is 0 ns: every stripe hands the
// loop back, so the yielding paths run too.
class Kernels {
 public:
  template <typename T>
  T operator()(Task<T> t) {
    return loop_.run(std::move(t));
  }
  TaskContext& ctx() { return ctx_; }

 private:
  EventLoop loop_;
  TaskContext ctx_{loop_, 0};
};

Value column_table(const std::vector<std::vector<int64_t>>& cols) {
  std::vector<size_t> sizes;
  for (const auto& c : cols) sizes.push_back(c.size() * 8);
  Value v = make_value(std::span<const size_t>(sizes));
  for (size_t i = 0; i < cols.size(); ++i)
    std::memcpy(v.parts[i].data, cols[i].data(), cols[i].size() * 8);
  return v;
}

TEST(HashSplit, RowsStayWholeAndLandInTheirPartition) {
  std::vector<int64_t> k, a, b;
  for (int64_t i = 0; i < 1000; ++i) {
    k.push_back(i * 7919);
    a.push_back(i);
    b.push_back(-i);
  }
  Kernels run;
  Value table = column_table({k, a, b});
  Value s = run(split(run.ctx(), table, 3));
  ASSERT_EQ(s.parts.size(), 9u);
  size_t rows = 0;
  for (uint32_t q = 0; q < 3; ++q) {
    auto pk = s.part<const int64_t>(q * 3), pa = s.part<const int64_t>(q * 3 + 1),
         pb = s.part<const int64_t>(q * 3 + 2);
    ASSERT_EQ(pk.size(), pa.size());
    ASSERT_EQ(pk.size(), pb.size());
    for (size_t r = 0; r < pk.size(); ++r) {
      EXPECT_EQ(partition_of(pk[r], 3), q);
      EXPECT_EQ(pk[r], pa[r] * 7919);
      EXPECT_EQ(pb[r], -pa[r]);
    }
    rows += pk.size();
  }
  EXPECT_EQ(rows, 1000u);
  Value ragged = column_table({{1, 2}, {3}});
  EXPECT_THROW(run(split(run.ctx(), ragged, 2)), std::invalid_argument);
}

TEST(MergeKernels, BucketedJoinFindsExactlyTheMatchesAndKeepsPayloads) {
  Kernels run;
  merge::Params p{30000, 3, 0.3};
  std::vector<Value> build, other;
  for (uint64_t w = 0; w < p.chunks; ++w) {
    build.push_back(merge::generate_build(p, w));
    other.push_back(merge::generate_other(p, w));
  }
  Value joined = run(merge::hash_join(run.ctx(), pointers_to(build), pointers_to(other)));
  auto k = joined.part<const int64_t>(0);
  auto bp = joined.part<const int64_t>(1);
  EXPECT_EQ(k.size(), p.expected_rows());
  // Each match carries its build row's payload: key L*w + r has build payload[r] of chunk w.
  for (size_t i = 0; i < k.size(); i += 997) {
    auto w = static_cast<size_t>(k[i]) / p.rows, r = static_cast<size_t>(k[i]) % p.rows;
    EXPECT_EQ(bp[i], build[w].part<const int64_t>(1)[r]);
  }
}

class GroupbyKernels : public ::testing::Test {
 protected:
  groupby::Params p{5000, 3, 1700, uint64_t{1} << 30};
  Kernels run;

  // The app's graph without the runtime: partial per chunk, split, final per partition.
  std::vector<Value> run_pipeline() {
    auto n = static_cast<uint32_t>(p.chunks);
    std::vector<Value> splits;
    for (uint64_t w = 0; w < p.chunks; ++w) {
      Value chunk = groupby::generate(p, w);
      Value partial = run(groupby::partial_aggregate(run.ctx(), chunk, p.groups));
      splits.push_back(run(split(run.ctx(), partial, n)));
    }
    std::vector<Value> out;
    for (uint32_t q = 0; q < n; ++q) {
      std::vector<Value> pieces;
      for (const auto& s : splits) pieces.push_back(piece_view(s, q, 3));
      out.push_back(run(groupby::final_aggregate(run.ctx(), pointers_to(pieces), p.groups)));
    }
    return out;
  }
};

TEST_F(GroupbyKernels, ShuffledAggregatesMatchTheDirectCount) {
  auto expected = groupby::expected_summaries(p, 3);
  auto results = run_pipeline();
  uint64_t groups = 0;
  for (uint32_t q = 0; q < 3; ++q) {
    EXPECT_EQ(groupby::summarize(results[q]), expected[q]) << "partition " << q;
    groups += expected[q].groups;
  }
  EXPECT_EQ(groups, p.groups);  // 15000 rows fill all 1700 groups
}

TEST_F(GroupbyKernels, AWrongSumCountOrMeanIsCaught) {
  auto expected = groupby::expected_summaries(p, 3);
  auto results = run_pipeline();
  Value& r = results[1];
  ASSERT_GT(r.part<int64_t>(0).size(), 2u);
  r.part<int64_t>(1)[0] += 1;  // a sum off by one
  EXPECT_NE(groupby::summarize(r).checksum, expected[1].checksum);
  r.part<int64_t>(1)[0] -= 1;
  r.part<int64_t>(2)[1] += 1;  // a count off by one
  EXPECT_NE(groupby::summarize(r).checksum, expected[1].checksum);
  r.part<int64_t>(2)[1] -= 1;
  r.part<double>(3)[2] += 0.5;  // a mean that is not sum / count
  EXPECT_EQ(groupby::summarize(r).bad_means, 1u);
}

TEST_F(GroupbyKernels, TooManyKeysForTheBoundIsAnErrorNotAHang) {
  Value chunk = groupby::generate(p, 0);
  EXPECT_THROW(run(groupby::partial_aggregate(run.ctx(), chunk, 10)), std::runtime_error);
}

TEST(SortKernels, SampleSortIsSortedDisjointAndAPermutation) {
  Kernels run;
  sort::Params p{20000, 4, 64};
  std::vector<Value> chunks, samples;
  for (uint64_t w = 0; w < p.chunks; ++w) {
    chunks.push_back(sort::generate(p, w));
    samples.push_back(sort::sample(chunks.back(), p.samples));
  }
  Value splitters = sort::splitters(pointers_to(samples), 4);
  ASSERT_EQ(splitters.part<const int64_t>(0).size(), 3u);
  std::vector<Value> splits;
  for (const auto& c : chunks) splits.push_back(run(sort::range_split(run.ctx(), c, splitters)));
  uint64_t rows = 0, checksum = 0;
  int64_t prev_max = -1;
  for (uint32_t q = 0; q < 4; ++q) {
    std::vector<Value> pieces;
    for (const auto& s : splits) pieces.push_back(piece_view(s, q, 2));
    sort::Summary s = sort::summarize(run(sort::sort_pieces(run.ctx(), pointers_to(pieces))));
    EXPECT_EQ(s.unsorted, 0u);
    EXPECT_GT(s.rows, 20000u / 2) << "splitters from samples balance the partitions";
    EXPECT_GT(s.min, prev_max);
    prev_max = s.max;
    rows += s.rows;
    checksum += s.checksum;
  }
  sort::Summary want = sort::expected_total(p);
  EXPECT_EQ(rows, want.rows);
  EXPECT_EQ(checksum, want.checksum);
}

TEST(SortKernels, BucketSortAgreesWithStdSortAndTheChecksValidate) {
  Kernels run;
  std::mt19937_64 rng(7);
  std::vector<int64_t> k(5000), v(5000);
  for (size_t i = 0; i < k.size(); ++i) {
    k[i] = static_cast<int64_t>(rng() >> 1);
    if (i % 10 == 0) k[i] = 42;  // duplicates
    v[i] = static_cast<int64_t>(i);
  }
  Value t = column_table({k, v});
  std::vector<const Value*> one{&t};
  Value sorted = run(sort::sort_pieces(run.ctx(), one));
  std::vector<int64_t> want = k;
  std::sort(want.begin(), want.end());
  auto got = sorted.part<const int64_t>(0);
  ASSERT_EQ(got.size(), want.size());
  EXPECT_TRUE(std::equal(got.begin(), got.end(), want.begin()));
  sort::Summary before = sort::summarize(sorted);
  EXPECT_EQ(before.unsorted, 0u);
  // Out of order: caught. A payload moved to another key: the multiset checksum moves.
  auto keys = sorted.part<int64_t>(0);
  std::swap(keys[10], keys[4000]);
  EXPECT_GT(sort::summarize(sorted).unsorted, 0u);
  std::swap(keys[10], keys[4000]);
  auto pay = sorted.part<int64_t>(1);
  std::swap(pay[10], pay[4000]);
  EXPECT_NE(sort::summarize(sorted).checksum, before.checksum);
}

TEST(SortKernels, ExtremeKeysSortWithoutOverflow) {
  Kernels run;
  for (size_t n : {size_t{3}, size_t{500}, size_t{5000}}) {
    std::vector<int64_t> k, v;
    for (size_t i = 0; i < n; ++i) {
      k.push_back(i % 3 == 0 ? INT64_MIN + static_cast<int64_t>(i)
                             : (i % 3 == 1 ? INT64_MAX - static_cast<int64_t>(i) : 0));
      v.push_back(static_cast<int64_t>(i));
    }
    Value t = column_table({k, v});
    std::vector<const Value*> one{&t};
    Value sorted = run(sort::sort_pieces(run.ctx(), one));
    std::sort(k.begin(), k.end());
    auto got = sorted.part<const int64_t>(0);
    EXPECT_TRUE(std::equal(got.begin(), got.end(), k.begin(), k.end())) << n << " rows";
  }
}

// transpose-sum: every block's checksum from the kernel equals the generator's, and one
// changed byte -- in the low mantissa, which the integer part alone would not show, or in
// the exponent -- changes it.
TEST(TransposeKernels, ChecksumsMatchTheGeneratorAndCatchAnyChangedByte) {
  transpose::Grid g{100, 32};
  auto expected = transpose::expected_checksums(g);
  uint64_t nb = g.blocks();
  for (uint64_t bi = 0; bi < nb; ++bi)
    for (uint64_t bj = 0; bj < nb; ++bj) {
      uint64_t rows = g.extent(bi), cols = g.extent(bj);
      std::vector<double> a(rows * cols), b(cols * rows), y(rows * cols);
      transpose::fill_block_rows(a.data(), g, bi, bj, 0, rows);
      transpose::fill_block_rows(b.data(), g, bj, bi, 0, cols);
      transpose::transpose_add_rows(y.data(), a.data(), b.data(), rows, cols, 0, rows);
      ASSERT_EQ(transpose::checksum_block(y.data(), g, bi, bj), expected[bi * nb + bj]);
      for (size_t byte : {size_t{0}, size_t{3}, size_t{7}}) {
        std::vector<double> bad = y;
        reinterpret_cast<unsigned char*>(bad.data() + bad.size() / 2)[byte] ^= 0x5a;
        EXPECT_NE(transpose::checksum_block(bad.data(), g, bi, bj), expected[bi * nb + bj])
            << "block " << bi << "," << bj << " byte " << byte;
      }
    }
}

TEST(MatmulKernels, ExpectedChecksumsMatchANaiveProductAndCatchOneWrongElement) {
  matmul::Grid g{48, 16};
  uint64_t nb = g.blocks();
  auto expected = matmul::expected_checksums(g);
  for (uint64_t bi = 0; bi < nb; ++bi)
    for (uint64_t bj = 0; bj < nb; ++bj) {
      std::vector<double> y(g.c * g.c, 0.0);
      // Through the kernels: partial products of blocks, summed over k.
      for (uint64_t bk = 0; bk < nb; ++bk) {
        std::vector<double> a(g.c * g.c), b(g.c * g.c), p(g.c * g.c);
        matmul::fill_block(a.data(), g, bi, bk);
        matmul::fill_block(b.data(), g, bj, bk);
        matmul::multiply_transposed_rows(p.data(), a.data(), b.data(), g.c, 0, 5);
        matmul::multiply_transposed_rows(p.data(), a.data(), b.data(), g.c, 5, g.c);
        matmul::accumulate(y.data(), p.data(), p.size());
      }
      // And naively, element by element, from the generator.
      for (uint64_t r = 0; r < g.c; ++r)
        for (uint64_t c = 0; c < g.c; ++c) {
          int64_t want = 0;
          for (uint64_t k = 0; k < g.n; ++k)
            want += matmul::x_value(g.n, bi * g.c + r, k) * matmul::x_value(g.n, bj * g.c + c, k);
          ASSERT_EQ(y[r * g.c + c], static_cast<double>(want));
        }
      EXPECT_EQ(matmul::checksum_block(y.data(), g, bi, bj), expected[bi * nb + bj]);
      y[7] += 1;
      EXPECT_NE(matmul::checksum_block(y.data(), g, bi, bj), expected[bi * nb + bj]);
      y[7] -= 0.75;  // off by a fraction: truncation alone would not see it
      EXPECT_NE(matmul::checksum_block(y.data(), g, bi, bj), expected[bi * nb + bj]);
    }
}

TEST(RunSummary, MediansSpreadAndPairTable) {
  RunSummary s;
  EXPECT_EQ(s.text("MB/s"), "");
  s.add_run(0.3, 0.1, 100);
  s.add_run(0.1, 0.05, 300);
  s.add_run(0.2, 0.2, 200);
  s.add_transfer(0, 1, 1'000'000, 1'000'000);  // 1000 MB/s
  s.add_transfer(0, 1, 1'000'000, 2'000'000);  // 500 MB/s
  s.add_transfer(1, 0, 2'000'000, 1'000'000);  // 2000 MB/s
  s.add_transfer(1, -1, 8, 1000);              // to the client: not a worker pair
  std::string t = s.text("MB/s");
  EXPECT_NE(t.find("summary of 3 timed runs"), std::string::npos) << t;
  EXPECT_NE(t.find("wall clock         0.2000 s        (0.1500 .. 0.2500; min 0.1000, max 0.3000)"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("(0,1)             625.0        750.0        875.0          2          2.0"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("(1,0)"), std::string::npos);
  EXPECT_EQ(t.find("(1,-1)"), std::string::npos);
}

}  // namespace

// sort: a sample sort of (key, payload) rows on a mini Dask runtime (Dask's
// set_index / sort_values: sample quantiles, range-partition, shuffle, sort each
// partition; the SortBy workload of the SC'22 talk's OSU HiBD benchmarks), weak scaling:
// every worker holds one chunk of --chunk-size rows, generated there and persisted before
// timing. Timed: --samples keys sampled from every chunk, n - 1 splitters from all of them
// (one task), every chunk cut into n ranges by the splitters, the all-to-all of the
// pieces, and partition q sorted on worker q. Then, untimed, every partition's summary is
// gathered to the client: each must be sorted, the partitions in order must not overlap,
// and together they must be a permutation of the input (row count and a checksum of the
// multiset of (key, payload) pairs, computed from the generator alone).
#include <cstring>

#include "app_session.hpp"
#include "distributed/protocol.hpp"
#include "distributed/scheduler.hpp"
#include "shuffle_tasks.hpp"
#include "workloads/sort_kernels.hpp"

using namespace commbench;
using namespace commbench::app;

namespace {

constexpr size_t kSummaryWords = 5;  // rows, min, max, unsorted, checksum

Task<Value> make_chunk(TaskContext&, const std::vector<const Value*>&,
                       std::span<const std::byte> args) {
  auto a = unpack_u64(args);
  co_return sort::generate({a.at(0), a.at(1), a.at(2)}, a.at(3));
}
Task<Value> sample(TaskContext&, const std::vector<const Value*>& deps,
                   std::span<const std::byte> args) {
  co_return sort::sample(*deps.at(0), unpack_u64(args).at(0));
}
Task<Value> splitters(TaskContext&, const std::vector<const Value*>& deps,
                      std::span<const std::byte> args) {
  co_return sort::splitters(deps, static_cast<uint32_t>(unpack_u64(args).at(0)));
}
// deps: the chunk, then the splitters.
Task<Value> range_split(TaskContext& ctx, const std::vector<const Value*>& deps,
                        std::span<const std::byte>) {
  co_return co_await sort::range_split(ctx, *deps.at(0), *deps.at(1));
}
Task<Value> sort_partition(TaskContext& ctx, const std::vector<const Value*>& deps,
                           std::span<const std::byte>) {
  co_return co_await sort::sort_pieces(ctx, deps);
}
Task<Value> summary(TaskContext&, const std::vector<const Value*>& deps,
                    std::span<const std::byte>) {
  sort::Summary s = sort::summarize(*deps.at(0));
  co_return words_value(
      {s.rows, static_cast<uint64_t>(s.min), static_cast<uint64_t>(s.max), s.unsorted, s.checksum});
}

std::string key(const std::string& prefix, uint64_t i) {
  return prefix + "-" + std::to_string(i);
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t rows = 0, samples = 256;
  AppSession s(argc, argv,
               {"sort",
                "sort (sample sort: splitters from samples, range partition, all-to-all shuffle,\n"
                "local sort) on a mini Dask runtime over the comm backends; weak scaling:\n"
                "--chunk-size rows per worker.\n"
                "Run with: mpirun -np 3 sort --backend tcp   (2 workers, compact layout)",
                {{"rows_per_chunk", "--chunk-size"}},
                "default (1e6 rows per worker) | paper (1e8, the paper's merge chunk)"},
               {{"--chunk-size", &rows,
                 "Rows (int64 key, int64 payload) per worker (default 1000000; --preset paper: "
                 "100000000)",
                 1, uint64_t{1} << 40},
                {"--samples", &samples, "Keys sampled from every chunk to choose the splitters", 1,
                 uint64_t{1} << 24, true}},
               [&](const AppOptions& o) {
                 if (rows == 0) rows = o.preset == "paper" ? 100'000'000 : 1'000'000;
                 if (samples > rows)
                   throw std::invalid_argument("--samples (" + std::to_string(samples) +
                                               ") exceeds --chunk-size (" + std::to_string(rows) +
                                               ")");
               });
  s.functions().add("sort.make", make_chunk);
  s.functions().add("sort.sample", sample);
  s.functions().add("sort.splitters", splitters);
  s.functions().add("sort.range_split", range_split);
  s.functions().add("sort.sort", sort_partition);
  s.functions().add("sort.summary", summary);
  add_shuffle_functions(s.functions());
  sort::Params p{rows, static_cast<uint64_t>(s.topology().workers()), samples};
  // Per row a worker holds its chunk (16 B), its split (16 B + 4 B), the pieces it
  // receives (16 B), the sort's two row arrays (32 B) and its output (16 B): ~128 B.
  s.require_worker_memory(rows * 128, "--chunk-size " + std::to_string(rows));
  s.size_value = rows;
  s.rows_throughput = true;
  s.settings["chunk_size_rows"] = rows;
  s.settings["samples_per_chunk"] = samples;
  s.description_line = std::to_string(rows) +
                       " rows per worker (key uniform int64 >= 0, payload int64), " +
                       std::to_string(samples) + " samples per chunk";

  return s.run([&](Client& client) -> Task<void> {
    uint64_t n = p.chunks;
    std::vector<TaskSpec> gen;
    for (uint64_t w = 0; w < n; ++w)
      gen.push_back({key("chunk", w),
                     "sort.make",
                     {},
                     pack_u64({p.rows, p.chunks, p.samples, w}),
                     static_cast<int32_t>(w)});
    co_await client.compute(std::move(gen));
    uint64_t t0 = EventLoop::now_ns();
    sort::Summary expected = sort::expected_total(p);
    s.note("table persisted: " + std::to_string(n) + " chunks of " + std::to_string(rows) +
           " rows; expected checksum from the generator in " +
           std::to_string((EventLoop::now_ns() - t0) / 1'000'000) + " ms");

    auto graph = [&](size_t r) {
      std::string t = "r" + std::to_string(r);
      std::vector<TaskSpec> tasks;
      std::vector<std::string> sample_keys;
      for (uint64_t w = 0; w < n; ++w) {
        sample_keys.push_back(key(t + "-sample", w));
        tasks.push_back(
            {sample_keys.back(), "sort.sample", {key("chunk", w)}, pack_u64({p.samples}), -1});
      }
      std::string sp = t + "-splitters";
      tasks.push_back({sp, "sort.splitters", sample_keys, pack_u64({n}), -1});
      for (uint64_t w = 0; w < n; ++w) {
        std::string sk = key(t + "-split", w);
        tasks.push_back({sk, "sort.range_split", {key("chunk", w), sp}, {}, -1});
        add_piece_tasks(tasks, t + "-shuffle", sk, w, n, 2);
      }
      for (uint64_t q = 0; q < n; ++q)
        tasks.push_back({key(t + "-sorted", q),
                         "sort.sort",
                         pieces_of(t + "-shuffle", n, q),
                         {},
                         static_cast<int32_t>(q)});
      return tasks;
    };
    auto check = [&](size_t r, RunRecord& rec) -> Task<std::vector<KeyInfo>> {
      std::string t = "r" + std::to_string(r);
      std::vector<TaskSpec> sums;
      for (uint64_t q = 0; q < n; ++q)
        sums.push_back({key(t + "-summary", q), "sort.summary", {key(t + "-sorted", q)}, {}, -1});
      auto sum_keys = co_await client.compute(std::move(sums));
      auto values = co_await client.gather(sum_keys);
      uint64_t total = 0, checksum = 0;
      bool have_prev = false;
      int64_t prev_max = 0;
      for (uint64_t q = 0; q < n; ++q) {
        uint64_t w[kSummaryWords] = {};
        if (!value_words(values[q], w)) {
          ++rec.wrong;
          continue;
        }
        rec.wrong += w[3];  // pairs out of order inside the partition
        total += w[0];
        checksum += w[4];
        if (w[0] == 0) continue;
        // Globally sorted: this partition starts after the last one ended (equal keys always
        // land in one partition, so a key in two partitions is wrong too).
        if (have_prev && static_cast<int64_t>(w[1]) <= prev_max) ++rec.wrong;
        have_prev = true;
        prev_max = static_cast<int64_t>(w[2]);
      }
      if (total != expected.rows)
        rec.wrong += total > expected.rows ? total - expected.rows : expected.rows - total;
      if (checksum != expected.checksum) ++rec.wrong;  // not a permutation of the input
      rec.rows = static_cast<double>(p.total_rows());
      co_return sum_keys;
    };
    co_await s.repeat(client, graph, check);
  });
}

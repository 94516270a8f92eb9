// groupby: ddf.groupby("key").agg(sum, count, mean) with a hash shuffle (Dask's split_out
// path, shuffle on: the GroupBy workload of the SC'22 talk's OSU HiBD benchmarks), weak
// scaling: every worker holds one chunk of --chunk-size rows, generated there and persisted
// before timing. Timed, as Dask runs it: a partial sum and count per key of every chunk
// (groupby-chunk), a hash shuffle of the partials into one partition per worker (split,
// then piece views), and the final aggregation of partition q on worker q from its piece
// of every chunk. Then, untimed, every partition's summary (groups, an exact checksum of
// each key's sum and count, means checked against sum / count) is gathered to the client
// and compared with the one counted directly from the generator.
#include <cstring>

#include "app_session.hpp"
#include "distributed/protocol.hpp"
#include "distributed/scheduler.hpp"
#include "shuffle_tasks.hpp"
#include "workloads/groupby_kernels.hpp"

using namespace commbench;
using namespace commbench::app;

namespace {

groupby::Params params_of(const std::vector<uint64_t>& a) {
  return {a.at(0), a.at(1), a.at(2), a.at(3)};
}
uint64_t max_keys(const groupby::Params& p) {
  return std::min(p.groups, p.total_rows());
}

Task<Value> make_chunk(TaskContext&, const std::vector<const Value*>&,
                       std::span<const std::byte> args) {
  auto a = unpack_u64(args);
  co_return groupby::generate(params_of(a), a.at(4));
}
Task<Value> partial(TaskContext& ctx, const std::vector<const Value*>& deps,
                    std::span<const std::byte> args) {
  co_return co_await groupby::partial_aggregate(ctx, *deps.at(0),
                                                max_keys(params_of(unpack_u64(args))));
}
Task<Value> final_agg(TaskContext& ctx, const std::vector<const Value*>& deps,
                      std::span<const std::byte> args) {
  co_return co_await groupby::final_aggregate(ctx, deps, max_keys(params_of(unpack_u64(args))));
}
Task<Value> summary(TaskContext&, const std::vector<const Value*>& deps,
                    std::span<const std::byte>) {
  groupby::Summary s = groupby::summarize(*deps.at(0));
  co_return words_value({s.groups, s.checksum, s.bad_means});
}

std::string key(const std::string& prefix, uint64_t i) {
  return prefix + "-" + std::to_string(i);
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t rows = 0, groups = 0, key_range = uint64_t{1} << 40;
  AppSession s(
      argc, argv,
      {"groupby",
       "groupby-aggregate (sum, count, mean per key) with a hash shuffle on a mini Dask\n"
       "runtime over the comm backends; weak scaling: --chunk-size rows per worker.\n"
       "Run with: mpirun -np 3 groupby --backend tcp   (2 workers, compact layout)",
       {{"rows_per_chunk", "--chunk-size"}, {"groups", "--groups"}},
       "default (1e6 rows per worker) | paper (1e8, the paper's merge chunk)"},
      {{"--chunk-size", &rows, "Rows per worker (default 1000000; --preset paper: 100000000)", 1,
        uint64_t{1} << 40},
       {"--groups", &groups,
        "Distinct keys in the whole table (default: --chunk-size, a high-cardinality groupby -- "
        "the case Dask's split_out shuffle is for)",
        1, uint64_t{1} << 40},
       {"--key-range", &key_range, "Keys are the groups spread evenly over [0, this)", 1,
        uint64_t{1} << 62, true}},
      [&](const AppOptions& o) {
        if (rows == 0) rows = o.preset == "paper" ? 100'000'000 : 1'000'000;
        if (groups == 0) groups = rows;
        if (key_range < groups)
          throw std::invalid_argument("--key-range (" + std::to_string(key_range) +
                                      ") is smaller than --groups (" + std::to_string(groups) +
                                      "): the groups need distinct keys");
      });
  s.functions().add("groupby.make", make_chunk);
  s.functions().add("groupby.partial", partial);
  s.functions().add("groupby.final", final_agg);
  s.functions().add("groupby.summary", summary);
  add_shuffle_functions(s.functions());
  groupby::Params p{rows, static_cast<uint64_t>(s.topology().workers()), groups, key_range};
  if (groups > p.total_rows())
    s.boot().fail_all("--groups (" + std::to_string(groups) + ") exceeds the rows of the table (" +
                      std::to_string(rows) + " x " + std::to_string(p.chunks) +
                      " workers): some groups would be empty");
  // Per row a worker holds its chunk (16 B), the partial table's hash table and columns
  // (up to 2 x 24 B + 24 B), their split and the pieces it receives (2 x 24 B), and the
  // final hash table and result (up to 4 x 24 B + 32 B): about 256 B in all.
  s.require_worker_memory(rows * 256, "--chunk-size " + std::to_string(rows));  // <= 2^48
  s.size_value = rows;
  s.rows_throughput = true;
  s.settings["chunk_size_rows"] = rows;
  s.settings["groups"] = groups;
  s.settings["key_range"] = key_range;
  s.description_line = std::to_string(rows) + " rows per worker (key, value int64), " +
                       std::to_string(groups) + " groups over keys [0, " +
                       std::to_string(key_range) + "); agg sum, count, mean; split_out = workers";

  return s.run([&](Client& client) -> Task<void> {
    uint64_t n = p.chunks;
    auto args = [&](uint64_t w) { return pack_u64({p.rows, p.chunks, p.groups, p.key_range, w}); };
    std::vector<TaskSpec> gen;
    for (uint64_t w = 0; w < n; ++w)
      gen.push_back({key("chunk", w), "groupby.make", {}, args(w), static_cast<int32_t>(w)});
    co_await client.compute(std::move(gen));
    uint64_t t0 = EventLoop::now_ns();
    std::vector<groupby::Summary> expected =
        groupby::expected_summaries(p, static_cast<uint32_t>(n));
    s.note("table persisted: " + std::to_string(n) + " chunks of " + std::to_string(rows) +
           " rows; expected summaries counted from the generator in " +
           std::to_string((EventLoop::now_ns() - t0) / 1'000'000) + " ms");

    auto graph = [&](size_t r) {
      std::string t = "r" + std::to_string(r);
      std::vector<TaskSpec> tasks;
      std::vector<std::string> partials;
      for (uint64_t w = 0; w < n; ++w) {
        partials.push_back(key(t + "-partial", w));
        tasks.push_back({partials.back(), "groupby.partial", {key("chunk", w)}, args(w), -1});
      }
      add_hash_shuffle(tasks, t + "-shuffle", partials, n, 3);
      // Output partition q on worker q (as merge places its joins): one per core.
      for (uint64_t q = 0; q < n; ++q)
        tasks.push_back({key(t + "-agg", q), "groupby.final", pieces_of(t + "-shuffle", n, q),
                         args(q), static_cast<int32_t>(q)});
      return tasks;
    };
    auto check = [&](size_t r, RunRecord& rec) -> Task<std::vector<KeyInfo>> {
      std::string t = "r" + std::to_string(r);
      std::vector<TaskSpec> sums;
      for (uint64_t q = 0; q < n; ++q)
        sums.push_back({key(t + "-summary", q), "groupby.summary", {key(t + "-agg", q)}, {}, -1});
      auto sum_keys = co_await client.compute(std::move(sums));
      auto values = co_await client.gather(sum_keys);
      for (uint64_t q = 0; q < n; ++q) {
        uint64_t got[3] = {0, 0, 0};
        bool ok = value_words(values[q], got);
        if (!ok || !(groupby::Summary{got[0], got[1], got[2]} == expected[q])) ++rec.wrong;
      }
      rec.rows = static_cast<double>(p.total_rows());
      co_return sum_keys;
    };
    co_await s.repeat(client, graph, check);
  });
}

// merge: ddf_build.merge(ddf_other, on="key") with a hash shuffle (the paper's Fig. 8;
// dask-cuda local_cudf_merge, frac_match 0.3), weak scaling: every worker holds one chunk
// of --chunk-size rows of each table, generated there and persisted before timing.
// Timed, as Dask's task shuffle runs it: split each chunk by hash of key into one piece
// per output partition (split-*), select the pieces (piece-*, views, no copy), and join
// partition q on worker q from the q-th piece of every chunk -- pulled from every worker
// over the comm backend -- with a local hash join. Then, untimed, each partition's row
// count is gathered to the client and checked against n * n * max(floor((L div n) f), 1).
// --memory cuda: the tables live in device memory (generated on the host, copied once
// before timing), the split and the join run as CUDA kernels (host kernels on the
// simulated device: app_device.hpp), and the pieces cross the comm as device frames.
#include <cstring>

#include "app_session.hpp"
#include "distributed/protocol.hpp"
#include "distributed/scheduler.hpp"
#include "shuffle_tasks.hpp"
#include "workloads/hash_split.hpp"
#include "workloads/merge_kernels.hpp"
#ifdef COMMBENCH_APP_CUDA
#include "workloads/cuda/merge_gpu.hpp"
#endif

using namespace commbench;
using namespace commbench::app;

namespace {

merge::Params params_of(const std::vector<uint64_t>& a) {
  merge::Params p;
  p.rows = a.at(0);
  p.chunks = a.at(1);
  std::memcpy(&p.frac_match, &a.at(2), sizeof(double));
  return p;
}

Task<Value> make_build(const AppDevice& dev, TaskContext&, const std::vector<const Value*>&,
                       std::span<const std::byte> args) {
  auto a = unpack_u64(args);
  co_return dev.to_device(merge::generate_build(params_of(a), a.at(3)));
}
Task<Value> make_other(const AppDevice& dev, TaskContext&, const std::vector<const Value*>&,
                       std::span<const std::byte> args) {
  auto a = unpack_u64(args);
  co_return dev.to_device(merge::generate_other(params_of(a), a.at(3)));
}

#ifdef COMMBENCH_APP_CUDA
namespace cuda = commbench::app::gpu;

// The pieces' two columns, each concatenated into one device array (device-to-device
// copies on the default stream, where the join's kernels run after them).
Value concat_device(const AppDevice& dev, const std::vector<const Value*>& pieces) {
  size_t rows = 0;
  for (const Value* p : pieces) {
    if (p->parts.size() != 2 || p->parts[0].size != p->parts[1].size)
      throw std::runtime_error("merge.join: a piece is not a (key, payload) table");
    rows += p->parts[0].size / 8;
  }
  Value out = make_value({rows * 8, rows * 8}, MemoryKind::cuda);
  size_t at = 0;
  for (const Value* p : pieces) {
    for (size_t c = 0; c < 2; ++c)
      if (p->parts[c].size > 0)
        dev.ops->copy(out.parts[c].bytes() + at, p->parts[c].data, p->parts[c].size);
    at += p->parts[0].size;
  }
  return out;
}
#endif

// The hash split of a (key, payload) table, in the layout of split_by (partition q's
// columns are parts 2q, 2q+1), so the shuffle's piece views work on either kind.
Task<Value> device_split(const AppDevice& dev, TaskContext& ctx,
                         const std::vector<const Value*>& deps, std::span<const std::byte> args) {
  uint32_t parts = static_cast<uint32_t>(unpack_u64(args).at(0));
  const Value& table = *deps.at(0);
  if (dev.cuda_kernels()) {
#ifdef COMMBENCH_APP_CUDA
    if (table.parts.size() != 2 || table.parts[0].size != table.parts[1].size)
      throw std::invalid_argument("split: expected a (key, payload) table");
    size_t rows = table.parts[0].size / 8;
    Value grouped = make_value({rows * 8, rows * 8}, MemoryKind::cuda);
    // Complete when it returns (it waits for the device).
    std::vector<size_t> off = cuda::hash_partition(
        table.part<const int64_t>(0).data(), table.part<const int64_t>(1).data(), rows, parts,
        grouped.part<int64_t>(0).data(), grouped.part<int64_t>(1).data());
    Value pieces;
    pieces.owner = grouped.owner;
    for (uint32_t q = 0; q < parts; ++q)
      for (size_t c = 0; c < 2; ++c)
        pieces.parts.push_back(Buffer{grouped.parts[c].bytes() + off[q] * 8,
                                      (off[q + 1] - off[q]) * 8, MemoryKind::cuda});
    co_return pieces;
#else
    throw std::logic_error("split: a device without the CUDA kernels in this build");
#endif
  }
  dev.synchronize();  // simulated device: the table's default-stream copies have landed
  co_return dev.to_device(co_await split(ctx, table, parts));
}

// deps: n build pieces, then n other pieces.
Task<Value> join(const AppDevice& dev, TaskContext& ctx, const std::vector<const Value*>& deps,
                 std::span<const std::byte>) {
  size_t n = deps.size() / 2;
  std::vector<const Value*> build(deps.begin(), deps.begin() + static_cast<ptrdiff_t>(n));
  std::vector<const Value*> other(deps.begin() + static_cast<ptrdiff_t>(n), deps.end());
  if (dev.cuda_kernels()) {
#ifdef COMMBENCH_APP_CUDA
    Value b = concat_device(dev, build), o = concat_device(dev, other);
    size_t nb = b.parts[0].size / 8, no = o.parts[0].size / 8;
    cuda::DeviceJoin j(b.part<const int64_t>(0).data(), b.part<const int64_t>(1).data(), nb);
    size_t rows = j.count(o.part<const int64_t>(0).data(), no);
    Value out = make_value({rows * 8, rows * 8, rows * 8}, MemoryKind::cuda);
    // Complete when it returns (it waits for the device).
    j.materialize(o.part<const int64_t>(0).data(), o.part<const int64_t>(1).data(), no,
                  out.part<int64_t>(0).data(), out.part<int64_t>(1).data(),
                  out.part<int64_t>(2).data());
    co_return out;
#else
    throw std::logic_error("merge.join: a device without the CUDA kernels in this build");
#endif
  }
  dev.synchronize();  // simulated device: the pieces' default-stream copies have landed
  co_return dev.to_device(co_await merge::hash_join(ctx, build, other));
}
Task<Value> count(TaskContext&, const std::vector<const Value*>& deps, std::span<const std::byte>) {
  uint64_t rows = deps.at(0)->parts.at(0).size / 8;
  co_return words_value({rows});
}

std::string key(const std::string& prefix, uint64_t i) {
  return prefix + "-" + std::to_string(i);
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t rows = 0;
  double frac = 0.3;
  AppSession s(
      argc, argv,
      {"merge",
       "merge (inner join on key with a hash shuffle) on a mini Dask runtime over the comm\n"
       "backends; weak scaling: --chunk-size rows of each table per worker.\n"
       "Run with: mpirun -np 3 merge --backend tcp   (2 workers, compact layout)",
       {{"rows_per_chunk", "--chunk-size"}, {"frac_match", "--frac-match"}},
       "default (1e6 rows per worker) | paper (1e8, the paper's Fig. 8)"},
      {{"--chunk-size", &rows,
        "Rows per worker in each table (default 1000000; --preset paper: 100000000)", 1,
        uint64_t{1} << 40},
       {"--frac-match", &frac, "Fraction of the other table's keys that match", 0, 1, true}},
      [&](const AppOptions& o) {
        if (rows == 0) rows = o.preset == "paper" ? 100'000'000 : 1'000'000;
        if (!(frac > 0 && frac <= 1)) throw std::invalid_argument("--frac-match must be in (0, 1]");
      });
  s.functions().add("merge.build", with_device(s, make_build));
  s.functions().add("merge.other", with_device(s, make_other));
  add_shuffle_functions(s.functions());
  // The shuffle's split, on whichever memory the tables are in (the piece views are kind-free).
  s.functions().add("shuffle.hash_split", with_device(s, device_split));
  s.functions().add("merge.join", with_device(s, join));
  s.functions().add("merge.count", count);
  merge::Params p{rows, static_cast<uint64_t>(s.topology().workers()), frac};
  if (p.chunks > 0 && rows < p.chunks) {
    s.boot().fail_all("--chunk-size (" + std::to_string(rows) +
                      ") must be at least the number of workers");
  }
  // Per row a worker holds both tables (2 x 16 B), their split copies and the pieces it
  // receives (2 x 32 B more), and its share of the joined rows: about 128 B in all.
  s.require_worker_memory(rows * 128, "--chunk-size " + std::to_string(rows));  // <= 2^47
  s.size_value = rows;
  s.rows_throughput = true;
  s.settings["chunk_size_rows"] = rows;
  s.settings["frac_match"] = frac;
  s.settings["frac_match_ppm"] = static_cast<long long>(frac * 1e6);  // as older sidecars had it
  s.description_line = std::to_string(rows) + " rows per worker and table, frac_match " +
                       std::to_string(frac) + ", expect " + std::to_string(p.expected_rows()) +
                       " matched rows";

  return s.run([&](Client& client) -> Task<void> {
    uint64_t n = p.chunks;
    uint64_t frac_bits;
    std::memcpy(&frac_bits, &p.frac_match, sizeof frac_bits);
    std::vector<TaskSpec> gen;
    for (uint64_t w = 0; w < n; ++w) {
      gen.push_back({key("build", w),
                     "merge.build",
                     {},
                     pack_u64({rows, n, frac_bits, w}),
                     static_cast<int32_t>(w)});
      gen.push_back({key("other", w),
                     "merge.other",
                     {},
                     pack_u64({rows, n, frac_bits, w}),
                     static_cast<int32_t>(w)});
    }
    co_await client.compute(std::move(gen));
    s.note("tables persisted: 2 x " + std::to_string(n) + " chunks of " + std::to_string(rows) +
           " rows (key, payload int64)");

    auto graph = [&](size_t r) {
      std::string t = "r" + std::to_string(r);
      std::vector<TaskSpec> tasks;
      for (const char* table : {"build", "other"}) {
        std::vector<std::string> inputs;
        for (uint64_t w = 0; w < n; ++w) inputs.push_back(key(table, w));
        add_hash_shuffle(tasks, t + "-" + table, inputs, n, 2);
      }
      for (uint64_t q = 0; q < n; ++q) {
        std::vector<std::string> deps = pieces_of(t + "-build", n, q);
        for (auto& k : pieces_of(t + "-other", n, q)) deps.push_back(std::move(k));
        // Output partition q on worker q (as dask-cuda's explicit-comms merge places it):
        // every join gets its own core instead of two landing on one by a tie.
        tasks.push_back({key(t + "-join", q), "merge.join", deps, {}, static_cast<int32_t>(q)});
      }
      return tasks;
    };
    // Each partition's row count, gathered to the client: their sum is the expected one.
    auto check = [&](size_t r, RunRecord& rec) -> Task<std::vector<KeyInfo>> {
      std::string t = "r" + std::to_string(r);
      std::vector<TaskSpec> counts;
      for (uint64_t q = 0; q < n; ++q)
        counts.push_back({key(t + "-count", q), "merge.count", {key(t + "-join", q)}, {}, -1});
      auto count_keys = co_await client.compute(std::move(counts));
      auto values = co_await client.gather(count_keys);
      uint64_t total = 0;
      for (const auto& v : values) {
        uint64_t c = 0;
        value_words(v, std::span<uint64_t>(&c, 1));  // a malformed count stays 0: wrong
        total += c;
      }
      uint64_t expected = p.expected_rows();
      rec.wrong = total > expected ? total - expected : expected - total;
      rec.rows = static_cast<double>(total);
      co_return count_keys;
    };
    co_await s.repeat(client, graph, check);
  });
}

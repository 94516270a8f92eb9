#include "workloads/sort_kernels.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>

#include "workloads/mix64.hpp"

namespace commbench::app::sort {

namespace {
constexpr uint64_t kSeed = 0x5eed50f7ull;

struct Row {
  int64_t key;
  int64_t payload;
};

// Stable LSD radix sort of rows by key (keys are >= 0, 63 bits): 8 passes of 8 bits,
// every histogram from one read of the keys, and a pass skipped when one bucket holds all.
void radix_sort(Row* rows, Row* scratch, size_t n) {
  std::array<std::array<size_t, 256>, 8> count{};
  for (size_t i = 0; i < n; ++i) {
    auto k = static_cast<uint64_t>(rows[i].key);
    for (int d = 0; d < 8; ++d) ++count[d][(k >> (8 * d)) & 0xff];
  }
  Row* from = rows;
  Row* to = scratch;
  for (int d = 0; d < 8; ++d) {
    auto& c = count[static_cast<size_t>(d)];
    if (std::any_of(c.begin(), c.end(), [n](size_t v) { return v == n; })) continue;
    size_t at = 0;
    for (auto& v : c) {
      size_t here = v;
      v = at;
      at += here;
    }
    for (size_t i = 0; i < n; ++i)
      to[c[(static_cast<uint64_t>(from[i].key) >> (8 * d)) & 0xff]++] = from[i];
    std::swap(from, to);
  }
  if (from != rows) std::copy(from, from + n, rows);
}
}  // namespace

int64_t key_of_row(uint64_t g) {
  return static_cast<int64_t>(mix64(g + kSeed) >> 1);
}

uint64_t pair_hash(int64_t key, int64_t payload) {
  return mix64(static_cast<uint64_t>(key) ^ mix64(static_cast<uint64_t>(payload)));
}

Value generate(const Params& p, uint64_t chunk) {
  Value v = make_value({p.rows * 8, p.rows * 8});
  int64_t* key = v.part<int64_t>(0).data();
  int64_t* payload = v.part<int64_t>(1).data();
  for (uint64_t i = 0; i < p.rows; ++i) {
    uint64_t g = chunk * p.rows + i;
    key[i] = key_of_row(g);
    payload[i] = static_cast<int64_t>(g);
  }
  return v;
}

Value sample(const Value& table, uint64_t count) {
  auto key = table.part<const int64_t>(0);
  uint64_t n = std::min<uint64_t>(count, key.size());
  Value out = make_value({n * 8});
  int64_t* o = out.part<int64_t>(0).data();
  // Evenly spaced positions: the generator's keys are in no order, so this is a fair sample.
  for (uint64_t i = 0; i < n; ++i) o[i] = key[(i * key.size() + key.size() / 2) / n];
  return out;
}

Value splitters(const std::vector<const Value*>& samples, uint32_t partitions) {
  std::vector<int64_t> all;
  for (const Value* s : samples) {
    auto k = s->part<const int64_t>(0);
    all.insert(all.end(), k.begin(), k.end());
  }
  std::sort(all.begin(), all.end());
  uint64_t n = partitions > 0 ? partitions - 1 : 0;
  Value out = make_value({n * 8});
  int64_t* o = out.part<int64_t>(0).data();
  for (uint64_t q = 1; q <= n; ++q)
    o[q - 1] = all.empty() ? 0 : all[std::min<size_t>(all.size() - 1, q * all.size() / partitions)];
  return out;
}

uint32_t range_of(int64_t key, const int64_t* splitters, size_t count) {
  return static_cast<uint32_t>(std::upper_bound(splitters, splitters + count, key) - splitters);
}

Value range_split(const Value& table, const Value& split_keys) {
  auto key = table.part<const int64_t>(0);
  auto payload = table.part<const int64_t>(1);
  auto sp = split_keys.part<const int64_t>(0);
  auto partitions = static_cast<uint32_t>(sp.size() + 1);
  Value scratch = make_value({key.size() * 4});  // pooled: no fresh pages every run
  uint32_t* dest = scratch.part<uint32_t>(0).data();
  std::vector<size_t> count(partitions, 0);
  for (size_t r = 0; r < key.size(); ++r) ++count[dest[r] = range_of(key[r], sp.data(), sp.size())];
  std::vector<size_t> sizes;
  for (uint32_t q = 0; q < partitions; ++q) sizes.insert(sizes.end(), 2, count[q] * 8);
  Value out = make_value(std::span<const size_t>(sizes));
  std::vector<int64_t*> ok(partitions), op(partitions);
  for (uint32_t q = 0; q < partitions; ++q) {
    ok[q] = out.part<int64_t>(2 * q).data();
    op[q] = out.part<int64_t>(2 * q + 1).data();
  }
  for (size_t r = 0; r < key.size(); ++r) {
    *ok[dest[r]]++ = key[r];
    *op[dest[r]]++ = payload[r];
  }
  return out;
}

Value sort_pieces(const std::vector<const Value*>& pieces) {
  size_t n = 0;
  for (const Value* p : pieces) {
    if (p->parts.size() != 2) throw std::runtime_error("sort: a piece needs 2 columns");
    n += p->part<const int64_t>(0).size();
  }
  Value scratch = make_value({n * sizeof(Row), n * sizeof(Row)});
  Row* rows = scratch.part<Row>(0).data();
  size_t at = 0;
  for (const Value* p : pieces) {
    auto k = p->part<const int64_t>(0);
    auto v = p->part<const int64_t>(1);
    for (size_t i = 0; i < k.size(); ++i) rows[at++] = Row{k[i], v[i]};
  }
  radix_sort(rows, scratch.part<Row>(1).data(), n);
  Value out = make_value({n * 8, n * 8});
  int64_t* ok = out.part<int64_t>(0).data();
  int64_t* op = out.part<int64_t>(1).data();
  for (size_t i = 0; i < n; ++i) {
    ok[i] = rows[i].key;
    op[i] = rows[i].payload;
  }
  return out;
}

Summary summarize(const Value& sorted) {
  Summary s;
  if (sorted.parts.size() != 2) {
    s.unsorted = 1;  // not a table: can never validate
    return s;
  }
  auto k = sorted.part<const int64_t>(0);
  auto v = sorted.part<const int64_t>(1);
  s.rows = k.size();
  if (s.rows == 0) return s;
  for (size_t i = 0; i < k.size(); ++i) {
    if (i > 0 && k[i - 1] > k[i]) ++s.unsorted;
    s.checksum += pair_hash(k[i], v[i]);
  }
  s.min = *std::min_element(k.begin(), k.end());
  s.max = *std::max_element(k.begin(), k.end());
  return s;
}

Summary expected_total(const Params& p) {
  Summary s;
  s.rows = p.total_rows();
  for (uint64_t g = 0; g < s.rows; ++g)
    s.checksum += pair_hash(key_of_row(g), static_cast<int64_t>(g));
  return s;
}

}  // namespace commbench::app::sort

#include "workloads/groupby_kernels.hpp"

#include <algorithm>
#include <stdexcept>

#include "workloads/hash_split.hpp"
#include "workloads/mix64.hpp"

namespace commbench::app::groupby {

namespace {

constexpr uint64_t kMultiplier = 2654435761;  // Knuth's: spreads consecutive rows over groups

// The term one group adds to a partition's checksum; a sum of terms does not depend on
// the order groups come out in.
uint64_t term(int64_t key, int64_t sum, int64_t count) {
  uint64_t k = static_cast<uint64_t>(key), s = static_cast<uint64_t>(sum);
  return mix64(k ^ mix64(s + mix64(static_cast<uint64_t>(count) + 0x9e3779b97f4a7c15ull)));
}

// An open-addressing table of (key, sum, count), at most half full; all three side by
// side so a probe touches one cache line. Keys are never negative, so -1 marks a free slot.
class SumTable {
 public:
  explicit SumTable(uint64_t max_keys) {
    while (cap_ < 2 * max_keys) cap_ <<= 1;
    scratch_ = make_value({cap_ * sizeof(Slot)});
    slots_ = scratch_.part<Slot>(0).data();
    std::fill(slots_, slots_ + cap_, Slot{kFree, 0, 0});
  }
  void add(int64_t key, int64_t sum, int64_t count) {
    uint64_t mask = cap_ - 1;
    uint64_t i = mix64(static_cast<uint64_t>(key)) & mask;
    while (slots_[i].key != key && slots_[i].key != kFree) i = (i + 1) & mask;
    if (slots_[i].key == kFree) {
      // A full table would probe forever: more keys than the caller's bound is an error.
      if (++used_ == cap_) throw std::runtime_error("groupby: more distinct keys than groups");
      slots_[i].key = key;
    }
    slots_[i].sum += sum;
    slots_[i].count += count;
  }
  uint64_t used() const { return used_; }
  // Calls f(key, sum, count) for every key held.
  template <typename F>
  void each(F&& f) const {
    for (uint64_t i = 0; i < cap_; ++i)
      if (slots_[i].key != kFree) f(slots_[i].key, slots_[i].sum, slots_[i].count);
  }

 private:
  struct Slot {
    int64_t key, sum, count;
  };
  static constexpr int64_t kFree = -1;
  uint64_t cap_ = 16, used_ = 0;
  Value scratch_;  // pooled: the table's pages are reused run after run
  Slot* slots_ = nullptr;
};

}  // namespace

int64_t Params::key_of_group(uint64_t group) const {
  return static_cast<int64_t>(group * (key_range / groups));
}
uint64_t Params::group_of_row(uint64_t g) const {
  return static_cast<uint64_t>((static_cast<unsigned __int128>(g) * kMultiplier) % groups);
}
int64_t Params::value_of_row(uint64_t g) const {
  return static_cast<int64_t>(g % 1000);
}

Value generate(const Params& p, uint64_t chunk) {
  if (p.groups == 0 || p.key_range < p.groups)
    throw std::invalid_argument("groupby: the key range is smaller than the groups");
  Value v = make_value({p.rows * 8, p.rows * 8});
  int64_t* key = v.part<int64_t>(0).data();
  int64_t* value = v.part<int64_t>(1).data();
  for (uint64_t i = 0; i < p.rows; ++i) {
    uint64_t g = chunk * p.rows + i;
    key[i] = p.key_of_group(p.group_of_row(g));
    value[i] = p.value_of_row(g);
  }
  return v;
}

Value partial_aggregate(const Value& table, uint64_t max_keys) {
  auto key = table.part<const int64_t>(0);
  auto value = table.part<const int64_t>(1);
  SumTable t(std::min<uint64_t>(key.size(), max_keys));
  for (size_t r = 0; r < key.size(); ++r) t.add(key[r], value[r], 1);
  uint64_t n = t.used();
  Value out = make_value({n * 8, n * 8, n * 8});
  int64_t* ok = out.part<int64_t>(0).data();
  int64_t* os = out.part<int64_t>(1).data();
  int64_t* oc = out.part<int64_t>(2).data();
  size_t m = 0;
  t.each([&](int64_t k, int64_t s, int64_t c) {
    ok[m] = k;
    os[m] = s;
    oc[m++] = c;
  });
  return out;
}

Value final_aggregate(const std::vector<const Value*>& pieces, uint64_t max_keys) {
  uint64_t rows = 0;
  for (const Value* p : pieces) {
    if (p->parts.size() != 3) throw std::runtime_error("groupby: a piece needs 3 columns");
    rows += p->part<const int64_t>(0).size();
  }
  SumTable t(std::min(rows, max_keys));
  for (const Value* p : pieces) {
    auto k = p->part<const int64_t>(0);
    auto s = p->part<const int64_t>(1);
    auto c = p->part<const int64_t>(2);
    for (size_t r = 0; r < k.size(); ++r) t.add(k[r], s[r], c[r]);
  }
  uint64_t n = t.used();
  Value out = make_value({n * 8, n * 8, n * 8, n * 8});
  int64_t* ok = out.part<int64_t>(0).data();
  int64_t* os = out.part<int64_t>(1).data();
  int64_t* oc = out.part<int64_t>(2).data();
  double* om = out.part<double>(3).data();
  size_t m = 0;
  t.each([&](int64_t k, int64_t s, int64_t c) {
    ok[m] = k;
    os[m] = s;
    oc[m] = c;
    om[m++] = static_cast<double>(s) / static_cast<double>(c);
  });
  return out;
}

Summary summarize(const Value& result) {
  Summary out;
  if (result.parts.size() != 4) {
    out.bad_means = 1;  // not a result table at all: can never match
    return out;
  }
  auto k = result.part<const int64_t>(0);
  auto s = result.part<const int64_t>(1);
  auto c = result.part<const int64_t>(2);
  auto m = result.part<const double>(3);
  out.groups = k.size();
  for (size_t r = 0; r < k.size(); ++r) {
    out.checksum += term(k[r], s[r], c[r]);
    if (c[r] == 0 || m[r] != static_cast<double>(s[r]) / static_cast<double>(c[r])) ++out.bad_means;
  }
  return out;
}

std::vector<Summary> expected_summaries(const Params& p, uint32_t partitions) {
  std::vector<int64_t> sum(p.groups, 0), count(p.groups, 0);
  for (uint64_t g = 0; g < p.total_rows(); ++g) {
    uint64_t grp = p.group_of_row(g);
    sum[grp] += p.value_of_row(g);
    ++count[grp];
  }
  std::vector<Summary> out(partitions);
  for (uint64_t grp = 0; grp < p.groups; ++grp) {
    if (count[grp] == 0) continue;  // a group no row fell into has no output row
    int64_t key = p.key_of_group(grp);
    Summary& q = out[partition_of(key, partitions)];
    ++q.groups;
    q.checksum += term(key, sum[grp], count[grp]);
  }
  return out;
}

}  // namespace commbench::app::groupby
